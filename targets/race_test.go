//go:build race

package targets

// raceEnabled is true under the race detector, which slows the samplers
// several times: the long statistical tests then run shorter chains and
// check only what does not need their precision.
const raceEnabled = true
