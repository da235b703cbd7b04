//go:build openblas

package subtemper

import (
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/linalg/openblas"
	"github.com/subtemper/subtemper/tempering"
)

// TestFitGPPinsOpenBLASThreads: with OpenBLAS compiled in, the library
// is on it by default and gives each chain its share of the cores, as
// the CLI does; predictions run one thread per worker.
func TestFitGPPinsOpenBLASThreads(t *testing.T) {
	if os.Getenv("OPENBLAS_NUM_THREADS") != "" {
		t.Skip("OPENBLAS_NUM_THREADS is set: the library leaves the threads to it")
	}
	data, _, err := gp.Synthetic(30, 1, 2, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	openblas.SetThreads(runtime.NumCPU() + 3)
	fit, err := FitGP(context.Background(), data, GPOptions{Settings: &tempering.Settings{Control: tempering.Control{Chains: 2, Warmup: 20, Draws: 20}}})
	if err != nil {
		t.Fatal(err)
	}
	defer fit.Close()
	if fit.Backend != "openblas" || openblas.Threads() != max(1, runtime.NumCPU()/2) {
		t.Errorf("backend %s, OpenBLAS threads %d after a 2-chain fit on %d cores; want openblas, %d", fit.Backend, openblas.Threads(), runtime.NumCPU(), max(1, runtime.NumCPU()/2))
	}
	if _, err := fit.Predict(context.Background(), data.X[:3], 3, PredictOptions{}); err != nil {
		t.Fatal(err)
	}
	if openblas.Threads() != 1 {
		t.Errorf("OpenBLAS threads %d after Predict, want 1", openblas.Threads())
	}
}
