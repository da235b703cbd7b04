package subtemper

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/tempering"
)

// TestWarmStartCodec: MarshalWarmStart and UnmarshalWarmStart round-trip
// every field of a warm start and its proposal exactly, infinities and
// NaN included, and the records name every field of the types they encode
// (a field added later would otherwise be dropped silently).
func TestWarmStartCodec(t *testing.T) {
	var xs [][]float64
	var lp []float64
	for i := range 40 {
		x := []float64{math.Sin(float64(i)), math.Cos(float64(3 * i)), math.Sin(float64(7 * i))}
		xs, lp = append(xs, x), append(lp, -0.5*(x[0]*x[0]+x[1]*x[1]+x[2]*x[2])-0.1*x[0]*x[0]*x[0])
	}
	sur, err := tempering.FitSurrogate([]float64{0.2, 0.3, 0.4}, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, 1.2, 5, xs, lp)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []tempering.Transform{nil, gp.VarianceSplit{}, gp.VarianceSplitTail{Center: -2.4, Scale: 1.93}} {
		ws := &tempering.WarmStart{
			Mode: []float64{0.1, 1.0 / 3, -2}, LogPost: -123.456, Grad: []float64{1e-9, -2e-9, 0},
			Cov: []float64{1, 0.1, 0, 0.1, 2, 0.2, 0, 0.2, 3}, Inits: [][]float64{{1, 2, 3}, {4, 5, 6}},
			Optima: [][]float64{{0.1, 1.0 / 3, -2}}, OptimaLogPos: []float64{-123.456}, Modes: 1,
			Drops: [][2]float64{{2, 3}, {math.Inf(1), math.NaN()}, {1, 1}}, NonGaussian: []int{1},
			Corners: []tempering.Corner{{Center: []float64{0.1, -0.7, -1.9}, Cov: []float64{1, 0.3, 0, 0.3, 2.5, 0, 0, 0, 3}},
				{Center: []float64{0.4, -1.2, -2.2}, Cov: []float64{0.5, 0, 0, 0, 0.4, 0, 0, 0, 0.3}, Mode: true}},
			Stages: []tempering.StageWork{{Size: 256, Evals: 40}, {Size: 512, Evals: 9}}, SecondsPerGrad: 0.0123, GradsAtOnce: 4, Wall: 1234567, CPU: 2345678,
			Proposal: &tempering.Proposal{Transform: tr, Center: []float64{0.2, 0.3, 0.4}, Cov: []float64{1, 0, 0, 0, 1, 0, 0, 0, 1},
				Split: []float64{1, 2, 1, 1, 1.5, 1}, DF: 5, Scale: 1.2, Rounds: []tempering.ProposalRound{{Draws: 500, ESS: 0.38}},
				ImportanceESS: 0.38, SecondsPerEval: 0.004, EvalsAtOnce: 2, SplitEvals: 61, TransformEvals: 2, Surrogate: sur},
		}
		if tr == nil {
			ws.Proposal.Surrogate, ws.Proposal.SurrogateFailure = nil, "surrogate: 3 points with a finite log density, need at least 8"
		}
		b, err := MarshalWarmStart(ws)
		if err != nil {
			t.Fatal(err)
		}
		got, err := UnmarshalWarmStart(b)
		if err != nil {
			t.Fatal(err)
		}
		// NaN is not equal to itself: compare it apart.
		if d := got.Drops[1]; !math.IsInf(d[0], 1) || !math.IsNaN(d[1]) {
			t.Errorf("Drops[1] = %v, want [+Inf NaN]", d)
		}
		got.Drops[1], ws.Drops[1] = [2]float64{}, [2]float64{}
		if !reflect.DeepEqual(got, ws) {
			t.Errorf("transform %T: round trip\n got %+v\nwant %+v", tr, got, ws)
		}
	}
	covers := func(rec, typ reflect.Type, skip ...string) {
		for i := range typ.NumField() {
			name := typ.Field(i).Name
			if _, ok := rec.FieldByName(name); !ok && !slices.Contains(skip, name) {
				t.Errorf("%s does not encode %s.%s", rec.Name(), typ.Name(), name)
			}
		}
	}
	covers(reflect.TypeFor[warmRecord](), reflect.TypeFor[tempering.WarmStart]())
	// A saved proposal keeps no draws for tempering.ImportanceOptions.Reuse.
	covers(reflect.TypeFor[proposalRecord](), reflect.TypeFor[tempering.Proposal](), "roundX", "roundLP", "roundT")
}

// TestWarmStartCodecRefuses: a proposal in an unknown space is not
// encoded, and damaged bytes or an empty surrogate are not decoded.
func TestWarmStartCodecRefuses(t *testing.T) {
	base := tempering.WarmStart{Mode: []float64{0}, Cov: []float64{1}}
	ws := base
	ws.Proposal = &tempering.Proposal{Transform: otherSpace{}}
	if _, err := MarshalWarmStart(&ws); err == nil {
		t.Errorf("%+v: encoded", ws.Proposal)
	}
	ws.Proposal = &tempering.Proposal{Surrogate: &tempering.Surrogate{}}
	if b, err := MarshalWarmStart(&ws); err != nil {
		t.Fatal(err)
	} else if _, err := UnmarshalWarmStart(b); err == nil {
		t.Error("a proposal with an empty surrogate decoded")
	}
	b, err := MarshalWarmStart(&base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UnmarshalWarmStart(b[:len(b)/2]); err == nil {
		t.Error("half the bytes decoded")
	}
}

// otherSpace is a transform the codec does not know.
type otherSpace struct{ gp.VarianceSplit }
