package gp

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/subtemper/subtemper/diag"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/subtemper/subtemper/linalg"
)

// Predict computes the GP posterior predictive at one θ (u = log θ, in the
// model's units: the units of the Data it was built on) for the nt test
// inputs xt (nt×D, row-major): for test input i, with A = K + (σn² +
// jitter)·I over all N observations and k_i its kernel vector,
//
//	mean[i] = k_iᵀ A⁻¹ y,   varf[i] = σf² − k_iᵀ A⁻¹ k_i  (clamped at 0),
//
// the mean and variance of the latent f(x_i); a new observation y_i has
// the same mean and variance varf[i] + σn². It runs on the backend when
// the backend's handle implements linalg.PredictGP, as every built-in
// backend's does (on the CPU and the GPU: one Cholesky factorisation,
// O(N³/3), plus O(nt·N·D) for the cross-kernel and O(nt·N²) for the
// triangular solves with the factor, one per block of test inputs),
// else on the kernel matrix from the backend with gonum (the
// factorisation, then triangular solves with blocks of 256 test inputs).
func (m *Model) Predict(xt []float64, nt int, u, mean, varf []float64) error {
	if m.h == nil {
		return errors.New("gp: predict: model is closed")
	}
	if len(u) != m.Dim() {
		return fmt.Errorf("gp: predict: len(u) = %d, want %d", len(u), m.Dim())
	}
	if nt < 0 || len(xt) != nt*m.data.D || len(mean) < nt || len(varf) < nt {
		return fmt.Errorf("gp: predict: %d test inputs of %d dimensions: len(xt) = %d, len(mean) = %d, len(varf) = %d", nt, m.data.D, len(xt), len(mean), len(varf))
	}
	var err error
	if ph, ok := m.h.(linalg.PredictGP); ok {
		err = ph.Predict(xt, nt, u, mean, varf)
	} else {
		err = m.predictDense(xt, nt, u, mean, varf)
	}
	if err != nil {
		if errors.Is(err, linalg.ErrNotPositiveDefinite) {
			return fmt.Errorf("gp: predict at θ = %.4g (jitter %g): kernel matrix not positive definite: %w", Theta(nil, u), m.jitter, err)
		}
		return fmt.Errorf("gp: predict at θ = %.4g: %w", Theta(nil, u), err)
	}
	for i := range nt {
		if math.IsNaN(mean[i]) || math.IsInf(mean[i], 0) || math.IsNaN(varf[i]) || math.IsInf(varf[i], 0) {
			return fmt.Errorf("gp: predict at θ = %.4g: test input %d: mean %v, variance %v", Theta(nil, u), i, mean[i], varf[i])
		}
	}
	return nil
}

// predictDense is Predict for backends whose handle does not implement
// linalg.PredictGP (none of the built-in ones): the kernel matrix comes from the
// backend, the rest is gonum's, in blocks of test inputs: the cross-kernel
// of a block, then one triangular solve with the block's columns (level-3
// BLAS, not one solve per input).
func (m *Model) predictDense(xt []float64, nt int, u, mean, varf []float64) error {
	n, d := m.data.N, m.data.D
	k := make([]float64, n*n)
	if err := m.h.Kernel(k, nil, u); err != nil {
		return err
	}
	a := blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: k}
	chol, ok := lapack64.Potrf(a)
	if !ok {
		return linalg.ErrNotPositiveDefinite
	}
	alpha := blas64.Vector{N: n, Inc: 1, Data: append([]float64(nil), m.data.Y...)}
	blas64.Trsv(blas.NoTrans, chol, alpha)
	blas64.Trsv(blas.Trans, chol, alpha)
	ell := Theta(nil, u[:d])
	sf2 := math.Exp(2 * u[d])
	const block = 256
	bs := min(block, nt)
	kt := make([]float64, n*bs) // K*ᵀ of a block: row i holds k(x_i, ·) at the block's inputs
	for t0 := 0; t0 < nt; t0 += block {
		b := min(block, nt-t0)
		for i := range n {
			xi := m.data.X[i*d : i*d+d]
			row := kt[i*b : i*b+b]
			for c := range b {
				x := xt[(t0+c)*d : (t0+c)*d+d]
				var d2 float64
				for j, v := range x {
					r := (v - xi[j]) / ell[j]
					d2 += r * r
				}
				row[c] = m.kern.Cov(d2, sf2)
			}
		}
		for c := range b {
			var mu float64
			for i := range n {
				mu += kt[i*b+c] * alpha.Data[i]
			}
			mean[t0+c] = mu
		}
		// V = L⁻¹K*ᵀ; the latent variance is σf² − ‖column of V‖².
		v := blas64.General{Rows: n, Cols: b, Stride: b, Data: kt[:n*b]}
		blas64.Trsm(blas.Left, blas.NoTrans, 1, chol, v)
		ss := varf[t0 : t0+b]
		clear(ss)
		for i := range n {
			for c, x := range kt[i*b : i*b+b] {
				ss[c] += x * x
			}
		}
		for c := range ss {
			ss[c] = max(sf2-ss[c], 0)
		}
	}
	return nil
}

// DefaultProbs are the probabilities of the predictive quantiles that
// PredictDraws computes by default: 5%, 50% and 95%.
var DefaultProbs = []float64{0.05, 0.5, 0.95}

// PredictOptions configures PredictDraws. The zero value is valid.
type PredictOptions struct {
	// Std is the standardisation of the model's data (the zero value: none).
	// Test inputs are given, and predictions and targets reported, in the
	// data's original units; PredictDraws maps them through Std.
	Std Standardization
	// Y, if non-nil (len nt, original units), holds the targets observed
	// at the test inputs: PredictDraws then also sets the per-point log
	// predictive density and mixture CDF of y* (Predictive.LogDensity, CDF).
	Y []float64
	// Probs are the probabilities of the quantiles to compute, each in
	// (0,1). Nil means DefaultProbs.
	Probs []float64
	// Workers is the number of goroutines, each with its own clone of the
	// model, that the draws (then the test inputs) are shared out among.
	// Zero means GOMAXPROCS. The results do not depend on it. With the
	// openblas backend, give OpenBLAS one thread (openblas.SetThreads(1),
	// as the command line does): each worker's BLAS calls are then its
	// own, where a multithreaded OpenBLAS in every worker would
	// oversubscribe the cores. With the cuda backend each worker's clone
	// has its own stream and device buffers (the N×N kernel and a
	// cross-kernel block of up to 64 MiB), so the workers' draws overlap
	// on the GPU.
	Workers int
	// MemoryBytes bounds the per-draw predictive moments held at once
	// (16 bytes per draw and test input): test inputs are taken in batches
	// of max(1, MemoryBytes/(16·S)), S the number of draws, and each draw's
	// kernel is factorised once per batch. Zero means 256 MiB, one batch
	// (one factorisation per draw) for up to 16 million draw-points, e.g.
	// 4000 draws × 4194 test inputs.
	MemoryBytes int
	// OnDraw, if set, is called after each distinct draw's predictive
	// moments are computed, with the number done and the total (the
	// distinct draws times the batches of test inputs), one call at a
	// time, from the workers' goroutines.
	OnDraw func(done, total int)
}

// DefaultPredictMemory is PredictOptions.MemoryBytes' default.
const DefaultPredictMemory = 256 << 20

// Predictive is the posterior predictive at nt test inputs, averaged over
// S draws of θ: for each test input, the mixture of the S Gaussian
// predictives (one per draw), in the data's original units. Y refers to a
// new observation y* (with noise), F to the latent function value f*.
type Predictive struct {
	// N is the number of test inputs, Draws the number S of draws of θ.
	N, Draws int
	// Probs are the probabilities of the quantiles in YQ and FQ.
	Probs []float64
	// Mixture mean and standard deviation, len N.
	YMean, YSD, FMean, FSD []float64
	// YQ[k][i] and FQ[k][i] are the Probs[k]-quantiles of the mixture at
	// test input i: roots of the mixture's CDF (not Gaussian quantiles).
	YQ, FQ [][]float64
	// With PredictOptions.Y: LogDensity[i] = log p(y_i | data), the log of
	// the mean over draws of the Gaussian density of y_i (original units),
	// and CDF[i] the mixture's CDF at y_i. Nil otherwise.
	LogDensity, CDF []float64
	// Batches is the number of batches the test inputs were taken in: each
	// distinct draw's kernel was factorised once per batch.
	Batches int
	// Distinct is the number of distinct draws (equal ones, as draws
	// resampled from a weighted sample repeat, are factorised once; the
	// mixture still counts each as often as given).
	Distinct int
}

// Metrics are held-out measures of a Predictive against observed targets.
type Metrics struct {
	// N is the number of test points.
	N int `json:"n"`
	// RMSE is the root mean squared error of the predictive mean of y*.
	RMSE float64 `json:"rmse"`
	// MLPD is the mean log predictive density of the mixture,
	// mean_i log p(y_i | data), in the data's units.
	MLPD float64 `json:"mlpd"`
	// Coverage50 and Coverage90 are the fractions of targets inside the
	// central 50% and 90% intervals of the mixture predictive of y*.
	Coverage50 float64 `json:"coverage50"`
	Coverage90 float64 `json:"coverage90"`
	// PITKS and PITKSP are the Kolmogorov–Smirnov statistic of the
	// probability integral transforms (CDF, the predictive CDF at each
	// target) against the uniform distribution, and its p-value
	// (diag.KSUniform): calibrated predictions give uniform PITs, and a
	// p-value below 0.01 says they are not. The test assumes independent
	// PITs: test points close together, or a posterior far from the data
	// generator, make it stricter than its level.
	PITKS  float64 `json:"pit_ks"`
	PITKSP float64 `json:"pit_ks_p"`
}

// Metrics returns the held-out measures against the targets y (original
// units), which must be those given in PredictOptions.Y.
func (p *Predictive) Metrics(y []float64) (Metrics, error) {
	if p.LogDensity == nil || p.CDF == nil {
		return Metrics{}, errors.New("gp: predictive metrics: no targets were given to PredictDraws (PredictOptions.Y)")
	}
	if len(y) != p.N {
		return Metrics{}, fmt.Errorf("gp: predictive metrics: %d targets for %d test inputs", len(y), p.N)
	}
	mt := Metrics{N: p.N}
	if p.N == 0 {
		return mt, nil
	}
	var se, lpd float64
	var in50, in90 int
	for i, v := range y {
		r := v - p.YMean[i]
		se += r * r
		lpd += p.LogDensity[i]
		c := math.Abs(p.CDF[i] - 0.5)
		if c <= 0.25 {
			in50++
		}
		if c <= 0.45 {
			in90++
		}
	}
	n := float64(p.N)
	mt.RMSE = math.Sqrt(se / n)
	mt.MLPD = lpd / n
	mt.Coverage50 = float64(in50) / n
	mt.Coverage90 = float64(in90) / n
	mt.PITKS, mt.PITKSP = diag.KSUniform(p.CDF)
	return mt, nil
}

// PredictDraws computes the posterior predictive at the nt test inputs xt
// (nt×D, row-major, in the data's original units; see
// PredictOptions.Std) averaged over the draws (each u = log θ in the
// model's units, as tempering.Result holds them): the mixture of the
// per-draw Gaussian predictives, with its mean, standard deviation and
// quantiles (found by bisection-safeguarded Halley iterations on the
// mixture's CDF from the Cornish–Fisher approximation, within the bracket
// of the per-draw quantiles).
//
// The draws are shared out among PredictOptions.Workers goroutines, then
// the test inputs; each draw's predictive moments have their own slots,
// and each test input's mixture is reduced over the draws in their order,
// so the results do not depend on the number of workers.
//
// Cost: one kernel factorisation and the solves with its factor per
// distinct draw and batch (one batch unless the draws × test inputs
// exceed PredictOptions.MemoryBytes; draws equal to an earlier one reuse
// its moments), so O(S·(N³/3 + N*·N·D + N*·N²)) for S distinct draws, N
// observations and N* test inputs, plus O(S·N*) per iteration of a
// quantile of the mixture (about two per quantile).
func (m *Model) PredictDraws(ctx context.Context, xt []float64, nt int, draws [][]float64, opt PredictOptions) (*Predictive, error) {
	d := m.data.D
	S := len(draws)
	zt, probs, err := m.predictInputs(xt, nt, draws, opt)
	if err != nil {
		return nil, err
	}
	std := opt.Std
	yMean, ySD := 0.0, 1.0
	if std.YSD != 0 {
		yMean, ySD = std.YMean, std.YSD
	}
	mem := opt.MemoryBytes
	if mem <= 0 {
		mem = DefaultPredictMemory
	}
	batch := max(1, min(nt, mem/(16*S)))
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, S))

	p := newPredictive(nt, S, probs, opt.Y != nil)
	if nt == 0 {
		return p, nil
	}
	models, err := m.workerClones(workers)
	if err != nil {
		return nil, err
	}
	defer closeClones(models)
	sn2 := make([]float64, S)
	for s, u := range draws {
		sn2[s] = math.Exp(2 * u[d+1])
	}
	mixes := make([]mixtureScratch, workers)
	for w := range mixes {
		mixes[w] = newMixtureScratch(S, len(probs))
	}
	first, distinct := distinctDraws(draws)
	p.Distinct = len(distinct)
	mu := make([]float64, S*min(batch, nt))
	vf := make([]float64, S*min(batch, nt))
	tell := drawCounter(opt.OnDraw, len(distinct)*((nt+batch-1)/batch))
	for lo := 0; lo < nt; lo += batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.Batches++
		b := min(batch, nt-lo)
		// Per-draw moments, draw-major: mu[s*b+t].
		err := parallel(workers, len(distinct), func(w, i int) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			s := distinct[i]
			defer tell()
			return models[w].Predict(zt[lo*d:(lo+b)*d], b, draws[s], mu[s*b:s*b+b], vf[s*b:s*b+b])
		})
		if err != nil {
			return nil, err
		}
		copyMoments(first, b, mu, vf)
		// The mixtures' quantiles (root finding over S draws per point)
		// take seconds for thousands of draws: ctx is checked per point.
		err = parallel(workers, b, func(w, t int) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			p.mixPoint(&mixes[w], lo+t, t, b, mu, vf, sn2, probs, opt.Y, yMean, ySD)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return p, nil
}

// drawCounter returns the function that the workers call after each
// draw's moments: it counts them and passes the count and total to
// onDraw, one call at a time (nothing where onDraw is nil).
func drawCounter(onDraw func(done, total int), total int) func() {
	if onDraw == nil {
		return func() {}
	}
	var mu sync.Mutex
	done := 0
	return func() {
		mu.Lock()
		defer mu.Unlock()
		done++
		onDraw(done, total)
	}
}

// copyMoments copies the b per-point moments of draw first[s] into draw
// s's slots, for every draw s equal to an earlier one.
func copyMoments(first []int, b int, mu, vf []float64) {
	for s, f := range first {
		if f != s {
			copy(mu[s*b:s*b+b], mu[f*b:f*b+b])
			copy(vf[s*b:s*b+b], vf[f*b:f*b+b])
		}
	}
}

// distinctDraws returns, for each draw, the index of the first draw
// equal to it (first), and the indices of the draws equal to none before
// them (distinct).
func distinctDraws(draws [][]float64) (first, distinct []int) {
	first = firstEqual(draws)
	for s, f := range first {
		if f == s {
			distinct = append(distinct, s)
		}
	}
	return first, distinct
}

// firstEqual returns, for each draw, the index of the first draw equal
// to it (its own index if none before is).
func firstEqual(draws [][]float64) []int {
	first := make([]int, len(draws))
	seen := make(map[string]int, len(draws))
	key := make([]byte, 0, 8*len(draws[0]))
	for s, u := range draws {
		key = key[:0]
		for _, v := range u {
			key = binary.LittleEndian.AppendUint64(key, math.Float64bits(v))
		}
		f, ok := seen[string(key)]
		if !ok {
			f = s
			seen[string(key)] = s
		}
		first[s] = f
	}
	return first
}

// predictInputs checks PredictDraws' arguments and returns the test
// inputs in the model's units and the quantiles' probabilities.
func (m *Model) predictInputs(xt []float64, nt int, draws [][]float64, opt PredictOptions) (zt, probs []float64, err error) {
	d := m.data.D
	if len(draws) == 0 {
		return nil, nil, errors.New("gp: predict: no draws")
	}
	if nt < 0 || len(xt) != nt*d {
		return nil, nil, fmt.Errorf("gp: predict: len(xt) = %d for %d test inputs of %d dimensions", len(xt), nt, d)
	}
	for s, u := range draws {
		if len(u) != m.Dim() {
			return nil, nil, fmt.Errorf("gp: predict: draw %d has %d values, want %d", s, len(u), m.Dim())
		}
	}
	if opt.Y != nil && len(opt.Y) != nt {
		return nil, nil, fmt.Errorf("gp: predict: %d targets for %d test inputs", len(opt.Y), nt)
	}
	probs = opt.Probs
	if probs == nil {
		probs = DefaultProbs
	}
	for _, p := range probs {
		if !(p > 0 && p < 1) {
			return nil, nil, fmt.Errorf("gp: predict: quantile probability %v, want in (0,1)", p)
		}
	}
	std := opt.Std
	if std.XSD != nil && (len(std.XSD) != d || len(std.XMean) != d) {
		return nil, nil, fmt.Errorf("gp: predict: standardisation of %d inputs for a model of %d", len(std.XSD), d)
	}
	// Test inputs in the model's units.
	zt = make([]float64, len(xt))
	for i, v := range xt {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, fmt.Errorf("gp: predict: test input %d, column %d is %v", i/d+1, i%d+1, v)
		}
		zt[i] = v
		if std.XSD != nil {
			zt[i] = (v - std.XMean[i%d]) / std.XSD[i%d]
		}
	}
	return zt, probs, nil
}

// newPredictive returns a Predictive of nt test inputs and S draws with
// its slices made, LogDensity and CDF only if withY.
func newPredictive(nt, S int, probs []float64, withY bool) *Predictive {
	p := &Predictive{N: nt, Draws: S, Probs: append([]float64(nil), probs...)}
	p.YMean, p.YSD = make([]float64, nt), make([]float64, nt)
	p.FMean, p.FSD = make([]float64, nt), make([]float64, nt)
	p.YQ, p.FQ = make([][]float64, len(probs)), make([][]float64, len(probs))
	for k := range probs {
		p.YQ[k], p.FQ[k] = make([]float64, nt), make([]float64, nt)
	}
	if withY {
		p.LogDensity, p.CDF = make([]float64, nt), make([]float64, nt)
	}
	return p
}

// workerClones returns a model per worker: m itself, then copies of it
// (Copy; closeClones closes them). If a copy fails it closes those made.
func (m *Model) workerClones(workers int) ([]*Model, error) {
	models := make([]*Model, workers)
	models[0] = m
	for w := 1; w < workers; w++ {
		c, err := m.Copy()
		if err != nil {
			closeClones(models)
			return nil, err
		}
		models[w] = c
	}
	return models, nil
}

// closeClones closes workerClones' clones, models[1:].
func closeClones(models []*Model) {
	for _, c := range models[1:] {
		if c != nil {
			c.Close()
		}
	}
}

// mixPoint sets p's predictive at test input i, the t-th of its batch of
// b, from the draws' moments there (mu[s*b+t], vf[s*b+t]) and their noise
// variances sn2, with mix as scratch: the latent f*'s mixture, then y*'s,
// in the data's units (yMean + ySD·z), and with targets y their log
// density and CDF.
func (p *Predictive) mixPoint(mix *mixtureScratch, i, t, b int, mu, vf, sn2, probs, y []float64, yMean, ySD float64) {
	// Latent f*.
	for s := range sn2 {
		mix.set(s, mu[s*b+t], vf[s*b+t])
	}
	mean, sd := mix.summary(probs)
	p.FMean[i], p.FSD[i] = yMean+ySD*mean, ySD*sd
	for k, q := range mix.q {
		p.FQ[k][i] = yMean + ySD*q
	}
	// y* = f* + noise.
	for s := range sn2 {
		mix.set(s, mu[s*b+t], vf[s*b+t]+sn2[s])
	}
	mean, sd = mix.summary(probs)
	p.YMean[i], p.YSD[i] = yMean+ySD*mean, ySD*sd
	for k, q := range mix.q {
		p.YQ[k][i] = yMean + ySD*q
	}
	if y != nil {
		c, ld := mix.cdfLogDensity((y[i] - yMean) / ySD)
		p.LogDensity[i], p.CDF[i] = ld-math.Log(ySD), c
	}
}

// parallel runs f(w, i) for i in 0..n−1 on workers goroutines (w the
// worker's index, 0..workers−1) and returns the first error.
func parallel(workers, n int, f func(w, i int) error) error {
	var (
		mu   sync.Mutex
		next int
		ferr error
		wg   sync.WaitGroup
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := ferr != nil
				mu.Unlock()
				if stop || i >= n {
					return
				}
				if err := f(w, i); err != nil {
					mu.Lock()
					if ferr == nil {
						ferr = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return ferr
}

// mixtureScratch is an equally weighted mixture of Gaussians N(mu[s],
// sd[s]²) (sd[s] = 0: a point mass), with its summary's scratch.
type mixtureScratch struct {
	mu, sd, isd []float64 // isd[s] = 1/sd[s]
	points      int       // the number of point masses
	q           []float64 // summary's quantiles
	lg          []float64 // cdfLogDensity's scratch
}

func newMixtureScratch(S, probs int) mixtureScratch {
	return mixtureScratch{mu: make([]float64, S), sd: make([]float64, S), isd: make([]float64, S), points: S,
		q: make([]float64, probs), lg: make([]float64, S)}
}

// set makes component s N(m, v).
func (x *mixtureScratch) set(s int, m, v float64) {
	sd := math.Sqrt(v)
	if x.sd[s] == 0 {
		x.points--
	}
	if sd == 0 {
		x.points++
	}
	x.mu[s], x.sd[s], x.isd[s] = m, sd, 1/sd
}

// summary returns the mixture's mean and standard deviation and sets x.q
// to its probs-quantiles.
func (x *mixtureScratch) summary(probs []float64) (mean, sd float64) {
	mean, sd, skew, exKurt := x.moments()
	for k, p := range probs {
		x.q[k] = x.quantile(p, mean+sd*cornishFisher(normalQuantile(p), skew, exKurt), sd)
	}
	return mean, sd
}

// moments returns the mixture's mean, standard deviation, skewness and
// excess kurtosis (the last two 0 when the standard deviation is 0).
func (x *mixtureScratch) moments() (mean, sd, skew, exKurt float64) {
	S := float64(len(x.mu))
	for _, v := range x.mu {
		mean += v
	}
	mean /= S
	var m2, m3, m4 float64
	for s, m := range x.mu {
		r, v := m-mean, x.sd[s]*x.sd[s]
		r2 := r * r
		m2 += v + r2
		m3 += r * (r2 + 3*v)
		m4 += r2*(r2+6*v) + 3*v*v
	}
	m2, m3, m4 = m2/S, m3/S, m4/S
	if !(m2 > 0) {
		return mean, 0, 0, 0
	}
	return mean, math.Sqrt(m2), m3 / (m2 * math.Sqrt(m2)), m4/(m2*m2) - 3
}

// cornishFisher returns the Cornish–Fisher approximation of the standard
// quantile of a distribution of the given skewness and excess kurtosis at
// the standard normal quantile z: a starting point for quantile.
func cornishFisher(z, skew, exKurt float64) float64 {
	z2 := z * z
	return z + (z2-1)*skew/6 + z*(z2-3)*exKurt/24 - z*(2*z2-5)*skew*skew/36
}

// cdf returns the mixture's CDF at z, its density and the density's
// derivative. A component of sd 0 is a point mass: a step in the CDF, no
// density.
func (x *mixtureScratch) cdf(z float64) (cdf, pdf, dpdf float64) {
	points := x.points > 0
	for s, m := range x.mu {
		if points && x.sd[s] == 0 {
			if z >= m {
				cdf += 2
			}
			continue
		}
		is := x.isd[s]
		r := (z - m) * is
		cdf += math.Erfc(-r * (1 / math.Sqrt2))
		e := math.Exp(-0.5*r*r) * is
		pdf += e
		dpdf -= e * r * is
	}
	S := float64(len(x.mu))
	c := 1 / (S * math.Sqrt(2*math.Pi))
	return 0.5 * cdf / S, pdf * c, dpdf * c
}

// cdfLogDensity returns the mixture's CDF at z and the log of its density
// there: the log of cdf's density where that is a normal float, else by
// log-sum-exp.
func (x *mixtureScratch) cdfLogDensity(z float64) (cdf, logDensity float64) {
	cdf, pdf, _ := x.cdf(z)
	if pdf >= 0x1p-1000 && x.points == 0 {
		return cdf, math.Log(pdf)
	}
	big := math.Inf(-1)
	lg := x.lg[:len(x.mu)]
	for s, m := range x.mu {
		r := (z - m) * x.isd[s]
		lg[s] = -0.5*r*r + math.Log(x.isd[s])
		if x.sd[s] == 0 {
			lg[s] = math.Inf(-1)
			if z == m {
				lg[s] = math.Inf(1)
			}
		}
		big = max(big, lg[s])
	}
	if math.IsInf(big, 0) {
		return cdf, big
	}
	var sum float64
	for _, l := range lg {
		sum += math.Exp(l - big)
	}
	return cdf, big + math.Log(sum/float64(len(lg))) - 0.5*math.Log(2*math.Pi)
}

// quantile returns the p-quantile of the mixture: the root of
// F(z) = CDF(z) − p, bracketed by the smallest and largest of the
// components' p-quantiles (the mixture's CDF is at most p at the first and
// at least p at the second). From start (the bracket's middle if start is
// outside it) it takes Halley steps, z − h/(1 − h·F″/(2F′)) with h = F/F′
// Newton's step, each evaluation narrowing the bracket and a step that
// leaves it replaced by bisection. Let tol = 1e-12·scale (scale: the
// mixture's sd, 1 if that is 0, or the bracket's ends if larger). It stops
// when the bracket is narrower than tol, when a step moves z by at most
// tol, or, without evaluating F again, when h ≤ √(tol·scale) and Newton's
// error estimate |F″/(2F′)|·h² after the step is at most tol (Halley's
// step, of third order, errs less still). Started from the Cornish–Fisher
// approximation, that took two evaluations of F per quantile on the
// mixtures of BenchmarkPredictDraws (each costs S normal CDFs and
// densities).
func (x *mixtureScratch) quantile(p, start, scale float64) float64 {
	zp := normalQuantile(p)
	lo, hi := math.Inf(1), math.Inf(-1)
	for s, m := range x.mu {
		q := m + x.sd[s]*zp
		lo, hi = min(lo, q), max(hi, q)
	}
	if !(hi > lo) {
		return lo
	}
	if !(scale > 0) {
		scale = 1
	}
	tol := 1e-12 * max(scale, math.Abs(lo), math.Abs(hi))
	near := math.Sqrt(tol * scale)
	z := start
	if !(z > lo && z < hi) {
		z = 0.5 * (lo + hi)
	}
	for range 200 {
		c, pdf, dpdf := x.cdf(z)
		f := c - p
		if f == 0 {
			return z
		}
		if f < 0 {
			lo = z
		} else {
			hi = z
		}
		if hi-lo <= tol {
			break
		}
		h := f / pdf // Newton's step
		c2 := 0.5 * dpdf / pdf
		next := z - h/(1-h*c2) // Halley's
		if !(pdf > 0) || !(next > lo && next < hi) {
			z = 0.5 * (lo + hi)
			continue
		}
		if math.Abs(next-z) <= tol || (math.Abs(h) <= near && math.Abs(c2)*h*h <= tol) {
			return next
		}
		z = next
	}
	return 0.5 * (lo + hi)
}

// normalQuantile is the standard normal quantile function.
func normalQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }
