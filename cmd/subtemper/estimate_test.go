package main

import (
	"math"
	"testing"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/tempering"
)

// TestWarmEstimateDevice: on the cuda backend the expected sampling time
// counts the device's time per evaluation (the measured one over the
// evaluations that shared the device then) once per chain, as worked out
// by hand here from the figures of a measured N = 16384 fit on a GPU: a
// log density of 633 ms with 16 sharing the device, 3 chains, IMH with
// one local step, 75 warm-up iterations and 450 expected draws.
func TestWarmEstimateDevice(t *testing.T) {
	st := &tempering.Settings{Sampler: tempering.Sampler{Kernel: tempering.Independence{Local: 1}},
		Control: tempering.Control{Chains: 3, Warmup: 75, Draws: 10000, Thin: 1}}
	ws := &warmInfo{SecondsPerGrad: 0.1, GradsAtOnce: 10,
		Proposal: &subtemper.ProposalReport{SecondsPerEval: 0.633, EvalsAtOnce: 16}}
	exp, most := warmEstimate(st, ws, 450, true)
	want := (75 + 450) * 2 * 0.633 * 3 / 16 // 124.6 s
	if math.Abs(exp.Seconds()-want) > 0.01 {
		t.Errorf("IMH on the device: expected %.2f s, want %.2f", exp.Seconds(), want)
	}
	if w := (75 + 10000) * 2 * 0.633 * 3 / 16; math.Abs(most.Seconds()-w) > 0.1 {
		t.Errorf("IMH on the device: longest %.1f s, want %.1f", most.Seconds(), w)
	}
	// The warm HMC kernel: warmLeapfrogs gradients per iteration.
	st.Kernel = nil
	exp, _ = warmEstimate(st, ws, 450, true)
	if want := (75 + 450) * warmLeapfrogs * 0.1 * 3 / 10; math.Abs(exp.Seconds()-want) > 0.01 {
		t.Errorf("HMC on the device: expected %.2f s, want %.2f", exp.Seconds(), want)
	}
	// A screen that passes 0.6 evaluations per iteration (measured on it
	// before sampling) prices an iteration at those.
	st.Kernel = tempering.Independence{Local: 1}
	ws.Proposal.EvalsPerIteration = 0.6
	exp, _ = warmEstimate(st, ws, 450, true)
	if want := (75 + 450) * 0.6 * 0.633 * 3 / 16; math.Abs(exp.Seconds()-want) > 0.01 {
		t.Errorf("screened IMH on the device: expected %.2f s, want %.2f", exp.Seconds(), want)
	}
	ws.Proposal.EvalsPerIteration = 0
	// Off the device the chains share the cores, each evaluation taking
	// the time measured: at least the device estimate's 16/3 times.
	st.Kernel = tempering.Independence{Local: 1}
	cpu, _ := warmEstimate(st, ws, 450, false)
	if cpu.Seconds() < (75+450)*2*0.633-0.01 {
		t.Errorf("IMH on the cores: expected %.2f s, want at least %.2f", cpu.Seconds(), (75+450)*2*0.633)
	}
}

// TestExpectedDrawsScreened sets the draws per chain the estimate expects
// of the screened independence sampler beside those the default's fits
// needed on the §4.2 generator (docs/LARGE.md: N = 1024, D = 3 and 8;
// N = 2048 and 4096, D = 8; importance ESS fraction, draws per chain at
// the stop): each within a factor of 3.5, the spread of fits between
// seeds.
func TestExpectedDrawsScreened(t *testing.T) {
	st := &tempering.Settings{Sampler: tempering.Sampler{Kernel: tempering.Independence{Local: 1, Screen: &tempering.Surrogate{}}},
		Control: tempering.Control{Chains: 3, Draws: 10000, Thin: 1, Stop: diag.StopRule{MinESS: 400}}}
	for _, m := range []struct {
		e     float64
		draws int
	}{{0.791, 250}, {0.771, 350}, {0.761, 350}, {0.378, 10000}, {0.380, 4500}, {0.272, 2900}, {0.349, 3100},
		{0.509, 2350}, {0.451, 2250}, {0.425, 1350}, {0.527, 1250}} {
		ws := &tempering.WarmStart{Proposal: &tempering.Proposal{ImportanceESS: m.e}}
		got := expectedDraws(st, 400, drawESS(st, ws))
		if r := float64(m.draws) / float64(got); r > 3.5 || r < 1/3.5 {
			t.Errorf("importance ESS %.3f: %d draws expected, %d measured", m.e, got, m.draws)
		}
	}
}
