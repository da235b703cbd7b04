package main

import (
	"math"
	"testing"

	"github.com/subtemper/subtemper"
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
