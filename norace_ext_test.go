//go:build !race

package subtemper_test

// raceEnabled is true under the race detector (see race_ext_test.go).
const raceEnabled = false
