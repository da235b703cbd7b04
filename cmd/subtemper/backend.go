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

// defineEvalBackend defines eval's --backend, whose default is the
// default backend (linalg.DefaultName), not the fastest.
func defineEvalBackend(fs *flagSet, p *string) {
	fs.str(p, "backend", linalg.DefaultName, "linear-algebra backend: "+strings.Join(linalg.Names(), ", ")+" (compiled into this binary)")
}

// checkBackend refuses a --backend that is not compiled into this
// binary.
func checkBackend(name string) error {
	if _, err := linalg.Get(name); err != nil {
		return usagef("--backend %q is not compiled into this binary (available: %s)", name, strings.Join(linalg.Names(), ", "))
	}
	return nil
}
