package subtemper

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/tempering"
)

// LogEvidence returns the fit's estimate of the log evidence log p(y)
// (tempering.Settings.Evidence) in the data's units: when the target was
// standardised, each level's log normaliser moves by −n_m·log(y SD), n_m
// the number of observations the level conditions on (β_m·N for PT, N_m
// for SPT), the Jacobian of the standardisation. It returns nil when the
// fit holds none (a run without Settings.Evidence, an interrupted or a
// loaded fit).
func (f *GPFit) LogEvidence() *tempering.Evidence {
	if f.Result == nil || f.Result.Evidence == nil {
		return nil
	}
	e := *f.Result.Evidence
	if f.Std.YSD == 0 || f.Std.YSD == 1 {
		return &e
	}
	ly := math.Log(f.Std.YSD)
	n := float64(f.Data.N)
	spt := f.Settings.Driver == tempering.SPT
	count := func(beta float64, size int) float64 {
		if spt {
			return float64(size)
		}
		return beta * n
	}
	shift := func(ce *tempering.ChainEvidence) {
		st := ce.Stages
		ce.Stages = make([]tempering.EvidenceStage, len(st))
		for m, s := range st {
			d := (count(s.BetaColder, s.SizeColder) - count(s.Beta, s.Size)) * ly
			s.Forward -= d
			s.Backward -= d
			ce.Stages[m] = s
		}
		if M := len(st); M > 0 {
			ce.Leg.LogZ -= count(st[M-1].Beta, st[M-1].Size) * ly
		}
	}
	chains := make([]tempering.ChainEvidence, len(e.Chains))
	for c := range chains {
		chains[c] = e.Chains[c]
		shift(&chains[c])
	}
	out, err := tempering.CombineEvidence(chains)
	if err != nil {
		return &e
	}
	return out
}

// LOOOptions configures GPFit.LOO. The zero value is valid.
type LOOOptions struct {
	// Draws is the number of draws used, the same number from each chain,
	// evenly spaced within it; 0 means all, up to MaxPredictDraws.
	Draws int
	// Workers is the number of goroutines (0: GOMAXPROCS).
	Workers int
}

// LOO estimates the fit's expected log pointwise predictive density for
// new data by leave-one-out cross-validation from the draws, by Pareto
// smoothed importance sampling (diag.PSISLOO): at each draw the GP's
// closed-form log p(y_i | y_−i, θ) (gp.Model.LOOLogDensities), in the
// data's units. Each point's Pareto tail is sized by its draws' relative
// efficiency across the chains (diag.PSISLOOChains). Its cost is one O(N³)
// factorisation and inverse per draw. Points with Pareto k̂ > 0.7
// (diag.LOO.KOver07) have unreliable estimates.
func (f *GPFit) LOO(ctx context.Context, opt LOOOptions) (*diag.LOO, error) {
	draws, chains := f.chainDraws(opt.Draws)
	if len(draws) < 2 {
		return nil, errors.New("subtemper: leave-one-out: the fit holds fewer than 2 draws")
	}
	base, err := f.Model()
	if err != nil {
		return nil, err
	}
	N := f.Data.N
	ll := make([][]float64, N)
	for i := range ll {
		ll[i] = make([]float64, len(draws))
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(draws))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		next = make(chan int)
	)
	shift := 0.0
	if f.Std.YSD != 0 {
		shift = math.Log(f.Std.YSD)
	}
	for range workers {
		m, err := base.Copy()
		if err != nil {
			return nil, fmt.Errorf("subtemper: leave-one-out: %w", err)
		}
		wg.Go(func() {
			defer m.Close()
			out := make([]float64, N)
			for s := range next {
				if err := m.LOOLogDensities(draws[s], out); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("draw %d: %w", s, err))
					mu.Unlock()
					continue
				}
				for i, v := range out {
					ll[i][s] = v - shift
				}
			}
		})
	}
feed:
	for s := range draws {
		select {
		case <-ctx.Done():
			break feed
		case next <- s:
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("subtemper: leave-one-out: %w", errors.Join(errs...))
	}
	return diag.PSISLOOChains(ll, chains)
}

// chainDraws returns up to k draws (0: MaxPredictDraws), the same number
// from each chain and evenly spaced within it, one chain after another,
// and the number of chains they come from.
func (f *GPFit) chainDraws(k int) ([][]float64, int) {
	if k <= 0 {
		k = MaxPredictDraws
	}
	var chains [][][]float64
	n := math.MaxInt
	for _, ch := range f.Draws {
		if len(ch) > 0 {
			chains = append(chains, ch)
			n = min(n, len(ch))
		}
	}
	if len(chains) == 0 {
		return nil, 0
	}
	n = min(n, max(1, k/len(chains)))
	var out [][]float64
	for _, ch := range chains {
		for i := range n {
			out = append(out, ch[i*len(ch)/n])
		}
	}
	return out, len(chains)
}
