//go:build openblas

package bench

import "github.com/subtemper/subtemper/linalg/openblas"

func setBLASThreads(n int) { openblas.SetThreads(n) }
func blasThreads() int     { return openblas.Threads() }
