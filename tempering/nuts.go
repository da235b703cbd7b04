package tempering

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// NUTS is the No-U-Turn Sampler in Betancourt (2017)'s multinomial form, as
// Stan (2.22 and later) and BlackJAX run it: from a fresh momentum, the
// trajectory doubles in a random direction (forwards or backwards in time)
// until the generalized no-U-turn criterion fails across the whole
// trajectory, across any of its binary subtrees, or across the boundaries
// of adjacent subtrees (the extra checks added in Stan 2.22), until a
// divergence, or until MaxTreeDepth doublings. The sample is drawn from the
// trajectory with weights exp(−H): uniformly (multinomially) within each
// new subtree and by biased progressive sampling between the old
// trajectory and the new subtree. A subtree that U-turns inside or holds a
// divergence (energy error above MaxEnergyError, or a point of log density
// −∞) is discarded whole. With a fixed step size and metric the transition
// leaves the level's density invariant and is reversible, so it serves as
// the tempered transitions' T̂_m = Ť_m and as a PT or SPT level kernel.
//
// Warm-up adapts the step size (towards a mean acceptance statistic
// TargetAccept over the tree) and the metric exactly as for HMC; see HMC
// and Adaptation. Each leapfrog step is one evaluation with gradient,
// counted in LevelStats.EvalsGrad and LevelStats.LeapfrogSteps.
type NUTS struct {
	// StepSize is the leapfrog step ε (the starting point when adapting).
	// Zero means 0.01.
	StepSize float64
	// MaxTreeDepth is the largest number of doublings: at most
	// 2^MaxTreeDepth − 1 leapfrog steps per transition. Zero means 10.
	MaxTreeDepth int
	// MaxEnergyError is the divergence threshold. Zero means 1000.
	MaxEnergyError float64
	// Adapt says what warm-up tunes; the zero value tunes the step size
	// and a diagonal metric.
	Adapt Adaptation
	// TargetAccept is the mean acceptance statistic the step-size
	// adaptation aims at. Zero means 0.8.
	TargetAccept float64
}

var _ Kernel = NUTS{}

// NeedsGrad returns true: NUTS uses gradients.
func (NUTS) NeedsGrad() bool { return true }

// NewLevel returns the NUTS transition for a level, with its workspaces
// (a few states and vectors per tree depth) allocated up front.
func (k NUTS) NewLevel(dim int, beta float64) (LevelKernel, error) {
	depth := k.MaxTreeDepth
	if depth == 0 {
		depth = DefaultMaxTreeDepth
	}
	if depth < 1 || depth > 30 {
		return nil, fmt.Errorf("tempering: NUTS maximum tree depth must lie in [1,30], got %d", k.MaxTreeDepth)
	}
	eps, maxE, target, err := gradDefaults("NUTS", k.StepSize, k.MaxEnergyError, k.TargetAccept, k.Adapt, beta, dim)
	if err != nil {
		return nil, err
	}
	vec := func() []float64 { return make([]float64, dim) }
	l := &nutsLevel{
		ham:      newHam(dim, eps, k.Adapt, target),
		maxDepth: depth, maxE: maxE,
		fwd: NewState(dim), bck: NewState(dim), sample: NewState(dim), propose: NewState(dim),
		pF: vec(), pB: vec(), rho: vec(), rhoF: vec(), rhoB: vec(),
		pFF: vec(), pFB: vec(), pBF: vec(), pBB: vec(),
		sFF: vec(), sFB: vec(), sBF: vec(), sBB: vec(),
		work:   make([]nutsWork, depth),
		choice: nutsExact{},
	}
	for i := 1; i < depth; i++ {
		l.work[i] = nutsWork{
			propose:  NewState(dim),
			pInitEnd: vec(), sInitEnd: vec(), rhoInit: vec(),
			pFinalBeg: vec(), sFinalBeg: vec(), rhoFinal: vec(),
		}
	}
	return l, nil
}

type nutsLevel struct {
	ham
	maxDepth int
	maxE     float64

	// The trajectory's ends (positions with caches, momenta), the sample
	// and the new subtree's proposal.
	fwd, bck        *State
	pF, pB          []float64
	sample, propose *State
	// Momenta p and velocities ("sharp" momenta) M⁻¹p at the ends of the
	// forward and backward parts: pFB is the backward end of the forward
	// part, and so on; rho sums the momenta over the trajectory.
	pFF, pFB, pBF, pBB []float64
	sFF, sFB, sBF, sBB []float64
	rho, rhoF, rhoB    []float64
	work               []nutsWork // per subtree depth 1..maxDepth−1

	// The transition in progress.
	h0, lp0   float64 // H and log density at the start
	nLeap     int
	sumAccept float64
	divergent bool

	choice nutsChoice `ckpt:"-"` // nutsExact, but in broken variants that only tests build
}

// nutsWork is buildTree's workspace at one depth: the second half's
// proposal, and the inner ends and momentum sums of the two halves.
type nutsWork struct {
	propose                        *State
	proposeH                       float64
	pInitEnd, sInitEnd, rhoInit    []float64
	pFinalBeg, sFinalBeg, rhoFinal []float64
}

// nutsChoice is how NUTS weighs the trajectory's points and chooses its
// sample among them. nutsExact is the only implementation outside this
// package's tests, which substitute broken ones to show that the
// exactness tests catch them.
type nutsChoice interface {
	// moves reports whether the sample moves to a subtree's proposal, the
	// subtree of log weight logNew against logOld.
	moves(rng *rand.Rand, logNew, logOld float64) bool
	// logWeight returns a point's log weight, H0 − H, from the start's
	// and the point's energies h0, h and log densities lp0, lp.
	logWeight(h0, h, lp0, lp float64) float64
}

// nutsExact is NUTS' own choice: points weighed by exp(−H), a subtree's
// proposal taken with probability min(1, W_new/W_old).
type nutsExact struct{}

func (nutsExact) moves(rng *rand.Rand, logNew, logOld float64) bool {
	return logNew > logOld || rng.Float64() < math.Exp(logNew-logOld)
}

func (nutsExact) logWeight(h0, h, _, _ float64) float64 { return h0 - h }

func (l *nutsLevel) Step(rng *rand.Rand, d *Density, s *State) StepInfo {
	info := StepInfo{StepSize: l.eps, Energy: math.NaN()}
	if !ensureGrad(d, s) {
		info.Failed = true
		return info
	}
	l.beforeStep(rng, d, s)
	eps := l.eps
	info.StepSize = eps

	l.fwd.CopyFrom(s)
	l.bck.CopyFrom(s)
	l.h0 = -s.LogDensity + l.metric.drawMomentum(rng, l.pF, l.v)
	l.lp0 = s.LogDensity
	copy(l.pB, l.pF)
	for _, p := range [][]float64{l.pFF, l.pFB, l.pBF, l.pBB, l.rho} {
		copy(p, l.pF)
	}
	for _, v := range [][]float64{l.sFF, l.sFB, l.sBF, l.sBB} {
		copy(v, l.v)
	}
	l.nLeap, l.sumAccept, l.divergent = 0, 0, false
	logW := 0.0 // log Σ exp(H0 − H) over the trajectory so far
	sampleH, moved := l.h0, false
	depth := 0
	for depth < l.maxDepth {
		clear(l.rhoF)
		clear(l.rhoB)
		logWSub, proposeH := math.Inf(-1), 0.0
		var valid bool
		if rng.Float64() > 0.5 {
			// Forwards: the old trajectory becomes the backward part.
			copy(l.rhoB, l.rho)
			copy(l.pBF, l.pFF)
			copy(l.sBF, l.sFF)
			valid = l.buildTree(rng, d, depth, l.fwd, l.pF, eps, l.propose, &proposeH,
				l.sFB, l.sFF, l.rhoF, l.pFB, l.pFF, &logWSub)
		} else {
			copy(l.rhoF, l.rho)
			copy(l.pFB, l.pBB)
			copy(l.sFB, l.sBB)
			valid = l.buildTree(rng, d, depth, l.bck, l.pB, -eps, l.propose, &proposeH,
				l.sBF, l.sBB, l.rhoB, l.pBF, l.pBB, &logWSub)
		}
		if !valid {
			break
		}
		depth++
		// Biased progressive sampling: the new subtree's proposal with
		// probability min(1, W_new/W_old).
		if l.choice.moves(rng, logWSub, logW) {
			l.sample.CopyFrom(l.propose)
			sampleH, moved = proposeH, true
		}
		logW = logAddExp(logW, logWSub)
		for i := range l.rho {
			l.rho[i] = l.rhoB[i] + l.rhoF[i]
		}
		if !uturnFree(l.sBB, l.sFF, l.rho, nil) ||
			!uturnFree(l.sBB, l.sFB, l.rhoB, l.pFB) ||
			!uturnFree(l.sBF, l.sFF, l.rhoF, l.pBF) {
			break
		}
	}
	info.TreeDepth = depth
	info.MaxTreeDepth = depth == l.maxDepth
	info.Leapfrogs = l.nLeap
	info.Divergent = l.divergent
	info.AcceptProb, info.Energy = l.sumAccept/float64(l.nLeap), sampleH
	if moved {
		info.Accepted = true
		info.EnergyError = sampleH - l.h0
		l.sample.Replica = s.Replica
		s.CopyFrom(l.sample)
	}
	if l.ad.active {
		l.learn(rng, d, s, info.AcceptProb)
	}
	return info
}

// uturnFree is the generalized no-U-turn criterion between two ends with
// velocities a and b over momentum sum r (+ r2 if non-nil): a·r > 0 and
// b·r > 0.
func uturnFree(a, b, r, r2 []float64) bool {
	var da, db float64
	if r2 == nil {
		for i, x := range r {
			da += a[i] * x
			db += b[i] * x
		}
	} else {
		for i, x := range r {
			x += r2[i]
			da += a[i] * x
			db += b[i] * x
		}
	}
	return da > 0 && db > 0
}

// buildTree extends the trajectory end z (momentum p) by 2^depth leapfrog
// steps of size eps (negative: backwards in time). It leaves in propose
// (with its energy in *proposeH) a point drawn from the new steps with
// weights exp(−H), writes the velocities and momenta at the subtree's first
// and last points into sBeg, sEnd, pBeg, pEnd, adds the subtree's momenta
// to rho and log Σ exp(H0 − H) over it to *logW. It reports false if the
// subtree holds a divergence or a U-turn (the subtree is then discarded).
func (l *nutsLevel) buildTree(rng *rand.Rand, d *Density, depth int, z *State, p []float64, eps float64,
	propose *State, proposeH *float64, sBeg, sEnd, rho, pBeg, pEnd []float64, logW *float64) bool {
	if depth == 0 {
		d.Grad(z, l.g)
		h := math.Inf(1)
		copy(l.p, p)
		if l.leapfrog(d, z, eps) {
			h = -z.LogDensity + l.metric.kinetic(l.p, l.v)
		}
		copy(p, l.p)
		l.nLeap++
		if math.IsNaN(h) {
			h = math.Inf(1)
		}
		if h-l.h0 > l.maxE {
			l.divergent = true
		}
		lw := l.choice.logWeight(l.h0, h, l.lp0, z.LogDensity)
		*logW = logAddExp(*logW, lw)
		l.sumAccept += math.Exp(min(0, l.h0-h))
		propose.CopyFrom(z)
		*proposeH = h
		for i, x := range p {
			rho[i] += x
		}
		copy(pBeg, p)
		copy(pEnd, p)
		copy(sBeg, l.v)
		copy(sEnd, l.v)
		return !l.divergent
	}
	w := &l.work[depth]
	clear(w.rhoInit)
	logWInit := math.Inf(-1)
	if !l.buildTree(rng, d, depth-1, z, p, eps, propose, proposeH, sBeg, w.sInitEnd, w.rhoInit, pBeg, w.pInitEnd, &logWInit) {
		return false
	}
	clear(w.rhoFinal)
	logWFinal := math.Inf(-1)
	if !l.buildTree(rng, d, depth-1, z, p, eps, w.propose, &w.proposeH, w.sFinalBeg, sEnd, w.rhoFinal, w.pFinalBeg, pEnd, &logWFinal) {
		return false
	}
	// Uniform (multinomial) choice between the halves: the second half's
	// proposal with probability W_final/(W_init + W_final).
	logWSub := logAddExp(logWInit, logWFinal)
	*logW = logAddExp(*logW, logWSub)
	if l.choice.moves(rng, logWFinal, logWSub) {
		propose.CopyFrom(w.propose)
		*proposeH = w.proposeH
	}
	for i := range rho {
		rho[i] += w.rhoInit[i] + w.rhoFinal[i]
	}
	// The criterion over the subtree, then across the halves' boundary:
	// the first half with the second's first point, the second half with
	// the first's last point.
	return uturnFree(sBeg, sEnd, w.rhoInit, w.rhoFinal) &&
		uturnFree(sBeg, w.sFinalBeg, w.rhoInit, w.pFinalBeg) &&
		uturnFree(w.sInitEnd, sEnd, w.rhoFinal, w.pInitEnd)
}

// logAddExp returns log(exp(a) + exp(b)).
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}
