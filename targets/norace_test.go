//go:build !race

package targets

// raceEnabled is true under the race detector (see race_test.go).
const raceEnabled = false
