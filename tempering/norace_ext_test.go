//go:build !race

package tempering_test

// raceBuild reports a build with the race detector, under which the long
// statistical tests are opt-in.
const raceBuild = false
