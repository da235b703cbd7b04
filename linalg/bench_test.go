package linalg_test

import (
	"testing"

	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/linalg/linalgtest"
	_ "github.com/subtemper/subtemper/linalg/openblas" // registers "openblas" with -tags openblas
)

// Every compiled-in backend, side by side: Cholesky/backend=<name>/N=<n>
// etc., which benchstat compares across backends (-col /backend).

func benchAll(b *testing.B, f func(*testing.B, linalg.Backend, []int)) {
	for _, be := range linalg.Backends() {
		b.Run("backend="+be.Name(), func(b *testing.B) { f(b, be, linalgtest.BenchSizes) })
	}
}

func BenchmarkCholesky(b *testing.B) { benchAll(b, linalgtest.BenchCholesky) }
func BenchmarkSolve(b *testing.B)    { benchAll(b, linalgtest.BenchSolve) }
func BenchmarkInverse(b *testing.B)  { benchAll(b, linalgtest.BenchInverse) }
func BenchmarkGEMM(b *testing.B)     { benchAll(b, linalgtest.BenchGEMM) }
func BenchmarkGPStep(b *testing.B)   { benchAll(b, linalgtest.BenchGPStep) }
