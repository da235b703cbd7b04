package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/tempering"
)

var propPrefix = flag.String("prop.prefix", "0,4", "BenchmarkProposalFit: comma-separated divisors f of N: the proposal fitted first on a prefix of N/f observations (ProposalOptions.Prefix; 0: none)")

// BenchmarkProposalFit fits the large-fit path's independence proposal
// (WarmStart.FitProposal, as FitGP sets it) to the GP's posterior on the
// §4.2 generator at each N and D of -large.n and -large.dims (data seed
// -large.data, fit seed -large.seed), once for each -prop.prefix: all
// variants start from the same warm start (tempering.FindMode), and
// nothing is sampled. It reports each proposal's importance ESS fraction
// (ess; the chains' independence sampler runs from
// subtemper.MinProposalESS), its rounds on all observations, and its
// work, grad_equiv, in full-data gradients priced by the measured cost of
// each evaluation (MeasureCost): the full-data log densities and, with a
// prefix, the prefix's log densities and the gradients of the search for
// its power posterior's mode. Run it as BenchmarkLargeFit is run, e.g.
//
//	go test -tags openblas -run '^$' -bench ProposalFit -benchtime 1x ./bench/ -large.n 2048 -large.dims 8 -prop.prefix 0,4
func BenchmarkProposalFit(b *testing.B) {
	be, err := Backend("")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ApplyThreads(); err != nil {
		b.Fatal(err)
	}
	for _, dim := range ints(b, *largeDims) {
		for _, n := range ints(b, *largeNs) {
			b.Run(fmt.Sprintf("N=%d/D=%d", n, dim), func(b *testing.B) {
				proposalFits(b, be, n, dim)
			})
		}
	}
}

// proposalFits runs BenchmarkProposalFit's variants at one N and D.
func proposalFits(b *testing.B, be linalg.Backend, n, dim int) {
	ctx := context.Background()
	t, err := NewTarget(be, ModelGP, n, dim, *largeData)
	if err != nil {
		b.Fatal(err)
	}
	var sizes []int
	for _, f := range prefixDivisors(b) {
		if f > 0 {
			sizes = append(sizes, n/f)
		}
	}
	sizes = append(sizes, n)
	slices.Sort(sizes)
	cost, err := MeasureCost(ctx, t, slices.Compact(sizes), MeasureOptions{CPU: true, Mean: true, Rounds: 3, MinTime: 200 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	st := subtemper.DefaultGPSettings()
	if *largeSeed != 0 {
		st.Seed = *largeSeed
	}
	wo := subtemper.WarmStartOptions(st, true)
	po := *wo.Proposal
	wo.Proposal = nil
	ws, err := tempering.FindMode(ctx, t, wo)
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range prefixDivisors(b) {
		name := "prefix=none"
		o := po
		if f > 0 {
			o.Prefix = n / f
			name = fmt.Sprintf("prefix=N/%d", f)
		}
		b.Run(name, func(b *testing.B) {
			var p *tempering.Proposal
			var cpu float64
			for b.Loop() {
				c0, _ := tempering.ProcessCPU()
				if p, err = ws.FitProposal(ctx, t, o); err != nil {
					b.Fatal(err)
				}
				c1, _ := tempering.ProcessCPU()
				cpu = (c1 - c0).Seconds()
			}
			fmt.Fprintf(os.Stderr, "proposalfit N=%d D=%d %s: prefix rounds %+v (mode search %d gradients), rounds %+v, importance ESS %.3f\n",
				n, dim, name, p.PrefixRounds, p.PrefixGrads, p.Rounds, p.ImportanceESS)
			b.ReportMetric(p.ImportanceESS, "ess")
			b.ReportMetric(float64(len(p.Rounds)), "rounds")
			b.ReportMetric(proposalWork(p, n, cost), "grad_equiv")
			b.ReportMetric(cpu, "cpu_s")
		})
	}
}

// prefixDivisors returns -prop.prefix's divisors.
func prefixDivisors(b *testing.B) []int {
	var out []int
	for _, f := range strings.Split(*propPrefix, ",") {
		var v int
		if _, err := fmt.Sscan(f, &v); err != nil || v < 0 || v == 1 {
			b.Fatalf("bad -prop.prefix %q: want divisors ≥ 2, or 0 for none", *propPrefix)
		}
		out = append(out, v)
	}
	return out
}

// proposalWork returns the proposal fit's work in full-data gradients on
// n observations, each evaluation priced by cost: the full-data log
// densities and, with a prefix, the prefix's log densities and the
// gradients of the search for its power posterior's mode.
func proposalWork(p *tempering.Proposal, n int, cost Coster) float64 {
	work := float64(p.Evals()) * cost.Value(n)
	for _, r := range p.PrefixRounds {
		work += float64(r.Draws) * cost.Value(p.PrefixSize)
	}
	if p.PrefixSize > 0 {
		work += float64(p.PrefixGrads) * cost.Grad(p.PrefixSize)
	}
	return work / cost.Grad(n)
}
