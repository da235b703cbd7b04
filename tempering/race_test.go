//go:build race

package tempering

// raceEnabled is true under the race detector, which slows the samplers
// about tenfold: the long statistical tests then run shorter chains and
// only check that they run (the statistical assertions are made by the
// normal run).
const raceEnabled = true
