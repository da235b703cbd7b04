package gp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/subtemper/subtemper/internal/gradcheck"
)

func TestLogPriorAgainstDistributions(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, p := range []Prior{{}, {LengthMedian: 2, LengthSigma: 0.5, SignalShape: 1.5, SignalRate: 3, NoiseShape: 5, NoiseRate: 0.5}} {
		q, err := p.WithDefaults()
		if err != nil {
			t.Fatal(err)
		}
		// log p_u(u) = log p_θ(exp u) + Σ u, with gonum's densities.
		ln := distuv.LogNormal{Mu: q.Mu0(), Sigma: q.LengthSigma}
		checkLogPrior(t, rng, p, q, 1, func(u float64) float64 { return ln.LogProb(math.Exp(u)) + u })
	}
}

// checkLogPrior compares p.LogDensity at 20 random u (each coordinate
// N(0, uScale²), 1–4 inputs) with the sum of ellLogProb over the length
// scales and gonum's Gamma densities of σf and σn (q is p with its
// defaults), and its gradient with finite differences.
func checkLogPrior(t *testing.T, rng *rand.Rand, p, q Prior, uScale float64, ellLogProb func(u float64) float64) {
	t.Helper()
	for trial := 0; trial < 20; trial++ {
		d := 1 + rng.IntN(4)
		u := make([]float64, d+2)
		for k := range u {
			u[k] = uScale * rng.NormFloat64()
		}
		want := 0.0
		for c := 0; c < d; c++ {
			want += ellLogProb(u[c])
		}
		want += distuv.Gamma{Alpha: q.SignalShape, Beta: q.SignalRate}.LogProb(math.Exp(u[d])) + u[d]
		want += distuv.Gamma{Alpha: q.NoiseShape, Beta: q.NoiseRate}.LogProb(math.Exp(u[d+1])) + u[d+1]
		grad := make([]float64, d+2)
		got := p.LogDensity(u, grad)
		if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("prior %+v at %v: %v, want %v", p, u, got, want)
		}
		fd := gradcheck.FD(func(v []float64) float64 { return p.LogDensity(v, nil) }, u, 1e-5)
		gradcheck.Check(t, "log prior", grad, fd, 1e-6)
	}
}

func TestPriorDefaults(t *testing.T) {
	q, err := Prior{}.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(q.Mu0()-0.5) > 1e-15 || q.LengthSigma != 1 || q.SignalShape != 4 || q.SignalRate != 1 || q.NoiseShape != 2 || q.NoiseRate != 2 {
		t.Errorf("defaults %+v", q)
	}
	if _, err := (Prior{NoiseRate: -1}).WithDefaults(); err == nil {
		t.Error("negative rate accepted")
	}
	if _, err := (Prior{LengthSigma: math.NaN()}).WithDefaults(); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := New(nil, &Data{N: 2, D: 1, X: []float64{0, 1}, Y: []float64{0, 1}}, Options{Prior: Prior{SignalRate: math.Inf(1)}}); err == nil {
		t.Error("New accepted an infinite rate")
	}
	// θ* = (e, …, e, 4, 1); starting points θ*, θ*/2, 2θ* in log space.
	th := Prior{}.Mean(3)
	want := []float64{math.E, math.E, math.E, 4, 1}
	for k := range th {
		if math.Abs(th[k]-want[k]) > 1e-14 {
			t.Errorf("prior mean %v, want %v", th, want)
		}
	}
	sp := Prior{}.StartPoints(3)
	for k := range th {
		for i, f := range []float64{1, 0.5, 2} {
			if math.Abs(math.Exp(sp[i][k])-f*want[k]) > 1e-13 {
				t.Errorf("start point %d: %v", i, Theta(nil, sp[i]))
			}
		}
	}
	// LogDensity of a wrong-length or NaN u is -Inf, never NaN.
	if v := (Prior{}).LogDensity([]float64{0}, nil); !math.IsInf(v, -1) {
		t.Errorf("short u: %v", v)
	}
	if v := (Prior{}).LogDensity([]float64{0, math.NaN(), 0}, nil); !math.IsInf(v, -1) {
		t.Errorf("NaN u: %v", v)
	}
}

func TestPriorSampleMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const n = 20000
	p := Prior{}
	mean := p.Mean(1)
	var s [3]float64
	var s2 [3]float64
	for i := 0; i < n; i++ {
		th := p.Sample(rng, 1)
		for k, v := range th {
			s[k] += v
			s2[k] += v * v
		}
	}
	for k := range s {
		m := s[k] / n
		sd := math.Sqrt(s2[k]/n - m*m)
		if math.Abs(m-mean[k]) > 5*sd/math.Sqrt(n) {
			t.Errorf("component %d: sample mean %v, prior mean %v (sd %v)", k, m, mean[k], sd)
		}
	}
}

// TestInvHalfTPrior checks the inverse half-t length-scale family against
// gonum's Student-t: log p(u) = log(2 t_ν,s(ρ)) + log ρ with ρ = e^{−u};
// its gradient against finite differences; its normalisation by
// quadrature in u; its median and its sampler.
func TestInvHalfTPrior(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, p := range []Prior{{LengthFamily: LengthInvHalfT}, {LengthFamily: LengthInvHalfT, LengthDF: 1, LengthScale: 0.3, SignalShape: 2, SignalRate: 1}} {
		q, err := p.WithDefaults()
		if err != nil {
			t.Fatal(err)
		}
		st := distuv.StudentsT{Mu: 0, Sigma: q.LengthScale, Nu: q.LengthDF}
		checkLogPrior(t, rng, p, q, 3, func(u float64) float64 { return math.Ln2 + st.LogProb(math.Exp(-u)) - u })
		// ∫ p(u) du = 1 by the trapezoidal rule over a range holding all
		// but a negligible tail (e^{−u} decay to the right, e^{νu} to the left).
		var mass float64
		const h = 1e-3
		for u := -60.0; u <= 60; u += h {
			mass += math.Exp(p.LengthLogDensity(u)) * h
		}
		if math.Abs(mass-1) > 1e-6 {
			t.Errorf("prior %+v: ∫ p(log ℓ) = %v, want 1", p, mass)
		}
		// Half of the prior mass of ρ = 1/ℓ lies below s·t_ν(0.75).
		med := p.LengthMedianValue()
		var below float64
		for u := -60.0; u <= 60; u += h {
			if math.Exp(u) < med {
				below += math.Exp(p.LengthLogDensity(u)) * h
			}
		}
		if math.Abs(below-0.5) > 1e-3 {
			t.Errorf("prior %+v: P(ℓ < median %v) = %v, want 0.5", p, med, below)
		}
		// Sample: the share of draws with ℓ below the median is ½ within
		// five binomial standard errors.
		const n = 20000
		var k int
		for range n / 2 {
			th := p.Sample(rng, 2)
			for _, l := range th[:2] {
				if l < med {
					k++
				}
			}
		}
		if frac := float64(k) / n; math.Abs(frac-0.5) > 5*math.Sqrt(0.25/n) {
			t.Errorf("prior %+v: %v of sampled ℓ below the median, want 0.5", p, frac)
		}
		if m := p.Mean(3); m[0] != med || m[1] != med {
			t.Errorf("prior %+v: Mean's length scales %v, want the median %v", p, m[:3], med)
		}
	}
	if _, err := (Prior{LengthFamily: "halfcauchy"}).WithDefaults(); err == nil {
		t.Error("an unknown length-scale family was accepted")
	}
}
