package linalg

import (
	"gonum.org/v1/gonum/blas"
	gblas "gonum.org/v1/gonum/blas/gonum"
	glapack "gonum.org/v1/gonum/lapack/gonum"
)

// Compile-time checks that gonum's implementations fit.
var (
	_ blas.Float64 = gblas.Implementation{}
	_ LAPACK       = glapack.Implementation{}
)

func init() {
	if err := Register(NewCPU("gonum", gblas.Implementation{}, glapack.Implementation{})); err != nil {
		panic(err) // unreachable: the registry is empty at init
	}
}
