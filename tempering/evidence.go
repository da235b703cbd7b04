package tempering

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/subtemper/subtemper/diag"
)

// PriorSampler is an optional interface: a Target that implements it can
// draw exactly from its prior. The evidence's leg from the prior to the
// hottest level (Settings.Evidence) needs it.
type PriorSampler interface {
	// SamplePrior writes a draw from the prior, in the sampling space,
	// into u (len Dim), using rng for its randomness.
	SamplePrior(rng *rand.Rand, u []float64)
}

// EvidenceSettings configures the estimate of the log evidence
// log Z = log ∫ p(y|θ) p(θ) dθ that Run makes when Settings.Evidence is
// set (PT and SPT only). Zero fields take the documented defaults.
//
// The estimate is a telescoping product along the ladder. For every
// adjacent pair of levels, the swaps that the sampler offers anyway give,
// at no extra evaluation, the ratio of the two levels' unnormalised
// densities at each of the two states: Z_{m−1}/Z_m = E_{h_m}[h_{m−1}/h_m]
// (forward) and Z_m/Z_{m−1} = E_{h_{m−1}}[h_m/h_{m−1}] (backward), as
// Pigeons.jl's stepping stone does. For PT, h_{m−1}/h_m = p(y|θ)^{β_{m−1}−β_m};
// for SPT, with nested subsets X_M ⊂ … ⊂ X_0, it is the conditional
// density p(y_{X_{m−1}∖X_m} | y_{X_m}, θ), so each stage's term is the
// log predictive density of the observations added at that stage given
// those of the hotter level: the prequential decomposition
// log p(y) = log p(y_{X_M}) + Σ_m log p(y_{X_{m−1}∖X_m} | y_{X_m}). The
// ladder stops above β = 0; the leg from the prior (Z = 1) to the hottest
// level is annealed importance sampling (Neal 2001): Particles independent
// particles drawn from the prior (PriorSampler) move through Temperatures
// intermediate densities p(θ)·L_M(θ)^{t} between the prior and the hottest
// level, t_k = (k/K)^4, with MHSteps random-walk Metropolis moves each.
type EvidenceSettings struct {
	// Particles is the number of independent AIS particles per chain.
	// Zero means 128.
	Particles int
	// Temperatures is the number K of intermediate densities of the leg.
	// Zero means 100.
	Temperatures int
	// MHSteps is the number of random-walk Metropolis moves per particle
	// and temperature. Zero means 2.
	MHSteps int
}

// resolve returns e with defaults applied.
func (e EvidenceSettings) resolve() (EvidenceSettings, error) {
	if e.Particles < 0 || e.Temperatures < 0 || e.MHSteps < 0 {
		return e, fmt.Errorf("tempering: evidence settings must be ≥ 0, got %d particles, %d temperatures, %d MH steps", e.Particles, e.Temperatures, e.MHSteps)
	}
	if e.Particles == 0 {
		e.Particles = 128
	}
	if e.Temperatures == 0 {
		e.Temperatures = 100
	}
	if e.MHSteps == 0 {
		e.MHSteps = 2
	}
	return e, nil
}

// Evidence is an estimate of the log evidence log Z = log p(y) (Run with
// Settings.Evidence), the mean of the chains' estimates. Standard errors
// combine each chain's stage errors as if independent (each from the
// effective sample size of its terms, diag.MCSEMean) and then the chains'.
type Evidence struct {
	// LogZ is the forward estimate and SE its standard error;
	// Backward and BackwardSE the backward one (see EvidenceSettings).
	// Forward is biased low and backward high by Jensen's inequality:
	// a gap between them of more than a few standard errors says the
	// ladder is too coarse or the run too short.
	LogZ, SE             float64
	Backward, BackwardSE float64
	// ChainSD is the standard deviation of the chains' forward
	// estimates: near SE·√C if the standard errors are right.
	ChainSD float64
	// Leg is the leg from the prior to the hottest level (log Z_M), and
	// Stages[m−1] the stage between levels m−1 and m, log Z_{m−1}/Z_m,
	// so that LogZ = Leg.LogZ + Σ Stages[·].Forward.
	Leg    EvidenceLeg
	Stages []EvidenceStage
	// Chains holds each chain's own estimate.
	Chains []ChainEvidence
}

// EvidenceStage is the stage between levels m−1 and m: log Z_{m−1}/Z_m.
// For SPT it is log p(y_{X_{m−1}∖X_m} | y_{X_m}), the log predictive
// density of the SizeColder − Size observations added at the stage given
// the Size of level m.
type EvidenceStage struct {
	// Beta and Size are level m's β and subset size, BetaColder and
	// SizeColder level m−1's.
	Beta, BetaColder float64
	Size, SizeColder int
	// Forward and ForwardSE estimate log Z_{m−1}/Z_m from level m's
	// states, Backward and BackwardSE from level m−1's.
	Forward, ForwardSE   float64
	Backward, BackwardSE float64
	// Terms is the number of swap terms each estimate used (summed over
	// chains in Evidence.Stages).
	Terms int
}

// EvidenceLeg is the annealed importance sampling from the prior to the
// hottest level: LogZ estimates log Z_M, with standard error SE (delta
// method over independent particles) and ESS the particles' effective
// sample size (Σw)²/Σw². Its evaluations are counted in Evals only, not
// in the levels' LevelStats (they come after sampling).
type EvidenceLeg struct {
	LogZ, SE, ESS float64
	// Particles, Temperatures and Evals: the leg's size and its number of
	// log-likelihood evaluations at the hottest level's subset.
	Particles, Temperatures int
	Evals                   int64
}

// ChainEvidence is one chain's estimate: a leg and the stages.
type ChainEvidence struct {
	Leg    EvidenceLeg
	Stages []EvidenceStage
	// StagesSE and StagesBackwardSE are the standard errors of the sum
	// of the stages' forward and backward estimates, with the
	// correlations between stages (a state's terms at neighbouring
	// pairs, successive iterations) counted: the delta method's linear
	// term of the sum as one series over the sampling iterations, its
	// Monte Carlo error from its effective sample size. Zero means
	// unknown: the stages' errors are then added in quadrature.
	StagesSE, StagesBackwardSE float64
}

// Forward returns the chain's forward estimate of log Z and its standard
// error.
func (c *ChainEvidence) Forward() (logZ, se float64) {
	return c.total(func(s EvidenceStage) (float64, float64) { return s.Forward, s.ForwardSE }, c.StagesSE)
}

// BackwardEstimate returns the chain's backward estimate of log Z and its
// standard error.
func (c *ChainEvidence) BackwardEstimate() (logZ, se float64) {
	return c.total(func(s EvidenceStage) (float64, float64) { return s.Backward, s.BackwardSE }, c.StagesBackwardSE)
}

// total adds the leg and the stages' terms (pick gives a stage's term and
// its standard error); the stages' error is joint when positive, else
// theirs added in quadrature.
func (c *ChainEvidence) total(pick func(EvidenceStage) (float64, float64), joint float64) (logZ, se float64) {
	logZ = c.Leg.LogZ
	var vs float64
	for _, s := range c.Stages {
		x, e := pick(s)
		logZ += x
		vs += e * e
	}
	if joint > 0 {
		vs = joint * joint
	}
	return logZ, math.Sqrt(c.Leg.SE*c.Leg.SE + vs)
}

// CombineEvidence returns the estimate of the chains' estimates: their
// mean, with standard error √(Σ_c se_c²)/C, and per stage the same. Every
// chain must have the same number of stages.
func CombineEvidence(chains []ChainEvidence) (*Evidence, error) {
	C := len(chains)
	if C == 0 {
		return nil, errors.New("tempering: evidence: no chain estimates")
	}
	M := len(chains[0].Stages)
	e := &Evidence{Stages: make([]EvidenceStage, M), Chains: chains}
	fwd := make([]float64, C)
	var vf, vb, legV float64
	for c := range chains {
		ch := &chains[c]
		if len(ch.Stages) != M {
			return nil, fmt.Errorf("tempering: evidence: chain %d has %d stages, chain 0 %d", c, len(ch.Stages), M)
		}
		f, sf := ch.Forward()
		b, sb := ch.BackwardEstimate()
		fwd[c] = f
		e.LogZ += f / float64(C)
		e.Backward += b / float64(C)
		vf += sf * sf
		vb += sb * sb
		e.Leg.LogZ += ch.Leg.LogZ / float64(C)
		legV += ch.Leg.SE * ch.Leg.SE
		e.Leg.ESS += ch.Leg.ESS
		e.Leg.Particles += ch.Leg.Particles
		e.Leg.Evals += ch.Leg.Evals
		e.Leg.Temperatures = ch.Leg.Temperatures
		for m, s := range ch.Stages {
			t := &e.Stages[m]
			t.Beta, t.BetaColder, t.Size, t.SizeColder = s.Beta, s.BetaColder, s.Size, s.SizeColder
			t.Forward += s.Forward / float64(C)
			t.Backward += s.Backward / float64(C)
			t.ForwardSE += s.ForwardSE * s.ForwardSE
			t.BackwardSE += s.BackwardSE * s.BackwardSE
			t.Terms += s.Terms
		}
	}
	n := float64(C)
	e.SE, e.BackwardSE = math.Sqrt(vf)/n, math.Sqrt(vb)/n
	e.Leg.SE = math.Sqrt(legV) / n
	for m := range e.Stages {
		t := &e.Stages[m]
		t.ForwardSE, t.BackwardSE = math.Sqrt(t.ForwardSE)/n, math.Sqrt(t.BackwardSE)/n
	}
	if C > 1 {
		e.ChainSD = diag.SD(fwd)
	}
	return e, nil
}

// evidenceRec holds what a chain records for the evidence during
// sampling: per adjacent pair m (index m−1), the log ratios of the swaps
// offered, fwd = log h_{m−1}(θ_m) − log h_m(θ_m) and bwd = log h_m(θ_{m−1})
// − log h_{m−1}(θ_{m−1}); and the running mean and variance of the hottest
// level's states (Welford), which scale the leg's proposals.
type evidenceRec struct {
	fwd, bwd [][]float64
	it       [][]int32 // the sampling iteration of each term
	n        int       // sampling iterations so far
	mean, m2 []float64
}

func newEvidenceRec(levels, dim int) *evidenceRec {
	return &evidenceRec{
		fwd: make([][]float64, levels-1), bwd: make([][]float64, levels-1), it: make([][]int32, levels-1),
		mean: make([]float64, dim), m2: make([]float64, dim),
	}
}

// addHot adds the hottest level's state u to the running moments.
func (r *evidenceRec) addHot(u []float64) {
	r.n++
	for i, x := range u {
		d := x - r.mean[i]
		r.mean[i] += d / float64(r.n)
		r.m2[i] += d * (x - r.mean[i])
	}
}

// logMeanExp returns log((1/n) Σ exp(x_i)) and the standard error of that
// log from the effective sample size of exp(x_i − max x) as a chain.
func logMeanExp(x []float64) (lme, se float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	mx := math.Inf(-1)
	for _, v := range x {
		mx = max(mx, v)
	}
	if math.IsInf(mx, -1) {
		return mx, math.NaN()
	}
	e := make([]float64, len(x))
	var s float64
	for i, v := range x {
		e[i] = math.Exp(v - mx)
		s += e[i]
	}
	mean := s / float64(len(x))
	lme = mx + math.Log(mean)
	mcse := diag.MCSEMean([][]float64{e})
	if diag.SD(e) == 0 {
		mcse = 0
	}
	return lme, mcse / mean
}

// evidenceStages returns the chain's stage estimates from its records.
func (c *Chain) evidenceStages() []EvidenceStage {
	r := c.ev
	out := make([]EvidenceStage, len(r.fwd))
	for i := range out {
		m := i + 1
		f, sf := logMeanExp(r.fwd[i])
		b, sb := logMeanExp(r.bwd[i])
		out[i] = EvidenceStage{
			Beta: c.betas[m], BetaColder: c.betas[m-1], Size: c.sizes[m], SizeColder: c.sizes[m-1],
			Forward: f, ForwardSE: sf, Backward: -b, BackwardSE: sb, Terms: len(r.fwd[i]),
		}
	}
	return out
}

// evidenceLeg runs the annealed importance sampling from the prior to the
// chain's hottest level with rng (a stream of its own, so that the
// chain's draws do not depend on whether the evidence is estimated). It
// gives up, returning errEvidenceCut, once the chain is told to stop
// (StopOn): its P·K·2 evaluations of the hottest level can take minutes.
func (c *Chain) evidenceLeg(rng *rand.Rand, es EvidenceSettings, ps PriorSampler) (EvidenceLeg, error) {
	t := c.target
	M := len(c.betas) - 1
	hot := &c.dens[M]
	gamma := hot.beta
	subset := hot.subset
	dim := t.Dim()
	P, K := es.Particles, es.Temperatures
	leg := EvidenceLeg{Particles: P, Temperatures: K}
	loglik := func(u []float64) float64 {
		leg.Evals++
		ll, err := t.LogLik(subset, u, nil)
		if err != nil || !validLog(ll) {
			return math.Inf(-1)
		}
		return ll
	}
	prec0, precL := c.legPrecisions(rng, ps, dim)
	scale := make([]float64, dim)
	setScale := func(tk float64) {
		for i := range scale {
			scale[i] = 2.38 / math.Sqrt(float64(dim)) / math.Sqrt(prec0[i]+tk*precL[i])
		}
	}
	parts := make([]legParticle, P)
	logw := make([]float64, P)
	prop := make([]float64, dim)
	for p := range parts {
		if c.halt.stopped() {
			return leg, errEvidenceCut
		}
		q := &parts[p]
		q.u = make([]float64, dim)
		ps.SamplePrior(rng, q.u)
		q.lp = t.LogPrior(q.u, nil)
		q.ll = loglik(q.u)
	}
	tPrev := 0.0
	for k := 1; k <= K; k++ {
		x := float64(k) / float64(K)
		tk := x * x * x * x
		setScale(tk)
		g := gamma * tk
		dg := gamma * (tk - tPrev)
		for p := range parts {
			if c.halt.stopped() {
				return leg, errEvidenceCut
			}
			q := &parts[p]
			if math.IsInf(logw[p], -1) {
				continue
			}
			if math.IsInf(q.ll, -1) {
				logw[p] = math.Inf(-1)
				continue
			}
			logw[p] += dg * q.ll
			if k == K {
				continue // the last density's moves change no weight
			}
			for range es.MHSteps {
				q.move(rng, t, g, scale, prop, loglik)
			}
		}
		tPrev = tk
	}
	leg.estimate(logw)
	return leg, nil
}

// legParticle is a particle of the evidence's leg: its state u, the log
// prior lp and the log-likelihood ll there.
type legParticle struct {
	u      []float64
	lp, ll float64
}

// legPrecisions returns the leg's proposal precisions at t = 0 (prec0, the
// prior's, from a pilot of prior draws with rng) and their growth to
// t = 1 (precL, from the hottest level's states while sampling): the
// precision at t is prec0 + t·precL, linear in t, as a Gaussian prior's
// and likelihood's would be.
func (c *Chain) legPrecisions(rng *rand.Rand, ps PriorSampler, dim int) (prec0, precL []float64) {
	pilot := 256
	var pm, pv = make([]float64, dim), make([]float64, dim)
	u := make([]float64, dim)
	for k := 1; k <= pilot; k++ {
		ps.SamplePrior(rng, u)
		for i, x := range u {
			d := x - pm[i]
			pm[i] += d / float64(k)
			pv[i] += d * (x - pm[i])
		}
	}
	prec0 = make([]float64, dim)
	precL = make([]float64, dim)
	for i := range dim {
		v0 := pv[i] / float64(pilot-1)
		prec0[i] = 1 / v0
		if c.ev.n > 1 {
			vM := c.ev.m2[i] / float64(c.ev.n-1)
			precL[i] = max(0, 1/vM-prec0[i])
		}
	}
	return prec0, precL
}

// move makes one random-walk Metropolis step of q, with proposal scales
// scale (prop its scratch), on the density p(u)·L(u)^g of t.
func (q *legParticle) move(rng *rand.Rand, t Target, g float64, scale, prop []float64, loglik func([]float64) float64) {
	for i := range prop {
		prop[i] = q.u[i] + scale[i]*rng.NormFloat64()
	}
	lp := t.LogPrior(prop, nil)
	if !validLog(lp) {
		return
	}
	ll := loglik(prop)
	if math.IsInf(ll, -1) {
		return
	}
	logA := lp + g*ll - q.lp - g*q.ll
	if logA >= 0 || math.Log(rng.Float64()) < logA {
		copy(q.u, prop)
		q.lp, q.ll = lp, ll
	}
}

// estimate sets leg's LogZ, SE and ESS from the particles' log weights
// (LogZ −∞ and SE NaN when no weight is positive).
func (leg *EvidenceLeg) estimate(logw []float64) {
	P := len(logw)
	mx := math.Inf(-1)
	for _, w := range logw {
		mx = max(mx, w)
	}
	if math.IsInf(mx, -1) {
		leg.LogZ, leg.SE = math.Inf(-1), math.NaN()
		return
	}
	w := make([]float64, P)
	var s, s2 float64
	for p, lw := range logw {
		w[p] = math.Exp(lw - mx)
		s += w[p]
		s2 += w[p] * w[p]
	}
	mean := s / float64(P)
	leg.LogZ = mx + math.Log(mean)
	leg.SE = diag.SD(w) / math.Sqrt(float64(P)) / mean
	leg.ESS = s * s / s2
}

// errEvidenceCut is evidenceLeg's error when the chain was told to stop.
var errEvidenceCut = errors.New("tempering: evidence: interrupted")

// chainEvidence returns the chain's estimate of the log evidence: its
// stages from the swaps recorded during sampling and its leg.
func (c *Chain) chainEvidence(rng *rand.Rand, es EvidenceSettings) (ChainEvidence, error) {
	if c.ev == nil {
		return ChainEvidence{}, errors.New("tempering: evidence: the chain recorded no swaps (no sampling iteration)")
	}
	ps, ok := c.target.(PriorSampler)
	if !ok {
		return ChainEvidence{}, errors.New("tempering: evidence: the target cannot sample its prior (PriorSampler)")
	}
	leg, err := c.evidenceLeg(rng, es, ps)
	if err != nil {
		return ChainEvidence{}, err
	}
	return ChainEvidence{
		Stages: c.evidenceStages(), Leg: leg,
		StagesSE: jointSE(c.ev.fwd, c.ev.it, c.ev.n), StagesBackwardSE: jointSE(c.ev.bwd, c.ev.it, c.ev.n),
	}, nil
}

// evidenceRand returns chain c's random stream for the evidence's leg,
// apart from its sampling stream.
func evidenceRand(seed uint64, c int) *rand.Rand {
	return rand.New(rand.NewPCG(seed^0x9e3779b97f4a7c15, uint64(c)+1<<40))
}

// jointSE returns the standard error of Σ_m log mean_k exp(x[m][k]), the
// terms x[m][k] made at sampling iteration it[m][k] of T: to first order
// the sum is mean_t w_t + const with w_t = Σ_{m,k: it[m][k] = t}
// (T/T_m)·(e_{m,k}/ē_m − 1), e = exp(x − max_m x), T_m the number of
// terms of pair m; its error is diag.MCSEMean of the series w. It returns
// 0 when that is not finite (too few iterations, constant terms).
func jointSE(x [][]float64, it [][]int32, T int) float64 {
	if T < 8 {
		return 0
	}
	w := make([]float64, T)
	for m, xm := range x {
		if len(xm) == 0 {
			return 0
		}
		mx := math.Inf(-1)
		for _, v := range xm {
			mx = max(mx, v)
		}
		if math.IsInf(mx, 0) {
			return 0
		}
		var s float64
		for _, v := range xm {
			s += math.Exp(v - mx)
		}
		mean := s / float64(len(xm))
		scale := float64(T) / float64(len(xm))
		for k, v := range xm {
			w[it[m][k]] += scale * (math.Exp(v-mx)/mean - 1)
		}
	}
	se := diag.MCSEMean([][]float64{w})
	if math.IsNaN(se) || math.IsInf(se, 0) {
		return 0
	}
	return se
}
