package bench

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/tempering"
)

// The cases and methods of BenchmarkLargeFit.
var (
	largeNs       = flag.String("large.n", "256,512,1024,2048", "BenchmarkLargeFit: comma-separated N of the synthetic cases")
	largeDims     = flag.String("large.dims", "3,8", "BenchmarkLargeFit: comma-separated D of the synthetic cases")
	largeLength   = flag.Float64("large.length", 1.5, "BenchmarkLargeFit: warm-len's integration time")
	largeWarmup   = flag.Int("large.warmup", 0, "BenchmarkLargeFit: warm methods' warm-up iterations (0: tempering.WarmStartWarmup)")
	largeIMHDF    = flag.Float64("large.imhdf", 0, "BenchmarkLargeFit: warm's independence proposal's degrees of freedom (0: as fitted)")
	largeWide     = flag.Float64("large.wide", -1, "BenchmarkLargeFit: warm's independence proposal's wide weight (<0: the default)")
	largeLocal    = flag.Int("large.local", -1, "BenchmarkLargeFit: warm's independence kernel's local steps (<0: the default)")
	largeForce    = flag.Bool("large.forceimh", false, "BenchmarkLargeFit: warm samples with the fitted independence proposal whatever its importance ESS")
	largeScreen   = flag.Bool("large.screen", true, "BenchmarkLargeFit: warm's independence kernel screens its proposals by delayed acceptance on the surrogate fitted with the proposal (Independence.Screen), as the default does; false: no screen")
	surSteps      = flag.Int("large.sursteps", 0, "BenchmarkLargeFit: warm-sur's surrogate steps per transition (0: the kernel's default)")
	surLocal      = flag.Int("large.surlocal", 0, "BenchmarkLargeFit: warm-sur's exact local steps per transition")
	surNear       = flag.Float64("large.surnear", 0, "BenchmarkLargeFit: warm-sur's probability of a near (one-step) surrogate chain")
	largeSplit    = flag.Bool("large.split", false, "BenchmarkLargeFit: warm and warm-sur fit a split-t proposal (ProposalOptions.Split)")
	largeBTail    = flag.Float64("large.btail", 0, "BenchmarkLargeFit: warm's and warm-sur's proposal space, gp.VarianceSplitTail of scale this multiple of b's Laplace sd (0: gp.VarianceSplit's, the default's)")
	largeTailGate = flag.Bool("large.tailgate", false, "BenchmarkLargeFit: warm's and warm-sur's proposal space chosen by subtemper.VarianceSplitTail (b's lower tail compressed where it is heavy)")
	largeProfile  = flag.Bool("large.profile", false, "BenchmarkLargeFit: print the log posterior along each of gp.VarianceSplit's two coordinates from the mode")
	largeSeed     = flag.String("large.seed", "", "BenchmarkLargeFit: the fits' seeds, comma-separated, each method fitted once per seed (empty: DefaultGPSettings')")
	largeData     = flag.Uint64("large.data", 1, "BenchmarkLargeFit: the synthetic data's seed")
	largeRef      = flag.Int("large.reference", 0, "BenchmarkLargeFit: importance draws of a reference for the posterior means (0: none), against which each fit reports max_z, its means' largest distance in combined standard errors")
	largeRefSeed  = flag.Uint64("large.refseed", 1000, "BenchmarkLargeFit: the reference's fit seed (its warm start and draws)")
	largeMinESS   = flag.Float64("large.miness", 0, "BenchmarkLargeFit: the stop rule's least bulk- and tail-ESS (0: subtemper.DefaultMinESS)")
	largeCSV      = flag.String("large.csv", "", "BenchmarkLargeFit: fit the GP of this CSV file's data (last column the target, standardised) in place of the synthetic cases")
	largeTest     = flag.String("large.test", "", "BenchmarkLargeFit: with -large.csv, warm-is prints the held-out metrics of this CSV file's targets (1000 draws resampled from its weighted sample)")
	largeBatch    = flag.Int("large.batch", 0, "BenchmarkLargeFit: warm-is's batch size (0: tempering.ImportanceOptions' default)")
	largeAdapt    = flag.Bool("large.adapt", false, "BenchmarkLargeFit: warm-is refits its proposal after each batch (tempering.ImportanceOptions.Adapt)")
	largeMixture  = flag.Int("large.mixture", 0, "BenchmarkLargeFit: warm-is's refits are a mixture of this many t's beside the single one (tempering.ImportanceOptions.Mixture; 0: the single t)")
	largeCorners  = flag.Bool("large.corners", true, "BenchmarkLargeFit: warm-is mixes the warm start's corners into every proposal (tempering.ImportanceOptions.Corners) and, where there are any, refits as the default does (subtemper.ImportanceRefits) whatever -large.mixture says")
	largeClimbs   = flag.Int("large.climbs", subtemper.ImportanceClimbs, "BenchmarkLargeFit: warm-is climbs from heavy draws to modes its proposals miss, at most this many times (tempering.ImportanceOptions.Climbs)")
	largeReuse    = flag.Bool("large.reuse", true, "BenchmarkLargeFit: warm-is weighs the proposal fit's draws into its sample (tempering.ImportanceOptions.Reuse)")
	largeMethods  = flag.String("large.methods", "default,warm", "BenchmarkLargeFit: comma-separated methods (fitgp, default, warm, warm-hmc, warm-log, warm-imh, warm-nuts, warm-len, warm-dense, warm-sur, warm-is)")
)

// BenchmarkLargeFit fits the GP's hyperparameters on the paper's §4.2
// generator (data seed 1) at each N and D of -large.n and -large.dims, by
// each method of -large.methods, one whole fit per iteration:
//
//   - fitgp: subtemper.FitGP itself, what `subtemper gp` runs with no
//     tuning flags: below subtemper.WarmStartMinN the default below,
//     from it the warm start and importance sampling, with every option
//     as FitGP sets it (frontDoorFit).
//   - default: DefaultGPSettings from the prior-mean starts (θ*, θ*/2,
//     2θ*): PT with HMC at the target and MH above, 400 warm-up
//     iterations, sampling stopped once every ESS ≥ 400 and R̂ < 1.01.
//   - warm: the large-fit path as FitGP runs it: tempering.FindMode (the
//     MAP by L-BFGS on nested subsets, the Laplace approximation at the
//     full data), then subtemper.WarmSettings: on one mode the kernel
//     alone from over-dispersed starts around the mode, with the
//     independence kernel from the proposal fitted by importance sampling
//     (WarmStart.FitProposal) where its importance ESS reaches
//     subtemper.MinProposalESS, else tempering.WarmKernel with the Laplace
//     covariance as metric; tempering.WarmStartWarmup warm-up iterations;
//     on more modes, DefaultGPSettings unchanged. The same stop rule.
//   - warm-hmc: warm without the fitted independence proposal: on one
//     mode always tempering.WarmKernel.
//   - warm-log: warm-hmc with the chains in u = log θ itself rather than in
//     gp.VarianceSplit's space.
//   - warm-imh, warm-nuts, warm-len, warm-dense: warm with, on one mode,
//     independence MH from the Laplace approximation, NUTS, HMC of
//     integration time -large.length, or the warm kernel adapting a dense
//     metric from the Laplace covariance instead of keeping it
//     (-large.warmup sets their warm-up).
//   - warm-sur: warm with, on one mode, tempering.SurrogateTransition on
//     the surrogate fitted with the proposal (ProposalOptions.Surrogate;
//     -large.sursteps, -large.surlocal, -large.surnear).
//   - warm-is: warm's warm start and proposal, then no chains: importance
//     sampling from the independence kernel warm would sample with
//     (tempering.ImportanceSample), until every parameter's ESS of its
//     mean and of both its tails reaches the stop rule's with a Pareto k̂
//     of at most 0.7 (reported as max_rhat).
//
// -large.split makes warm's and warm-sur's proposal a split-t
// (ProposalOptions.Split); -large.btail m fits it, and runs the chains,
// in gp.VarianceSplitTail's space with the scale m times b's Laplace sd;
// -large.tailgate lets subtemper.VarianceSplitTail choose (b's lower tail
// compressed where it is heavy); -large.profile prints the log posterior
// along the chains' last two coordinates from the mode. -large.reference K
// first computes a reference for the posterior means by importance
// sampling, K full-data log densities (isReference), and each fit then
// reports max_z, its means' largest distance from the reference's in
// combined standard errors. -large.csv FILE fits the GP of a data set
// (the last column the target, standardised as `subtemper gp
// --standardize` does) in place of the synthetic cases.
//
// It reports grad_equiv, the fit's counted work priced by the measured
// cost c(N_m) of each evaluation (MeasureCost) in full-data gradient
// evaluations, which does not depend on the machine; cpu_s, the process's
// CPU time for the whole fit (warm start included); the verdict (every R̂
// < 1.01 and bulk- and tail-ESS ≥ 400: converged = 1) with max_rhat,
// min_essbulk and min_esstail; and the warm start's share. Run it with
// -benchtime 1x and one BLAS thread per chain, e.g.
//
//	go test -tags openblas -run '^$' -bench 'LargeFit' -benchtime 1x -timeout 6h ./bench/ -large.n 1024 -large.dims 3
func BenchmarkLargeFit(b *testing.B) {
	be, err := Backend("")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ApplyThreads(); err != nil {
		b.Fatal(err)
	}
	if *largeCSV != "" {
		t, err := csvTarget(be, *largeCSV)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("csv=%s/N=%d/D=%d", filepath.Base(*largeCSV), t.NumObs(), t.Dim()-2), func(b *testing.B) { largeCase(b, t) })
		return
	}
	for _, dim := range ints(b, *largeDims) {
		for _, n := range ints(b, *largeNs) {
			b.Run(fmt.Sprintf("N=%d/D=%d", n, dim), func(b *testing.B) {
				t, err := NewTarget(be, ModelGP, n, dim, *largeData)
				if err != nil {
					b.Fatal(err)
				}
				largeCase(b, t)
			})
		}
	}
}

// csvFit is the fit of -large.csv's data before sampling (its model is
// the target), through which warm-is predicts -large.test's targets.
var csvFit *subtemper.GPFit

// csvTarget returns the GP of the data in the CSV file at path (the last
// column the target), standardised as `subtemper gp --standardize` does,
// with the default prior, kernel and jitter, and sets csvFit.
func csvTarget(be linalg.Backend, path string) (tempering.Target, error) {
	data, err := gp.ReadCSVFile(path, gp.CSVOptions{})
	if err != nil {
		return nil, err
	}
	_, std, err := gp.Standardize(data, true, true)
	if err != nil {
		return nil, err
	}
	pr, err := gp.Prior{}.WithDefaults()
	if err != nil {
		return nil, err
	}
	csvFit = &subtemper.GPFit{Data: data, Std: std, Prior: pr, Backend: be.Name()}
	return csvFit.Model()
}

// heldOut prints the posterior's medians and 90% intervals in the data's
// units and the held-out metrics of -large.test's targets under the
// posterior predictive, both from 1000 draws resampled from res.
func heldOut(ctx context.Context, res *tempering.ImportanceResult, seed uint64) error {
	if *largeTest == "" || csvFit == nil {
		return nil
	}
	td, err := subtemper.ReadTestCSV(*largeTest, csvFit.Data.Names, csvFit.Data.Target)
	if err != nil {
		return err
	}
	csvFit.Draws = [][][]float64{res.Resample(rand.New(rand.NewPCG(seed, 2)), 1000)}
	sum, err := csvFit.Summary()
	if err != nil {
		return err
	}
	for _, v := range sum {
		// Quantiles only: the summary's R-hat and ESS mean nothing for
		// resampled draws.
		fmt.Fprintf(os.Stderr, "resampled %-12s median %.4g, 90%% interval [%.4g, %.4g]\n", v.Name, v.Median, v.Q5, v.Q95)
	}
	p, err := csvFit.Predict(ctx, td.X, len(td.Y), subtemper.PredictOptions{Y: td.Y})
	if err != nil {
		return err
	}
	m, err := p.Metrics(td.Y)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "held-out (%d points, 1000 resampled draws): RMSE %.4f, MLPD %.4f, coverage 50%% %.3f, 90%% %.3f\n", m.N, m.RMSE, m.MLPD, m.Coverage50, m.Coverage90)
	return nil
}

// largeCase fits t by each method and seed, after measuring its costs
// (and computing the reference, where asked).
func largeCase(b *testing.B, t tempering.Target) {
	n := t.NumObs()
	sizes := []int{n}
	for s := n / 2; s >= 256; s /= 2 {
		sizes = append([]int{s}, sizes...)
	}
	cost, err := MeasureCost(context.Background(), t, sizes, MeasureOptions{CPU: true, Mean: true, Rounds: 3, MinTime: 200 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	var ref *isReference
	if *largeRef > 0 {
		if ref, err = newISReference(context.Background(), t, *largeRef, *largeRefSeed); err != nil {
			b.Fatal(err)
		}
		printReference(n, ref)
	}
	seeds := []uint64{0}
	if *largeSeed != "" {
		seeds = seedList(b, *largeSeed)
	}
	for _, run := range fitRuns(*largeMethods, seeds) {
		b.Run(run.name, func(b *testing.B) {
			var r *largeFitResult
			for b.Loop() {
				if r, err = largeFit(t, run.method, run.seed, cost); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(r.gradEquiv, "grad_equiv")
			b.ReportMetric(r.warmEquiv, "warm_grad_equiv")
			b.ReportMetric(r.cpu, "cpu_s")
			b.ReportMetric(r.warmCPU, "warm_cpu_s")
			b.ReportMetric(b2f(r.eff.Converged && r.eff.MinESSBulk >= 400 && r.eff.MinESSTail >= 400), "converged")
			b.ReportMetric(r.eff.MaxRhat, "max_rhat")
			b.ReportMetric(r.eff.MinESSBulk, "min_essbulk")
			b.ReportMetric(r.eff.MinESSTail, "min_esstail")
			b.ReportMetric(float64(r.draws), "draws")
			b.ReportMetric(float64(r.levels), "levels")
			b.ReportMetric(float64(r.modes), "modes")
			if ref != nil {
				z, most := ref.zScores(r.eff)
				fmt.Fprintf(os.Stderr, "largefit N=%d %s: z against the reference %.2f\n", n, run.name, z)
				b.ReportMetric(most, "max_z")
			}
		})
	}
}

func b2f(v bool) float64 {
	if v {
		return 1
	}
	return 0
}

func ints(b *testing.B, s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		var v int
		if _, err := fmt.Sscan(f, &v); err != nil || v < 1 {
			b.Fatalf("bad list %q", s)
		}
		out = append(out, v)
	}
	return out
}

type largeFitResult struct {
	gradEquiv, warmEquiv float64
	cpu, warmCPU         float64
	eff                  *Efficiency
	draws, levels, modes int
}

// fitRun is one fit of BenchmarkLargeFit: a method and a seed (0: the
// default settings'), named method=M, or method=M/seed=S where several
// seeds are given.
type fitRun struct {
	name, method string
	seed         uint64
}

// fitRuns returns each method of the comma-separated methods fitted with
// each seed.
func fitRuns(methods string, seeds []uint64) []fitRun {
	var runs []fitRun
	for _, m := range strings.Split(methods, ",") {
		for _, s := range seeds {
			name := "method=" + m
			if len(seeds) > 1 {
				name += fmt.Sprintf("/seed=%d", s)
			}
			runs = append(runs, fitRun{name: name, method: m, seed: s})
		}
	}
	return runs
}

// seedList parses a comma-separated list of seeds.
func seedList(b *testing.B, s string) []uint64 {
	var out []uint64
	for _, v := range ints(b, s) {
		out = append(out, uint64(v))
	}
	return out
}

// largeFit makes one fit of t by method and prices its work with cost.
func largeFit(t tempering.Target, method string, seed uint64, cost Coster) (*largeFitResult, error) {
	if method == "fitgp" {
		return frontDoorFit(t, seed, cost)
	}
	ctx := context.Background()
	st := subtemper.DefaultGPSettings()
	st.Stop = diag.StopRule{MinESS: cmp.Or(*largeMinESS, subtemper.DefaultMinESS), Transform: diag.ExpTransform}
	if seed != 0 {
		st.Seed = seed
	}
	r := &largeFitResult{}
	fmt.Fprintf(os.Stderr, "largefit N=%d: method %s, seed %d\n", t.NumObs(), method, st.Seed)
	cpu0, _ := tempering.ProcessCPU()
	n := t.NumObs()
	if method != "default" {
		wo := subtemper.WarmStartOptions(st, method == "warm" || method == "warm-sur" || method == "warm-is")
		if method == "warm-sur" && wo.Proposal != nil {
			wo.Proposal.Surrogate = true
		}
		if wo.Proposal != nil {
			wo.Proposal.Split = *largeSplit
			// As FitGP: the corners and the other modes' Laplace
			// approximations are importance sampling's alone.
			wo.NoCorners, wo.AllModes = method != "warm-is", method == "warm-is"
		}
		if po := wo.Proposal; po != nil && (*largeBTail > 0 || *largeTailGate) {
			po.TransformAt = subtemper.VarianceSplitTail
			if m := *largeBTail; m > 0 {
				po.TransformAt = func(_ context.Context, _ tempering.Target, mode, cov []float64) (tempering.Transform, int, error) {
					tr, err := gp.NewVarianceSplitTail(mode, cov, m)
					return tr, 0, err
				}
			}
		}
		ws, err := tempering.FindMode(ctx, t, wo)
		if err != nil {
			return nil, err
		}
		var profileTr tempering.Transform = gp.VarianceSplit{}
		if p := ws.Proposal; p != nil && p.Transform != nil {
			profileTr = p.Transform
			if tr, ok := p.Transform.(gp.VarianceSplitTail); ok {
				fmt.Fprintf(os.Stderr, "variance split tail: centre %.4f scale %.4f\n", tr.Center, tr.Scale)
			}
		}
		r.warmEquiv = warmWork(ws, cost, n)
		if p := ws.Proposal; p != nil {
			fmt.Fprintf(os.Stderr, "proposal: rounds %+v split %.2f\n", p.Rounds, p.Split)
		}
		cpu1, _ := tempering.ProcessCPU()
		r.warmCPU = (cpu1 - cpu0).Seconds()
		r.modes = ws.Modes
		fmt.Fprintf(os.Stderr, "warm start: %+v modes %d optima %v mode %v sd %v wall %v\n", ws.Stages, ws.Modes, ws.OptimaLogPos, ws.Mode, ws.SD(), ws.Wall)
		if *largeProfile {
			printProfile(t, ws, profileTr)
		}
		if method == "warm-is" {
			return importanceFit(ctx, t, ws, st, cost, r, cpu0)
		}
		st = subtemper.WarmSettings(st, ws, false)
		if p := ws.Proposal; *largeForce && p != nil && ws.Unimodal() {
			if _, ok := st.Kernel.(tempering.Independence); !ok {
				st.Kernel = subtemper.IndependenceKernel(p)
				st.Draws = max(st.Draws, subtemper.IndependenceDraws)
				ws.Apply(&st)
			}
		}
		if k, ok := st.Kernel.(tempering.Independence); ok && method == "warm" {
			if *largeIMHDF > 0 {
				k.DF = *largeIMHDF
			}
			if *largeWide >= 0 {
				k.Wide = *largeWide
			}
			if *largeLocal >= 0 {
				k.Local = *largeLocal
			}
			if !*largeScreen {
				k.Screen = nil
			}
			st.Kernel = k
			fmt.Fprintf(os.Stderr, "independence kernel: DF %v, wide %v, local %d, screened %v\n", k.DF, k.Wide, k.Local, k.Screen != nil)
		}
		if p := ws.Proposal; method == "warm-sur" && ws.Unimodal() && p != nil && p.Surrogate != nil {
			st.Kernel = tempering.SurrogateTransition{Surrogate: p.Surrogate, Steps: *surSteps, Local: *surLocal, Near: *surNear}
			st.Transform, st.Draws, st.Warmup = p.Transform, subtemper.IndependenceDraws, *largeWarmup
			ws.Apply(&st)
		}
		if ws.Unimodal() && method != "warm" && method != "warm-sur" {
			st.Kernel, st.Warmup = nil, 0
			switch method {
			case "warm-hmc", "warm-dense":
			case "warm-log":
				// The warm path in the sampling space u = log θ itself.
				st.Transform = nil
			case "warm-imh":
				st.Kernel = tempering.Independence{}
			case "warm-nuts":
				st.Kernel = tempering.NUTS{}
			case "warm-len":
				st.Kernel = tempering.HMC{Length: *largeLength, Jitter: 0.2}
			default:
				return nil, fmt.Errorf("unknown method %q", method)
			}
			if *largeWarmup > 0 {
				st.Warmup = *largeWarmup
			}
			ws.Apply(&st)
			if method == "warm-dense" {
				// Apply's kernel, adapting a dense metric from the
				// Laplace covariance instead of keeping it.
				st.Kernel = tempering.HMC{Length: 1.5, Jitter: 0.2, Adapt: tempering.AdaptDense}
			}
		}
	}
	e, res, err := Measure(ctx, t, &st)
	if err != nil {
		return nil, err
	}
	cpu2, _ := tempering.ProcessCPU()
	r.cpu = (cpu2 - cpu0).Seconds()
	levels := append(append([]tempering.LevelStats(nil), res.Stats.Retired...), res.Stats.Levels...)
	r.gradEquiv = r.warmEquiv + Predict(levels, cost)/cost.Grad(n)
	r.levels = len(res.Betas)
	r.draws = len(res.Draws[0])
	r.eff = e
	fmt.Fprintf(os.Stderr, "largefit N=%d %s: %d draws/chain, levels %d, modes %d, grad-equiv %.0f (warm %.0f), cpu %.1f s (warm %.1f), R-hat %.4f, ESS %.0f/%.0f, tunings %v\n",
		n, method, r.draws, r.levels, r.modes, r.gradEquiv, r.warmEquiv, r.cpu, r.warmCPU, e.MaxRhat, e.MinESSBulk, e.MinESSTail, res.Tunings[0][0].StepSize)
	// The posterior means of u and their MCSE, to set methods side by side.
	fmt.Fprintf(os.Stderr, "largefit N=%d %s: means %.5f\nlargefit N=%d %s: mcse %.5f\n", n, method, e.Means, n, method, e.MCSE)
	fmt.Fprintf(os.Stderr, "largefit N=%d %s: bulk-ESS %.0f\nlargefit N=%d %s: tail-ESS %.0f\n", n, method, e.ESSBulks, n, method, e.ESSTails)
	return r, nil
}

// importanceFit completes largeFit's warm-is: self-normalised importance
// sampling from the independence kernel the default would sample with
// (subtemper.IndependenceKernel of the fitted proposal, -large.wide and
// -large.imhdf overriding its wide weight and degrees of freedom) until every parameter's ESS of its mean
// and of both tails reaches the stop rule's (tempering.ImportanceSample).
// It reports the Pareto k̂ as max_rhat and the proposals drawn as draws.
func importanceFit(ctx context.Context, t tempering.Target, ws *tempering.WarmStart, st tempering.Settings, cost Coster, r *largeFitResult, cpu0 time.Duration) (*largeFitResult, error) {
	p := ws.Proposal
	if p == nil {
		return nil, fmt.Errorf("warm-is: the warm start found %d modes and fitted no proposal", ws.Modes)
	}
	k := subtemper.IndependenceKernel(p)
	if *largeWide >= 0 {
		k.Wide = *largeWide
	}
	if *largeIMHDF > 0 {
		k.DF = *largeIMHDF
	}
	n := t.NumObs()
	minESS := cmp.Or(*largeMinESS, subtemper.DefaultMinESS)
	var reuse *tempering.Proposal
	if *largeReuse {
		reuse = p
	}
	var corners []tempering.Corner
	mixture := *largeMixture
	if *largeCorners && len(ws.Corners) > 0 {
		corners, mixture = ws.Corners, subtemper.ImportanceRefits(ws)
	}
	res, err := tempering.ImportanceSample(ctx, t, k, p.Transform, tempering.ImportanceOptions{Seed: st.Seed, MinESS: minESS, Reuse: reuse, Adapt: *largeAdapt, Batch: *largeBatch, Mixture: mixture, Corners: corners, Climbs: *largeClimbs, Mode: ws.Mode,
		Batched: func(b *tempering.ImportanceResult) {
			fmt.Fprintf(os.Stderr, "importance: %d draws, ESS %.0f, k %.3f, min ESS %.0f, proposals %d\n", len(b.Draws), b.ESS, b.K, b.MinESS(), b.Components)
		}})
	if err != nil {
		return nil, err
	}
	cpu2, _ := tempering.ProcessCPU()
	r.cpu = (cpu2 - cpu0).Seconds()
	r.draws = len(res.Draws)
	// The reused draws' evaluations are in the warm start's work.
	r.gradEquiv = r.warmEquiv + float64(r.draws-res.Reused)*cost.Value(n)/cost.Grad(n) + float64(res.ClimbEvals)
	r.eff = &Efficiency{MinESSBulk: slices.Min(res.ESSBulk), MinESSTail: slices.Min(res.ESSTail), MaxRhat: res.K, Converged: res.Converged,
		Means: res.Means, MCSE: res.SE, ESSBulks: res.ESSBulk, ESSTails: res.ESSTail}
	fmt.Fprintf(os.Stderr, "largefit N=%d warm-is: %d corners, non-Gaussian %v, %d climbs, modes found %.4f\n", n, len(corners), ws.NonGaussian, res.Climbs, res.Modes)
	fmt.Fprintf(os.Stderr, "largefit N=%d warm-is: %d draws (%d reused), wide %v, ESS %.0f, Pareto k %.3f, grad-equiv %.0f (warm %.0f), cpu %.1f s (warm %.1f), converged %v\n",
		n, r.draws, res.Reused, k.Wide, res.ESS, res.K, r.gradEquiv, r.warmEquiv, r.cpu, r.warmCPU, res.Converged)
	fmt.Fprintf(os.Stderr, "largefit N=%d warm-is: means %.5f\nlargefit N=%d warm-is: se %.5f\n", n, res.Means, n, res.SE)
	fmt.Fprintf(os.Stderr, "largefit N=%d warm-is: bulk-ESS %.0f\nlargefit N=%d warm-is: tail-ESS %.0f\n", n, res.ESSBulk, n, res.ESSTail)
	return r, heldOut(ctx, res, st.Seed)
}

// printProfile prints, to stderr, subtemper.TailFall, and the fall of t's
// log posterior in the chains' space of tr (gp.VarianceSplit's or gp.VarianceSplitTail's),
// Jacobian included, from the warm start's mode along each of the last
// two coordinates, a = ½log(σf²+σn²) and b = log(σn²/σf²) (w for the
// tail's), the others held at the mode.
func printProfile(t tempering.Target, ws *tempering.WarmStart, tr tempering.Transform) {
	if fall, _, err := subtemper.TailFall(context.Background(), t, ws.Mode, ws.Cov); err == nil {
		fmt.Fprintf(os.Stderr, "profile: b falls %.2f nats at %g Laplace sd below the mode (a Gaussian: %g; subtemper.TailFall)\n", fall, subtemper.TailAt, subtemper.TailAt*subtemper.TailAt/2)
	}
	ch := tempering.Reparam(t, tr)
	v := make([]float64, len(ws.Mode))
	tr.FromTarget(ws.Mode, v)
	lp := func(x []float64) float64 {
		ll, err := ch.LogLik(nil, x, nil)
		if err != nil {
			return math.Inf(-1)
		}
		return ll + ch.LogPrior(x, nil)
	}
	top := lp(v)
	names := []string{"a", "b"}
	if _, ok := tr.(gp.VarianceSplitTail); ok {
		names[1] = "w"
	}
	for i, name := range names {
		k := len(v) - 2 + i
		for _, d := range []float64{-8, -6, -4, -2, -1, 1, 2} {
			x := slices.Clone(v)
			x[k] += d
			fmt.Fprintf(os.Stderr, "profile: %s %+g from the mode (%.3f): log posterior %+.2f\n", name, d, v[k], lp(x)-top)
		}
	}
}
