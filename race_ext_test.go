//go:build race

package subtemper_test

// raceEnabled is true under the race detector, which slows the samplers
// several times: the long statistical tests then run smaller.
const raceEnabled = true
