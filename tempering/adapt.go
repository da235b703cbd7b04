package tempering

import (
	"fmt"
	"math"
	"strings"
)

// Adaptation selects what a gradient kernel (HMC, NUTS) tunes at each level
// during warm-up, in Stan's windowed scheme. Nothing adapts without
// warm-up (Settings.Warmup = NoWarmup), and everything is frozen at the end of
// warm-up, so that the draws come from fixed, exact kernels.
//
// The zero value, AdaptDiag, tunes the step size and a diagonal metric.
type Adaptation int

const (
	// AdaptDiag tunes the step size by dual averaging and the diagonal of
	// the inverse metric from the level's warm-up states (the default).
	AdaptDiag Adaptation = iota
	// AdaptDense tunes the step size and a dense inverse metric (the
	// regularised covariance of the level's warm-up states). Each leapfrog
	// step then costs O(D²) besides the evaluation.
	AdaptDense
	// AdaptStep tunes the step size only, by dual averaging over the whole
	// warm-up, with the identity metric (or the one set by SetTuning).
	AdaptStep
	// AdaptNone adapts nothing: the step size and metric stay as given
	// (the paper's fixed ε).
	AdaptNone
)

var adaptationNames = [...]string{"diag", "dense", "step", "none"}

// String returns the adaptation's name: diag, dense, step or none.
func (a Adaptation) String() string {
	if a >= 0 && int(a) < len(adaptationNames) {
		return adaptationNames[a]
	}
	return fmt.Sprintf("Adaptation(%d)", int(a))
}

// ParseAdaptation parses an adaptation's name (diag, dense, step, none;
// case-insensitive).
func ParseAdaptation(s string) (Adaptation, error) {
	for i, n := range adaptationNames {
		if strings.EqualFold(s, n) {
			return Adaptation(i), nil
		}
	}
	return 0, fmt.Errorf("tempering: unknown adaptation %q (want diag, dense, step or none)", s)
}

func (a Adaptation) valid() bool { return a >= AdaptDiag && a <= AdaptNone }

// metricAdapts reports whether a adapts a metric.
func (a Adaptation) metricAdapts() bool { return a == AdaptDiag || a == AdaptDense }

// Stan's warm-up constants: dual averaging (Hoffman & Gelman 2014, §3.2.1)
// and the windows of its windowed adaptation.
const (
	daGamma = 0.05
	daT0    = 10.0
	daKappa = 0.75

	winInit = 75 // initial fast window
	winTerm = 50 // terminal fast window
	winBase = 25 // first slow window; the following ones double

	// Below this many warm-up transitions no metric is estimated (Stan's
	// rule); the step size still adapts.
	winMinWarmup = 20
)

// dualAvg is dual averaging of log ε towards an acceptance statistic δ
// (Stan's stepsize_adaptation).
type dualAvg struct {
	delta      float64 // target acceptance
	mu         float64 // shrinkage point, log(10·ε0)
	sbar, xbar float64 // averaged error and averaged log ε
	t          int
}

// restart starts dual averaging afresh from step size eps.
func (a *dualAvg) restart(eps float64) {
	a.mu = math.Log(10 * eps)
	a.sbar, a.xbar, a.t = 0, 0, 0
}

// learn performs one dual-averaging step with acceptance statistic stat
// and returns the next step size.
func (a *dualAvg) learn(stat float64) float64 {
	if !(stat <= 1) { // NaN counts as a failure
		if math.IsNaN(stat) {
			stat = 0
		} else {
			stat = 1
		}
	}
	a.t++
	t := float64(a.t)
	eta := 1 / (t + daT0)
	a.sbar = (1-eta)*a.sbar + eta*(a.delta-stat)
	x := a.mu - a.sbar*math.Sqrt(t)/daGamma
	xeta := math.Pow(t, -daKappa)
	a.xbar = (1-xeta)*a.xbar + xeta*x
	return clampStep(math.Exp(x))
}

// final returns the averaged step size exp(x̄) that sampling keeps.
func (a *dualAvg) final() float64 { return clampStep(math.Exp(a.xbar)) }

// clampStep keeps a step size in a range where leapfrog arithmetic means
// something, [1e-12, 1e7] (Stan's init_stepsize gives up beyond 1e7).
func clampStep(eps float64) float64 {
	switch {
	case math.IsNaN(eps) || eps < 1e-12:
		return 1e-12
	case eps > 1e7:
		return 1e7
	}
	return eps
}

// windows is Stan's windowed_adaptation schedule over n warm-up
// transitions: an initial fast window of init transitions (step size
// only), slow windows of base, 2·base, … transitions, the last one
// stretched to end where the terminal fast window of term transitions
// starts, at n − term. When init + base + term > n, the windows are 15%,
// 75% and 10% of n; below winMinWarmup transitions there is no slow window.
type windows struct {
	n, init, term, base int
	counter             int // transitions seen since begin
	size, next          int // current slow window's size and last transition
	on                  bool
}

func (w *windows) begin(n int) {
	*w = windows{n: n}
	if n < winMinWarmup {
		return
	}
	w.on = true
	if winInit+winBase+winTerm > n {
		w.init = int(0.15 * float64(n))
		w.term = int(0.1 * float64(n))
		w.base = n - (w.init + w.term)
	} else {
		w.init, w.term, w.base = winInit, winTerm, winBase
	}
	w.size = w.base
	w.next = w.init + w.base - 1
}

// inSlow reports whether the current transition belongs to a slow window.
func (w *windows) inSlow() bool {
	return w.on && w.counter >= w.init && w.counter < w.n-w.term
}

// endSlow reports whether the current transition ends a slow window.
func (w *windows) endSlow() bool { return w.on && w.counter == w.next && w.counter < w.n-w.term }

// advance plans the next slow window (at the end of one): double the size,
// and stretch it to the terminal window if the one after would not fit.
func (w *windows) advance() {
	last := w.n - w.term - 1
	if w.next == last {
		return
	}
	w.size *= 2
	w.next = w.counter + w.size
	if w.next != last && w.next+2*w.size >= w.n-w.term {
		w.next = last
	}
}

// slowWindows returns the slow windows' sizes that the schedule over n
// transitions makes, with the initial and terminal fast windows' sizes.
func slowWindows(n int) (init int, slow []int, term int) {
	var w windows
	w.begin(n)
	start := -1
	for ; w.counter < n; w.counter++ {
		if w.inSlow() && start < 0 {
			start = w.counter
		}
		if w.endSlow() {
			slow = append(slow, w.counter-start+1)
			start = -1
			w.advance()
		}
	}
	return w.init, slow, w.term
}

// welford accumulates the mean and the sum of squared deviations (diagonal)
// or of cross products (dense, row-major) of the states in a slow window.
type welford struct {
	dense bool
	n     int
	mean  []float64
	m2    []float64 // D (diag) or D×D (dense)
	delta []float64
}

func newWelford(dim int, dense bool) welford {
	w := welford{dense: dense, mean: make([]float64, dim), delta: make([]float64, dim)}
	if dense {
		w.m2 = make([]float64, dim*dim)
	} else {
		w.m2 = make([]float64, dim)
	}
	return w
}

func (w *welford) reset() {
	w.n = 0
	clear(w.mean)
	clear(w.m2)
}

func (w *welford) add(x []float64) {
	w.n++
	inv := 1 / float64(w.n)
	for i, v := range x {
		w.delta[i] = v - w.mean[i]
		w.mean[i] += w.delta[i] * inv
	}
	if !w.dense {
		for i, v := range x {
			w.m2[i] += w.delta[i] * (v - w.mean[i])
		}
		return
	}
	D := len(x)
	for i := range D {
		di := w.delta[i]
		row := w.m2[i*D : (i+1)*D]
		for j, v := range x {
			row[j] += di * (v - w.mean[j])
		}
	}
}

// regularised writes Stan's regularised estimate (n/(n+5))·Σ̂ +
// 1e-3·(5/(n+5))·I into dst (len D or D×D), Σ̂ the sample (co)variance.
func (w *welford) regularised(dst []float64) {
	n := float64(w.n)
	a, b := n/(n+5)/(n-1), 1e-3*5/(n+5)
	for i, v := range w.m2 {
		dst[i] = a * v
	}
	D := len(w.mean)
	for i := range D {
		if w.dense {
			dst[i*D+i] += b
		} else {
			dst[i] += b
		}
	}
}

// adapter is one level kernel's warm-up adaptation: dual averaging of the
// step size over the whole warm-up, restarted after each metric update,
// and (AdaptDiag, AdaptDense) a metric from each slow window's states.
// It allocates only when built.
type adapter struct {
	kind     Adaptation
	active   bool
	da       dualAvg
	win      windows
	est      welford
	needInit bool // find a reasonable step size before the next transition
}

func newAdapter(kind Adaptation, dim int, delta float64) adapter {
	a := adapter{kind: kind, da: dualAvg{delta: delta}}
	if kind.metricAdapts() {
		a.est = newWelford(dim, kind == AdaptDense)
	}
	return a
}

// begin starts (or restarts) adaptation over the next n transitions from
// step size eps. n ≤ 0 or AdaptNone: nothing adapts.
func (a *adapter) begin(n int, eps float64) {
	a.active = n > 0 && a.kind != AdaptNone
	if !a.active {
		return
	}
	a.da.restart(eps)
	a.needInit = true
	a.win = windows{}
	if a.kind.metricAdapts() {
		a.win.begin(n)
		a.est.reset()
	}
}

// learn records a transition that ended at u with acceptance statistic
// stat. It returns the next step size and, at the end of a slow window,
// true after writing the new regularised inverse metric into inv (len D
// for a diagonal metric, D×D for a dense one). The caller must then
// re-initialise the step size and call restart.
func (a *adapter) learn(stat float64, u []float64, inv []float64) (eps float64, update bool) {
	eps = a.da.learn(stat)
	w := &a.win
	if w.inSlow() {
		a.est.add(u)
	}
	if w.endSlow() {
		w.advance()
		a.est.regularised(inv)
		a.est.reset()
		update = true
	}
	w.counter++
	return eps, update
}

// end stops adaptation and returns the step size to keep: exp(x̄), or eps
// if no transition was learnt from.
func (a *adapter) end(eps float64) float64 {
	if a.active && a.da.t > 0 {
		eps = a.da.final()
	}
	a.active, a.needInit = false, false
	return eps
}
