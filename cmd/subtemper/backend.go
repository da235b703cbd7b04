package main

import (
	"strings"

	"github.com/subtemper/subtemper/linalg"
)

// backendHelp is the help of --backend: the backends compiled in and the
// default, the fastest of them (cuda > openblas > gonum).
func backendHelp() string {
	return "linear-algebra backend: " + strings.Join(linalg.Names(), ", ") + " (compiled into this binary); the default is the fastest of them (cuda > openblas > gonum; " +
		"build with make build, which adds -tags openblas when OpenBLAS is installed, about 4× faster than gonum)"
}
