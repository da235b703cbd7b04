package main

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
	"github.com/subtemper/subtemper/tempering"
)

// TestFlagDefaultsAreTheLibrarys: with no flags, gp and mvn sample with
// subtemper.DefaultGPSettings, field by field once zero fields take
// tempering's defaults (the CLI writes every value out).
func TestFlagDefaultsAreTheLibrarys(t *testing.T) {
	var g gpFlags
	var m mvnFlags
	for _, c := range []struct {
		name  string
		fs    *flagSet
		flags *samplerFlags
	}{{"gp", gpFlagSet(&g), &g.samplerFlags}, {"mvn", mvnFlagSet(&m), &m.samplerFlags}} {
		if _, err := c.fs.parse(nil, io.Discard); err != nil {
			t.Fatal(err)
		}
		got, _, err := c.flags.check()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := subtemper.DefaultGPSettings()
		type run struct {
			Driver                                    tempering.Driver
			Swap                                      tempering.SwapSchedule
			Ladder                                    tempering.LadderMode
			Levels, Warmup, Draws, Chains, Thin, Base int
			BetaMin, MinESS                           float64
			Seed                                      uint64
			Kernel                                    tempering.Kernel
		}
		view := func(s *tempering.Settings) run {
			r := run{s.Driver, s.Swap, s.Ladder, s.Levels, s.Warmup, s.Draws, s.Chains, or(s.Thin, 1), or(s.BaseSteps, tempering.DefaultBaseSteps),
				or(s.BetaMin, tempering.DefaultBetaMin), 0, s.Seed, resolvedKernel(s.Kernel)}
			if rule, ok := s.Stop.(diag.StopRule); ok {
				r.MinESS = rule.MinESS
			}
			return r
		}
		if g, w := view(got), view(&want); !reflect.DeepEqual(g, w) {
			t.Errorf("%s's default flags give\n%+v\nDefaultGPSettings is\n%+v", c.name, g, w)
		}
	}
}

// or returns v, or def when v is zero.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// resolvedKernel returns k with the zero fields that the kernels resolve
// to tempering's defaults given them.
func resolvedKernel(k tempering.Kernel) tempering.Kernel {
	switch k := k.(type) {
	case tempering.PerLevel:
		return tempering.PerLevel{Target: resolvedKernel(k.Target), Hot: resolvedKernel(k.Hot)}
	case tempering.HMC:
		k.StepSize = or(k.StepSize, tempering.DefaultStepSize)
		k.Steps = or(k.Steps, tempering.DefaultLeapfrog)
		k.TargetAccept = or(k.TargetAccept, tempering.DefaultTargetAccept)
		return k
	case tempering.MH:
		k.Sigma = or(k.Sigma, tempering.DefaultMHScale)
		k.Steps = or(k.Steps, 1)
		k.TargetAccept = or(k.TargetAccept, tempering.DefaultMHTargetAccept)
		return k
	}
	return k
}

// TestZeroCountFlags: --levels auto, --warmup none and --base-steps none
// give the library's sentinels (LevelsFromBarrier, NoWarmup, NoBaseSteps);
// a given 0, whose library meaning (the default) contradicts its reading
// as "none", is refused with a message naming the word; a count passes
// through as it is.
func TestZeroCountFlags(t *testing.T) {
	settings := func(args ...string) (*tempering.Settings, error) {
		var g gpFlags
		if _, err := gpFlagSet(&g).parse(args, io.Discard); err != nil {
			return nil, err
		}
		st, _, err := g.samplerFlags.check()
		return st, err
	}
	st, err := settings("--sampler", "stt", "--levels", "auto", "--warmup", "none", "--base-steps", "none")
	if err != nil {
		t.Fatal(err)
	}
	if st.Levels != tempering.LevelsFromBarrier || st.Warmup != tempering.NoWarmup || st.BaseSteps != tempering.NoBaseSteps {
		t.Errorf("auto/none give Levels %d, Warmup %d, BaseSteps %d; want %d, %d, %d",
			st.Levels, st.Warmup, st.BaseSteps, tempering.LevelsFromBarrier, tempering.NoWarmup, tempering.NoBaseSteps)
	}
	st, err = settings("--levels", "3", "--warmup", "7", "--base-steps", "2")
	if err != nil {
		t.Fatal(err)
	}
	if st.Levels != 3 || st.Warmup != 7 || st.BaseSteps != 2 {
		t.Errorf("counts 3, 7, 2 give Levels %d, Warmup %d, BaseSteps %d", st.Levels, st.Warmup, st.BaseSteps)
	}
	for _, c := range []struct{ flag, word string }{{"levels", "auto"}, {"warmup", "none"}, {"base-steps", "none"}} {
		for _, v := range []string{"0", "-1", "x"} {
			_, err := settings("--"+c.flag, v)
			if err == nil || !strings.Contains(err.Error(), "--"+c.flag) || !strings.Contains(err.Error(), c.word) {
				t.Errorf("--%s %s: error %v, want a refusal naming --%s and %s", c.flag, v, err, c.flag, c.word)
			}
		}
	}
	var b strings.Builder
	var g gpFlags
	gpFlagSet(&g).help(&b)
	for _, want := range []string{"auto: M chosen", "none: no warm-up", "none: Neal's form"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("--help does not say %q", want)
		}
	}
}
