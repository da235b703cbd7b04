//go:build !openblas

package bench

func setBLASThreads(int) {}
func blasThreads() int   { return 0 }
