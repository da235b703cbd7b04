package bench

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/linalg"
	_ "github.com/subtemper/subtemper/linalg/openblas" // registers "openblas" with -tags openblas
	"github.com/subtemper/subtemper/mvn"
	"github.com/subtemper/subtemper/tempering"
)

// BackendEnv is the environment variable that selects the backend of the
// benchmarks (and the default of `subtemper reproduce --backend`).
const BackendEnv = "SUBTEMPER_BACKEND"

// ThreadsEnv is the environment variable that sets OpenBLAS's thread count
// in the benchmarks and the reproduction (0 or unset: leave OpenBLAS's own
// default, OPENBLAS_NUM_THREADS or one per core).
const ThreadsEnv = "SUBTEMPER_BLAS_THREADS"

// FastestBackend returns the name of the fastest compiled-in CPU backend:
// "openblas" when built with -tags openblas, otherwise "gonum". (The CUDA
// backend is never chosen implicitly: at the paper's sizes a CPU backend
// is as fast.)
func FastestBackend() string {
	for _, n := range linalg.Names() {
		if n == "openblas" {
			return n
		}
	}
	return linalg.DefaultName
}

// Backend returns the backend named name; "" means the environment
// variable SUBTEMPER_BACKEND, and if that is unset, FastestBackend.
func Backend(name string) (linalg.Backend, error) {
	if name == "" {
		name = os.Getenv(BackendEnv)
	}
	if name == "" {
		name = FastestBackend()
	}
	return linalg.Get(name)
}

// ApplyThreads sets OpenBLAS's thread count from SUBTEMPER_BLAS_THREADS if
// it is set (a no-op without -tags openblas), and returns the count in
// effect (0 when unknown).
func ApplyThreads() (int, error) {
	s := strings.TrimSpace(os.Getenv(ThreadsEnv))
	if s == "" {
		return blasThreads(), nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bench: %s=%q: want a non-negative integer", ThreadsEnv, s)
	}
	if n > 0 {
		setBLASThreads(n)
	}
	return blasThreads(), nil
}

// Model names.
const (
	ModelMVN = "mvn"
	ModelGP  = "gp"
)

// NewTarget builds the synthetic target of the paper's experiments on the
// backend be: model "mvn" (N observations of dimension dim, the mvn
// package's default Σ and σ0) or "gp" (N observations with dim inputs, so
// |θ| = dim+2, the paper's prior). The data depend only on (model, dim,
// dataSeed), and for a given seed the first n observations are the same
// whatever N is (the paper's N sweeps rely on it).
func NewTarget(be linalg.Backend, model string, n, dim int, dataSeed uint64) (tempering.Target, error) {
	switch model {
	case ModelMVN:
		data, sigma, _, err := mvn.Synthetic(n, dim, dataSeed, mvn.SynthOptions{})
		if err != nil {
			return nil, fmt.Errorf("bench: mvn data N=%d D=%d: %w", n, dim, err)
		}
		m, err := mvn.New(be, data, sigma, mvn.Options{})
		if err != nil {
			return nil, fmt.Errorf("bench: mvn model N=%d D=%d: %w", n, dim, err)
		}
		return m, nil
	case ModelGP:
		data, _, err := gp.Synthetic(n, dim, dataSeed, gp.Prior{})
		if err != nil {
			return nil, fmt.Errorf("bench: gp data N=%d D=%d: %w", n, dim, err)
		}
		m, err := gp.New(be, data, gp.Options{})
		if err != nil {
			return nil, fmt.Errorf("bench: gp model N=%d D=%d: %w", n, dim, err)
		}
		return m, nil
	}
	return nil, fmt.Errorf("bench: unknown model %q (want mvn or gp)", model)
}

// paperSettings are the settings every paper-settings run shares: driver
// d with kernel k, the geometric ladder M = 6, β* = 1/8 kept fixed, swap
// schedule sw, no warm-up, TT and STT in Neal's form (NoBaseSteps).
func paperSettings(d tempering.Driver, k tempering.Kernel, sw tempering.SwapSchedule) *tempering.Settings {
	return &tempering.Settings{
		Sampler: tempering.Sampler{Driver: d, Kernel: k, Levels: PaperLevels, BetaMin: PaperBetaMin, Swap: sw, Ladder: tempering.LadderFixed, BaseSteps: tempering.NoBaseSteps},
		Control: tempering.Control{Warmup: tempering.NoWarmup},
	}
}

// Paper settings of §4.
const (
	PaperLevels   = 6       // M
	PaperBetaMin  = 1.0 / 8 // β* (β_m = 2^{-m/2})
	PaperMHSigma  = 0.1     // MH σ at β = 1 (σ_m = 0.1·β_m^{-1/2})
	PaperHMCStep  = 0.01    // HMC ε
	PaperMVNSteps = 10      // HMC L, MVN
	PaperGPSteps  = 5       // HMC L, GP
)

// PaperAlpha returns the exponent of c(n) ∝ n^α that the paper's §4
// assumes for model: 1 for the MVN, 3 for the GP (NaN for another name).
func PaperAlpha(model string) float64 {
	switch model {
	case ModelMVN:
		return 1
	case ModelGP:
		return 3
	}
	return math.NaN()
}

// Kernel returns the paper's inner kernel "mh" or "hmc" for model, with
// step-size adaptation off.
func Kernel(kernel, model string) (tempering.Kernel, error) {
	switch kernel {
	case "mh":
		return tempering.MH{Sigma: PaperMHSigma, Adapt: tempering.AdaptNone}, nil
	case "hmc":
		steps := PaperMVNSteps
		if model == ModelGP {
			steps = PaperGPSteps
		}
		return tempering.HMC{StepSize: PaperHMCStep, Steps: steps, Adapt: tempering.AdaptNone}, nil
	}
	return nil, fmt.Errorf("bench: unknown kernel %q (want mh or hmc)", kernel)
}

// paperIndex is d's position in the order none, pt, tt, spt, stt
// (tempering.Driver's numbering before SPT became its zero value). The
// benchmarks derive their chains' random streams from it, so that the
// paper's reproduction draws the same numbers whatever the enum's values.
func paperIndex(d tempering.Driver) uint64 {
	switch d {
	case tempering.None:
		return 0
	case tempering.PT:
		return 1
	case tempering.TT:
		return 2
	case tempering.SPT:
		return 3
	case tempering.STT:
		return 4
	}
	panic(fmt.Sprintf("bench: unknown driver %v", d))
}

// Drivers lists the five samplers in the order of the paper's tables'
// columns after the inner sampler: none, STT, TT, SPT, PT.
var Drivers = []tempering.Driver{tempering.None, tempering.STT, tempering.TT, tempering.SPT, tempering.PT}
