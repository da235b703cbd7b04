package tempering

import (
	"fmt"
	"math"
	"strings"
)

// Driver selects how the levels of the temperature ladder are combined.
// The zero value is PT, the default: with the other defaults of Settings
// (adapted HMC, 10 levels placed by the adaptive ladder, DEO swaps) it
// moved between the modes of a bimodal GP posterior where SPT did not; on
// a unimodal one SPT gave 2.5 times its effective draws per CPU-second
// (docs/ADAPTATION.md). The numeric values are not the paper's order; use
// the names (and String, ParseDriver) rather than the numbers.
type Driver int

const (
	// PT is parallel tempering with tempered full-data densities
	// log h_m = β_m·log p(X|θ) + log p(θ). It is the zero value, the
	// default.
	PT Driver = iota
	// None runs the inner kernel alone at level 0 (the full-data posterior).
	None
	// SPT is subsampled parallel tempering: log h_m = log p(X_m|θ) + log p(θ)
	// with recursive subsets X_M ⊂ … ⊂ X_1 ⊂ X_0 = X drawn once per chain.
	SPT
	// TT is Neal (1996)'s tempered transitions with the densities of PT.
	TT
	// STT is subsampled tempered transitions: the densities of SPT with fresh
	// recursive subsets drawn at every iteration.
	STT
)

var driverNames = [...]string{None: "none", PT: "pt", TT: "tt", SPT: "spt", STT: "stt"}

// String returns the driver's lower-case name ("none", "pt", "tt", "spt", "stt").
func (d Driver) String() string {
	if d < 0 || int(d) >= len(driverNames) {
		return fmt.Sprintf("Driver(%d)", int(d))
	}
	return driverNames[d]
}

// ParseDriver returns the Driver named s (case-insensitive: none, pt, tt, spt, stt).
func ParseDriver(s string) (Driver, error) {
	for i, n := range driverNames {
		if strings.EqualFold(s, n) {
			return Driver(i), nil
		}
	}
	return 0, fmt.Errorf("tempering: unknown driver %q (want none, pt, tt, spt or stt)", s)
}

// valid reports whether d is one of the named drivers.
func (d Driver) valid() bool { return d >= 0 && int(d) < len(driverNames) }

// tempered reports whether d uses a ladder of more than one level.
func (d Driver) tempered() bool { return d != None }

// subsampled reports whether d's levels condition on subsets of the data.
func (d Driver) subsampled() bool { return d == SPT || d == STT }

// swaps reports whether d is a parallel-tempering driver.
func (d Driver) swaps() bool { return d == PT || d == SPT }

// SwapSchedule selects which adjacent pairs of levels a PT or SPT iteration
// offers to swap. The zero value is DEO, the default; the paper's schedule
// is Sweep.
type SwapSchedule int

const (
	// DEO is the non-reversible deterministic even/odd schedule (Syed et al.
	// 2021), the zero value. Iterations are numbered from 0 (warm-up
	// included); iteration t offers every pair (m−1, m) with m−1 ≡ t
	// (mod 2), i.e. the pairs (0,1), (2,3), … at even t and (1,2), (3,4), …
	// at odd t. The pairs offered in one iteration are disjoint.
	DEO SwapSchedule = iota
	// Sweep offers the pairs (m, m−1) one after the other for m = M down to
	// 1, each swap seeing the result of the previous one (the paper's
	// schedule).
	Sweep
)

var scheduleNames = [...]string{Sweep: "sweep", DEO: "deo"}

// String returns the schedule's lower-case name ("sweep" or "deo").
func (s SwapSchedule) String() string {
	if s < 0 || int(s) >= len(scheduleNames) {
		return fmt.Sprintf("SwapSchedule(%d)", int(s))
	}
	return scheduleNames[s]
}

// ParseSwapSchedule returns the schedule named s (case-insensitive: sweep, deo).
func ParseSwapSchedule(s string) (SwapSchedule, error) {
	for i, n := range scheduleNames {
		if strings.EqualFold(s, n) {
			return SwapSchedule(i), nil
		}
	}
	return 0, fmt.Errorf("tempering: unknown swap schedule %q (want sweep or deo)", s)
}

// valid reports whether s is one of the named schedules.
func (s SwapSchedule) valid() bool { return s >= 0 && int(s) < len(scheduleNames) }

// Ladder returns the geometric ladder β_m = betaMin^{m/M} for m = 0..M, so
// that β_0 = 1 and β_M = betaMin. It returns an error unless M ≥ 1 and
// 0 < betaMin < 1.
func Ladder(M int, betaMin float64) ([]float64, error) {
	if M < 1 {
		return nil, fmt.Errorf("tempering: ladder needs M ≥ 1 levels above the target, got %d", M)
	}
	if !(betaMin > 0 && betaMin < 1) {
		return nil, fmt.Errorf("tempering: smallest inverse temperature β* must lie in (0,1), got %v", betaMin)
	}
	b := make([]float64, M+1)
	b[0] = 1
	for m := 1; m < M; m++ {
		b[m] = math.Pow(betaMin, float64(m)/float64(M))
	}
	b[M] = betaMin
	return b, nil
}

// checkBetas validates an explicit ladder.
func checkBetas(b []float64) error {
	if len(b) < 2 {
		return fmt.Errorf("tempering: explicit ladder needs at least 2 values (β_0 = 1 and one more), got %d", len(b))
	}
	if b[0] != 1 {
		return fmt.Errorf("tempering: explicit ladder must start at β_0 = 1, got %v", b[0])
	}
	for m := 1; m < len(b); m++ {
		if !(b[m] > 0 && b[m] <= 1) {
			return fmt.Errorf("tempering: β_%d = %v is not in (0,1]", m, b[m])
		}
		if !(b[m] < b[m-1]) {
			return fmt.Errorf("tempering: ladder must decrease strictly, but β_%d = %v ≥ β_%d = %v", m, b[m], m-1, b[m-1])
		}
	}
	return nil
}

// SubsetSizes returns the subset sizes N_m = max(1, round(β_m·n)) of a
// subsampled ladder over n observations (N_0 = n when β_0 = 1).
func SubsetSizes(betas []float64, n int) []int {
	s := make([]int, len(betas))
	for m, b := range betas {
		s[m] = max(1, int(math.Round(b*float64(n))))
		if s[m] > n {
			s[m] = n
		}
	}
	return s
}
