package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/tempering"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
)

// isReference is a reference for a fit's posterior means that no Markov
// chain made: self-normalised importance sampling of the posterior from a
// defensive mixture of two Student-t, half the proposal a warm start fits
// (WarmStart.FitProposal) and half the same t with twice its spread. Its
// error is computable from the weights, so a fit's means can be judged
// against it in combined standard errors.
type isReference struct {
	Means, SE []float64 // posterior means of u and their standard errors
	RawMeans  []float64 // the same means from the raw weights, before PSIS smooths them
	Draws     int
	ESS       float64 // the importance weights' effective sample size
	K         float64 // PSIS's Pareto k̂ of the log weights: above 0.7 the reference is unreliable
	CPU       float64 // process CPU-seconds spent on it
}

// newISReference draws k points from the mixture around the proposal of a
// warm start of t with fit seed seed and weighs each by the posterior
// (one full-data log density each, evaluated on one clone of t per CPU).
func newISReference(ctx context.Context, t tempering.Target, k int, seed uint64) (*isReference, error) {
	cpu0, _ := tempering.ProcessCPU()
	st := subtemper.DefaultGPSettings()
	st.Seed = seed
	ws, err := tempering.FindMode(ctx, t, subtemper.WarmStartOptions(st, true))
	if err != nil {
		return nil, err
	}
	p := ws.Proposal
	if p == nil || !ws.Unimodal() {
		return nil, fmt.Errorf("reference: the warm start found %d modes and no proposal", ws.Modes)
	}
	var tr tempering.Transform = tempering.Identity{}
	if p.Transform != nil {
		tr = p.Transform
	}
	d := len(p.Center)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	comps := make([]*distmv.StudentsT, 2)
	for i, widen := range []float64{1, 4} {
		s := mat.NewSymDense(d, nil)
		for r := range d {
			for c := r; c < d; c++ {
				s.SetSym(r, c, widen*p.Scale*p.Cov[r*d+c])
			}
		}
		var ok bool
		if comps[i], ok = distmv.NewStudentsT(p.Center, s, p.DF, rng); !ok {
			return nil, errors.New("reference: the proposal's scale matrix is not positive definite")
		}
	}
	vs := make([][]float64, k)
	lq := make([]float64, k)
	for i := range vs {
		vs[i] = comps[rng.IntN(2)].Rand(nil)
		lq[i] = logMix(comps, vs[i])
	}
	lp, err := logPostsV(ctx, tempering.Reparam(t, tr), vs)
	if err != nil {
		return nil, err
	}
	lr := make([]float64, k)
	for i := range lr {
		lr[i] = lp[i] - lq[i]
	}
	us := make([][]float64, k)
	for i, v := range vs {
		us[i] = make([]float64, d)
		tr.ToTarget(v, us[i])
	}
	lw, khat := diag.PSIS(lr)
	ref := weighedMeans(lw, us)
	ref.K = khat
	ref.RawMeans = weighedMeans(lr, us).Means
	cpu1, _ := tempering.ProcessCPU()
	ref.CPU = (cpu1 - cpu0).Seconds()
	return ref, nil
}

// logMix is the log density of the equal mixture of comps at v.
func logMix(comps []*distmv.StudentsT, v []float64) float64 {
	a, b := comps[0].LogProb(v), comps[1].LogProb(v)
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a)) - math.Ln2
}

// logPostsV returns t's log posterior at each of vs, −∞ where it fails,
// evaluated on one clone of t per CPU.
func logPostsV(ctx context.Context, t tempering.Target, vs [][]float64) ([]float64, error) {
	clones := make([]tempering.Target, runtime.GOMAXPROCS(0))
	defer func() {
		for _, c := range clones {
			if cl, ok := c.(io.Closer); ok {
				cl.Close()
			}
		}
	}()
	for w := range clones {
		c, err := t.Clone()
		if err != nil {
			return nil, err
		}
		clones[w] = c
	}
	lp := make([]float64, len(vs))
	next := make(chan int)
	var wg sync.WaitGroup
	for _, c := range clones {
		wg.Go(func() {
			for i := range next {
				l, err := c.LogLik(nil, vs[i], nil)
				if err != nil {
					l = math.Inf(-1)
				}
				lp[i] = l + c.LogPrior(vs[i], nil)
			}
		})
	}
	for i := range vs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return lp, ctx.Err()
}

// weighedMeans returns the self-normalised importance estimates of the
// means of the draws us under the log weights lw, with the delta method's
// standard errors, √(Σw²(u−μ)²)/Σw.
func weighedMeans(lw []float64, us [][]float64) *isReference {
	d := len(us[0])
	w := tempering.NormalisedWeights(lw)
	var sw2 float64
	for _, x := range w {
		sw2 += x * x
	}
	ref := &isReference{Means: make([]float64, d), SE: make([]float64, d), Draws: len(us), ESS: 1 / sw2}
	for i, u := range us {
		for j, x := range u {
			ref.Means[j] += w[i] * x
		}
	}
	for i, u := range us {
		for j, x := range u {
			e := w[i] * (x - ref.Means[j])
			ref.SE[j] += e * e
		}
	}
	for j := range ref.SE {
		ref.SE[j] = math.Sqrt(ref.SE[j])
	}
	return ref
}

// zScores returns each of e's posterior means' distance from ref's in
// combined standard errors, (mean − ref)/√(MCSE² + SE²), and the largest
// in absolute value.
func (ref *isReference) zScores(e *Efficiency) (z []float64, most float64) {
	z = make([]float64, len(ref.Means))
	for j := range z {
		z[j] = (e.Means[j] - ref.Means[j]) / math.Hypot(e.MCSE[j], ref.SE[j])
		most = max(most, math.Abs(z[j]))
	}
	return z, most
}

// printReference writes ref to stderr.
func printReference(n int, ref *isReference) {
	fmt.Fprintf(os.Stderr, "reference N=%d: %d importance draws, ESS %.0f, Pareto k %.3f, cpu %.1f s\nreference N=%d: means %.5f\nreference N=%d: se %.5f\nreference N=%d: raw weights' means %.5f\n",
		n, ref.Draws, ref.ESS, ref.K, ref.CPU, n, ref.Means, n, ref.SE, n, ref.RawMeans)
}
