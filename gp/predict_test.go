package gp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/linalg/openblas"
)

// densePredict is an independent dense computation of the predictive
// mean and latent variance at one θ with gonum's mat: K from differences
// of inputs, its Cholesky factorisation, and k*ᵀK⁻¹y, σf² − k*ᵀK⁻¹k*.
func densePredict(t *testing.T, data *Data, u, xt []float64) (mean, varf []float64, cond float64) {
	t.Helper()
	d := data.D
	k := denseKernel(data, nil, u)
	var ch mat.Cholesky
	if !ch.Factorize(k) {
		t.Fatal("reference Cholesky failed")
	}
	cond = ch.Cond()
	y := mat.NewVecDense(data.N, append([]float64(nil), data.Y...))
	var alpha mat.VecDense
	if err := ch.SolveVecTo(&alpha, y); err != nil {
		t.Fatal(err)
	}
	sf2 := math.Exp(2 * u[d])
	nt := len(xt) / d
	for i := range nt {
		ks := mat.NewVecDense(data.N, nil)
		for j := range data.N {
			var s float64
			for c := range d {
				r := (xt[i*d+c] - data.X[j*d+c]) / math.Exp(u[c])
				s += r * r
			}
			ks.SetVec(j, sf2*math.Exp(-0.5*s))
		}
		var v mat.VecDense
		if err := ch.SolveVecTo(&v, ks); err != nil {
			t.Fatal(err)
		}
		mean = append(mean, mat.Dot(ks, &alpha))
		varf = append(varf, max(sf2-mat.Dot(ks, &v), 0))
	}
	return mean, varf, cond
}

// TestPredictMatchesDense checks the single-θ predictive mean and latent
// variance against densePredict to 1e-10 relative (to the value, or to σf
// and σf² where the value is smaller: far from the data the mean is 0 and
// the variance σf²), on every compiled-in backend (cuda too, under -tags
// cuda on a machine with a GPU) and on the fallback that serves handles
// without linalg.PredictGP:
// a well-conditioned kernel, an ill-conditioned one (long length scales,
// σn = 0.01: condition number ≈ 1.3e6), test inputs far from the data, and
// 600 test inputs (the fallback's blocks of 256 and a partial one).
// The agreement is bounded by rounding in the kernel entries times the
// condition number: at σn = 0.001 (≈ 1.3e8) both paths still agree with
// the dense result, but to about 2e-9.
func TestPredictMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 19))
	data := randData(rng, 60, 3, 1)
	near := make([]float64, 20*3)
	for i := range near {
		near[i] = 1.2 * rng.NormFloat64()
	}
	copy(near, data.X[:3*5]) // five test inputs at observations
	far := make([]float64, 6*3)
	for i := range far {
		far[i] = 40 + 10*rng.NormFloat64()
	}
	far[0], far[1], far[2] = 6, -5, 4 // in the kernel's tail, not beyond it
	many := make([]float64, 600*3)    // more test inputs than one block of the fallback
	for i := range many {
		many[i] = 1.5 * rng.NormFloat64()
	}
	cases := []struct {
		name    string
		u       []float64
		xt      []float64
		minCond float64
	}{
		{"plain", []float64{0, 0.3, -0.2, 0.2, math.Log(0.3)}, near, 0},
		{"ill-conditioned", []float64{math.Log(3), math.Log(4), math.Log(5), 0, math.Log(1e-2)}, near, 1e6},
		{"far", []float64{0, 0.3, -0.2, 0.2, math.Log(0.3)}, far, 0},
		{"many", []float64{0, 0.3, -0.2, 0.2, math.Log(0.3)}, many, 0},
	}
	forEachModel(t, data, func(t *testing.T, m *Model) {
		for _, c := range cases {
			wantM, wantV, cond := densePredict(t, data, c.u, c.xt)
			if cond < c.minCond {
				t.Fatalf("%s: condition number %.3g, want ≥ %.3g", c.name, cond, c.minCond)
			}
			sf := math.Exp(c.u[3])
			nt := len(c.xt) / 3
			for _, path := range []string{"backend", "fallback"} {
				mean, varf := make([]float64, nt), make([]float64, nt)
				var err error
				if path == "backend" {
					err = m.Predict(c.xt, nt, c.u, mean, varf)
				} else {
					err = m.predictDense(c.xt, nt, c.u, mean, varf)
				}
				if err != nil {
					t.Fatalf("%s %s: %v", c.name, path, err)
				}
				for i := range nt {
					if e := math.Abs(mean[i]-wantM[i]) / max(math.Abs(wantM[i]), sf); e > 1e-10 {
						t.Errorf("%s %s: mean[%d] = %.17g, dense %.17g: relative error %.2g", c.name, path, i, mean[i], wantM[i], e)
					}
					if e := math.Abs(varf[i]-wantV[i]) / max(wantV[i], sf*sf); e > 1e-10 {
						t.Errorf("%s %s: varf[%d] = %.17g, dense %.17g: relative error %.2g", c.name, path, i, varf[i], wantV[i], e)
					}
				}
				if c.name == "far" && math.Abs(varf[nt-1]-sf*sf) > 1e-12 {
					t.Errorf("far %s: variance %v, want σf² = %v", path, varf[nt-1], sf*sf)
				}
			}
		}
	})
}

// TestPredictNotPositiveDefinite: a kernel that cannot be factorised is an
// error, not NaN predictions.
func TestPredictNotPositiveDefinite(t *testing.T) {
	data := &Data{N: 3, D: 1, X: []float64{0, 0, 1}, Y: []float64{1, 1, 2}}
	u := []float64{0, 0, -40} // σn = e⁻⁴⁰: two equal rows
	forEachModel(t, data, func(t *testing.T, m *Model) {
		mean, varf := make([]float64, 1), make([]float64, 1)
		err := m.Predict([]float64{0.5}, 1, u, mean, varf)
		if err == nil || !errorsIsNPD(err) {
			t.Fatalf("err = %v, want one wrapping ErrNotPositiveDefinite", err)
		}
	})
}

// refMixture computes the mixture statistics of one test input directly
// from per-draw predictives (model units), independently of
// mixtureScratch: plain sums, quantiles by 300 bisection steps on the CDF
// over a wide bracket, the density as the plain mean of densities.
func refMixture(mu, sd []float64, probs []float64, y float64) (mean, sdev float64, q []float64, dens, cdf float64) {
	S := float64(len(mu))
	var m2 float64
	for s := range mu {
		mean += mu[s] / S
		m2 += (sd[s]*sd[s] + mu[s]*mu[s]) / S
	}
	sdev = math.Sqrt(m2 - mean*mean)
	F := func(x float64) float64 {
		var c float64
		for s := range mu {
			c += 0.5 * math.Erfc(-(x-mu[s])/(sd[s]*math.Sqrt2)) / S
		}
		return c
	}
	for _, p := range probs {
		lo, hi := mean-50*sdev, mean+50*sdev
		for range 300 {
			mid := 0.5 * (lo + hi)
			if F(mid) < p {
				lo = mid
			} else {
				hi = mid
			}
		}
		q = append(q, 0.5*(lo+hi))
	}
	for s := range mu {
		r := (y - mu[s]) / sd[s]
		dens += math.Exp(-0.5*r*r) / (sd[s] * math.Sqrt(2*math.Pi)) / S
	}
	return mean, sdev, q, dens, F(y)
}

// TestPredictDrawsMixture checks PredictDraws' mixture statistics (mean,
// sd, quantiles, log density, CDF; f* and y*; in the original units of
// standardised data) against refMixture of the per-draw predictives of
// Model.Predict, and that they do not depend on the number of workers or
// on the batching of the test inputs.
func TestPredictDrawsMixture(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 19))
	raw := randData(rng, 40, 2, 3)
	for i := range raw.Y {
		raw.Y[i] = 100 + 20*raw.Y[i]
	}
	data, std, err := Standardize(raw, true, true)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(nil, data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// Draws spread enough that the mixture is far from Gaussian.
	S, nt := 9, 7
	draws := make([][]float64, S)
	for s := range draws {
		draws[s] = []float64{0.5 * rng.NormFloat64(), 0.5 * rng.NormFloat64(), 0.3 * rng.NormFloat64(), math.Log(0.05 + 0.3*rng.Float64())}
	}
	// Copies, as resampling makes them: computed once, counted each time.
	draws[7], draws[8] = slices.Clone(draws[2]), slices.Clone(draws[2])
	xt := make([]float64, nt*2) // original units
	for i := range xt {
		xt[i] = 3 * rng.NormFloat64()
	}
	xt[0], xt[1] = 40, -30 // far
	yt := make([]float64, nt)
	for i := range yt {
		yt[i] = 100 + 25*rng.NormFloat64()
	}
	probs := []float64{0.05, 0.25, 0.5, 0.75, 0.95}
	ctx := context.Background()
	got, err := m.PredictDraws(ctx, xt, nt, draws, PredictOptions{Std: std, Y: yt, Probs: probs, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got.Distinct != 7 {
		t.Errorf("%d distinct draws, want 7", got.Distinct)
	}
	// OnDraw counts the distinct draws of each batch of test inputs, one
	// call at a time: 576 bytes hold 4 points' moments of 9 draws, so 7
	// points make 2 batches.
	var calls [][2]int
	onDraw := func(done, total int) { calls = append(calls, [2]int{done, total}) }
	if _, err := m.PredictDraws(ctx, xt, nt, draws, PredictOptions{Std: std, Probs: probs, Workers: 3, MemoryBytes: 16 * S * 4, OnDraw: onDraw}); err != nil {
		t.Fatal(err)
	}
	for i, c := range calls {
		if c != [2]int{i + 1, 14} {
			t.Errorf("OnDraw call %d: %v, want [%d 14]", i, c, i+1)
		}
	}
	if len(calls) != 14 {
		t.Errorf("%d OnDraw calls, want 7 distinct draws × 2 batches", len(calls))
	}
	// Per-draw predictives in model units.
	zt := make([]float64, len(xt))
	for i, v := range xt {
		zt[i] = (v - std.XMean[i%2]) / std.XSD[i%2]
	}
	mu, vf := make([][]float64, S), make([][]float64, S)
	for s, u := range draws {
		mu[s], vf[s] = make([]float64, nt), make([]float64, nt)
		if err := m.Predict(zt, nt, u, mu[s], vf[s]); err != nil {
			t.Fatal(err)
		}
	}
	close := func(what string, i int, got, want, scale float64) {
		t.Helper()
		if e := math.Abs(got-want) / max(math.Abs(want), scale); e > 1e-9 {
			t.Errorf("%s[%d] = %.15g, reference %.15g (relative %.2g)", what, i, got, want, e)
		}
	}
	for i := range nt {
		z := (yt[i] - std.YMean) / std.YSD
		for _, kind := range []string{"f", "y"} {
			pm, ps := make([]float64, S), make([]float64, S)
			for s := range S {
				pm[s] = mu[s][i]
				v := vf[s][i]
				if kind == "y" {
					v += math.Exp(2 * draws[s][3])
				}
				ps[s] = math.Sqrt(v)
			}
			mean, sd, q, dens, cdf := refMixture(pm, ps, probs, z)
			gm, gs, gq := got.FMean, got.FSD, got.FQ
			if kind == "y" {
				gm, gs, gq = got.YMean, got.YSD, got.YQ
				close("LogDensity", i, got.LogDensity[i], math.Log(dens)-math.Log(std.YSD), 1)
				close("CDF", i, got.CDF[i], cdf, 1e-3)
			}
			scale := std.YSD * sd
			close(kind+"Mean", i, gm[i], std.YMean+std.YSD*mean, scale)
			close(kind+"SD", i, gs[i], std.YSD*sd, scale)
			for k := range probs {
				close(kind+"Q"+string(rune('0'+k)), i, gq[k][i], std.YMean+std.YSD*q[k], scale)
			}
		}
	}
	// Quantiles are increasing, and the median sits between the others.
	for i := range nt {
		for k := 1; k < len(probs); k++ {
			if !(got.YQ[k][i] > got.YQ[k-1][i]) || !(got.FQ[k][i] > got.FQ[k-1][i]) {
				t.Errorf("quantiles of point %d not increasing", i)
			}
		}
	}
	// Workers and batches change nothing, bit for bit.
	for _, o := range []PredictOptions{{Workers: 3}, {Workers: 2, MemoryBytes: 16 * S * 3}} {
		o.Std, o.Y, o.Probs = std, yt, probs
		p, err := m.PredictDraws(ctx, xt, nt, draws, o)
		if err != nil {
			t.Fatal(err)
		}
		if o.MemoryBytes > 0 && p.Batches != 3 {
			t.Errorf("%d batches, want 3", p.Batches)
		}
		if !slices.Equal(p.YMean, got.YMean) || !slices.Equal(p.FSD, got.FSD) || !slices.Equal(p.YQ[0], got.YQ[0]) ||
			!slices.Equal(p.LogDensity, got.LogDensity) {
			t.Errorf("workers %d, memory %d: results differ", o.Workers, o.MemoryBytes)
		}
	}
}

// TestPredictDrawsWorkersInvariant: on every backend, PredictDraws gives
// bit-identical results at GOMAXPROCS 1 with one worker and at GOMAXPROCS
// 2 with two (and with Workers left to GOMAXPROCS), at a size where the
// kernel is built by the handle's row workers and the test inputs are
// taken in several blocks. OpenBLAS runs on one thread, as the command
// line sets it for prediction.
func TestPredictDrawsWorkersInvariant(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	if th := openblas.Threads(); th > 0 {
		defer openblas.SetThreads(th)
		openblas.SetThreads(1)
	}
	rng := rand.New(rand.NewPCG(4, 19))
	const n, d, nt, S = 260, 3, 1100, 3
	data := randData(rng, n, d, 1)
	draws := make([][]float64, S)
	for s := range draws {
		draws[s] = []float64{0.2 * rng.NormFloat64(), 0.2 * rng.NormFloat64(), 0.2 * rng.NormFloat64(), 0.1 * rng.NormFloat64(), math.Log(0.3) + 0.1*rng.NormFloat64()}
	}
	xt := make([]float64, nt*d)
	for i := range xt {
		xt[i] = 1.5 * rng.NormFloat64()
	}
	yt := make([]float64, nt)
	for i := range yt {
		yt[i] = rng.NormFloat64()
	}
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		var ref *Predictive
		for _, c := range []struct{ procs, workers int }{{1, 1}, {2, 2}, {2, 0}} {
			runtime.GOMAXPROCS(c.procs)
			m, err := New(be, data, Options{}) // the handle's row workers depend on GOMAXPROCS
			if err != nil {
				t.Fatal(err)
			}
			p, err := m.PredictDraws(context.Background(), xt, nt, draws, PredictOptions{Y: yt, Workers: c.workers})
			m.Close()
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = p
				continue
			}
			for _, f := range []struct {
				name      string
				got, want []float64
			}{
				{"YMean", p.YMean, ref.YMean}, {"YSD", p.YSD, ref.YSD}, {"FMean", p.FMean, ref.FMean}, {"FSD", p.FSD, ref.FSD},
				{"YQ[0]", p.YQ[0], ref.YQ[0]}, {"YQ[2]", p.YQ[2], ref.YQ[2]}, {"FQ[1]", p.FQ[1], ref.FQ[1]},
				{"LogDensity", p.LogDensity, ref.LogDensity}, {"CDF", p.CDF, ref.CDF},
			} {
				if !slices.Equal(f.got, f.want) {
					t.Errorf("GOMAXPROCS %d, Workers %d: %s differs from GOMAXPROCS 1, Workers 1", c.procs, c.workers, f.name)
				}
			}
		}
	})
}

// TestPredictiveMetrics checks RMSE, MLPD and coverage on hand-computed
// values.
func TestPredictiveMetrics(t *testing.T) {
	p := &Predictive{
		N: 4, YMean: []float64{1, 2, 3, 4},
		LogDensity: []float64{-1, -2, -3, -4},
		CDF:        []float64{0.5, 0.7, 0.9, 0.99},
	}
	mt, err := p.Metrics([]float64{1, 3, 3, 6})
	if err != nil {
		t.Fatal(err)
	}
	want := Metrics{N: 4, RMSE: math.Sqrt(5.0 / 4), MLPD: -2.5, Coverage50: 0.5, Coverage90: 0.75}
	if math.Abs(mt.RMSE-want.RMSE) > 1e-15 || mt.MLPD != want.MLPD || mt.Coverage50 != want.Coverage50 || mt.Coverage90 != want.Coverage90 {
		t.Errorf("metrics %+v, want %+v", mt, want)
	}
	if _, err := (&Predictive{N: 1}).Metrics([]float64{1}); err == nil {
		t.Error("metrics without targets: no error")
	}
}

func errorsIsNPD(err error) bool { return errors.Is(err, ErrNotPositiveDefinite) }

// BenchmarkPredictDraws times the posterior-averaged predictive
// (PredictDraws, its default three quantiles, no targets) at Nt = 10 000
// test inputs from S draws at N = 442, D = 10 (the diabetes data's size):
// synthetic inputs N(0, 1) and targets, and draws near a plausible θ
// (length scales e^0.8 ≈ 2.2, σf ≈ 1, σn ≈ 0.5, each perturbed). S = 1000
// is the README's prediction case (at most 30 s on two cores with OpenBLAS):
//
//	go test -tags openblas -run '^$' -bench 'PredictDraws/openblas/N=442/Nt=10000/S=1000$' -benchtime 1x ./gp/
//
// OpenBLAS runs on one thread and the draws on GOMAXPROCS workers, as the
// command line runs them (BenchmarkPredictDrawsBLASThreads: the other way
// round). The gonum backend, about six times slower, runs S = 20 only.
func BenchmarkPredictDraws(b *testing.B) {
	for _, be := range linalg.Backends() {
		sizes := []int{20, 100, 1000}
		if be.Name() == linalg.DefaultName {
			sizes = sizes[:1]
		}
		benchPredictDraws(b, be, 442, 10000, sizes, runtime.GOMAXPROCS(0), 1)
	}
}

// BenchmarkPredictDrawsTestSize is BenchmarkPredictDraws at large N with
// as many test inputs as observations and with a quarter as many (as a
// held-out fifth of a large training set is): N = 2048 and 4096, S = 20,
// on every backend but the slow pure-Go one.
//
//	go test -tags openblas -run '^$' -bench 'PredictDrawsTestSize' -benchtime 1x ./gp/
func BenchmarkPredictDrawsTestSize(b *testing.B) {
	for _, be := range linalg.Backends() {
		if be.Name() != linalg.DefaultName {
			benchPredictDraws(b, be, 2048, 2048, []int{20}, runtime.GOMAXPROCS(0), 1)
			for _, n := range []int{2048, 4096} {
				benchPredictDraws(b, be, n, n/4, []int{20}, runtime.GOMAXPROCS(0), 1)
			}
		}
	}
}

// BenchmarkPredictDrawsLargeN is BenchmarkPredictDraws at N = 4096 with
// S = 20 draws, where the O(Nt·N²) triangular products dominate and the
// GPU's rate tells: on every backend but the slow pure-Go one.
//
//	go test -tags 'cuda openblas' -run '^$' -bench 'PredictDrawsLargeN' -benchtime 1x ./gp/
func BenchmarkPredictDrawsLargeN(b *testing.B) {
	for _, be := range linalg.Backends() {
		if be.Name() != linalg.DefaultName {
			benchPredictDraws(b, be, 4096, 10000, []int{20}, runtime.GOMAXPROCS(0), 1)
		}
	}
}

// BenchmarkPredictDrawsBLASThreads is BenchmarkPredictDraws on OpenBLAS
// with GOMAXPROCS threads and one worker.
func BenchmarkPredictDrawsBLASThreads(b *testing.B) {
	be, err := linalg.Get("openblas")
	if err != nil {
		b.Skip(err)
	}
	benchPredictDraws(b, be, 442, 10000, []int{20, 100, 1000}, 1, runtime.GOMAXPROCS(0))
}

// benchPredictDraws runs BenchmarkPredictDraws' cases on be at N = n and
// Nt = nt with S draws for each S in sizes, with the given number of
// workers and of OpenBLAS threads (restored afterwards).
func benchPredictDraws(b *testing.B, be linalg.Backend, n, nt int, sizes []int, workers, blasThreads int) {
	rng := rand.New(rand.NewPCG(3, 19))
	const d = 10
	data := randData(rng, n, d, 1)
	xt := make([]float64, nt*d)
	for i := range xt {
		xt[i] = rng.NormFloat64()
	}
	draws := make([][]float64, slices.Max(sizes))
	for s := range draws {
		u := make([]float64, d+2)
		for j := range d {
			u[j] = 0.8 + 0.2*rng.NormFloat64()
		}
		u[d], u[d+1] = 0.1*rng.NormFloat64(), math.Log(0.5)+0.1*rng.NormFloat64()
		draws[s] = u
	}
	if th := openblas.Threads(); th > 0 {
		defer openblas.SetThreads(th)
		openblas.SetThreads(blasThreads)
	}
	for _, S := range sizes {
		b.Run("backend="+be.Name()+"/N="+strconv.Itoa(n)+"/Nt="+strconv.Itoa(nt)+"/S="+strconv.Itoa(S), func(b *testing.B) {
			if err := unavailable(be); err != nil {
				b.Skip(err)
			}
			m, err := New(be, data, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			b.ResetTimer()
			for range b.N {
				if _, err := m.PredictDraws(context.Background(), xt, nt, draws[:S], PredictOptions{Workers: workers}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
