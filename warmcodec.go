package subtemper

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"time"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/tempering"
)

// warmCodecVersion is the version of MarshalWarmStart's encoding.
const warmCodecVersion = 1

// warmRecord is MarshalWarmStart's encoding: a tempering.WarmStart's
// fields, its proposal's as a proposalRecord.
type warmRecord struct {
	Version        int
	Mode           []float64
	LogPost        float64
	Grad, Cov      []float64
	Inits          [][]float64
	Optima         [][]float64
	OptimaLogPos   []float64
	Modes          int
	Drops          [][2]float64
	NonGaussian    []int
	Corners        []tempering.Corner
	Stages         []tempering.StageWork
	SecondsPerGrad float64
	GradsAtOnce    int
	Wall           time.Duration
	CPU            time.Duration `json:",omitempty"`
	Proposal       *proposalRecord
}

// proposalRecord is a tempering.Proposal's fields, with its Transform
// named ("" for none, "variance-split" or "variance-split-tail" with its
// Center and Scale) and its Surrogate as its MarshalBinary bytes (nil for
// none).
type proposalRecord struct {
	Center, Cov, Split    []float64
	DF, Scale             float64
	Rounds                []tempering.ProposalRound
	ImportanceESS         float64
	SecondsPerEval        float64
	EvalsAtOnce           int
	SplitEvals            int
	TransformEvals        int
	Transform             string
	TailCenter, TailScale float64
	Surrogate             []byte
	SurrogateFailure      string
}

// MarshalWarmStart encodes ws, the outcome of a search for the mode
// (GPFit.Mode), so that a later FitGP on the same data, prior and
// settings can start from it (GPOptions.Warm) instead of searching again,
// as a resumed run does: every number round-trips exactly, so the settings
// made from it are the same. It returns an error for a warm start it
// cannot encode: a proposal in a space other than u or the GP's variance
// splits.
func MarshalWarmStart(ws *tempering.WarmStart) ([]byte, error) {
	if ws == nil {
		return nil, errors.New("subtemper: no warm start to encode")
	}
	rec := warmRecord{Version: warmCodecVersion, Mode: ws.Mode, LogPost: ws.LogPost, Grad: ws.Grad, Cov: ws.Cov, Inits: ws.Inits, Optima: ws.Optima,
		OptimaLogPos: ws.OptimaLogPos, Modes: ws.Modes, Drops: ws.Drops, NonGaussian: ws.NonGaussian, Corners: ws.Corners, Stages: ws.Stages,
		SecondsPerGrad: ws.SecondsPerGrad, GradsAtOnce: ws.GradsAtOnce, Wall: ws.Wall, CPU: ws.CPU}
	if p := ws.Proposal; p != nil {
		pr := &proposalRecord{Center: p.Center, Cov: p.Cov, Split: p.Split, DF: p.DF, Scale: p.Scale, Rounds: p.Rounds, ImportanceESS: p.ImportanceESS,
			SecondsPerEval: p.SecondsPerEval, EvalsAtOnce: p.EvalsAtOnce, SplitEvals: p.SplitEvals, TransformEvals: p.TransformEvals,
			SurrogateFailure: p.SurrogateFailure}
		if p.Surrogate != nil {
			b, err := p.Surrogate.MarshalBinary()
			if err != nil {
				return nil, fmt.Errorf("subtemper: encoding the warm start: %w", err)
			}
			pr.Surrogate = b
		}
		switch tr := p.Transform.(type) {
		case nil:
		case gp.VarianceSplit:
			pr.Transform = "variance-split"
		case gp.VarianceSplitTail:
			pr.Transform, pr.TailCenter, pr.TailScale = "variance-split-tail", tr.Center, tr.Scale
		default:
			return nil, fmt.Errorf("subtemper: a warm start whose proposal lives in %T's space cannot be encoded", tr)
		}
		rec.Proposal = pr
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&rec); err != nil {
		return nil, fmt.Errorf("subtemper: encoding the warm start: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalWarmStart decodes a warm start that MarshalWarmStart encoded.
func UnmarshalWarmStart(b []byte) (*tempering.WarmStart, error) {
	var rec warmRecord
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&rec); err != nil {
		return nil, fmt.Errorf("subtemper: decoding the warm start: %w", err)
	}
	if rec.Version != warmCodecVersion {
		return nil, fmt.Errorf("subtemper: the warm start's encoding is version %d, this build reads %d", rec.Version, warmCodecVersion)
	}
	ws := tempering.WarmStart{Mode: rec.Mode, LogPost: rec.LogPost, Grad: rec.Grad, Cov: rec.Cov, Inits: rec.Inits, Optima: rec.Optima,
		OptimaLogPos: rec.OptimaLogPos, Modes: rec.Modes, Drops: rec.Drops, NonGaussian: rec.NonGaussian, Corners: rec.Corners, Stages: rec.Stages,
		SecondsPerGrad: rec.SecondsPerGrad, GradsAtOnce: rec.GradsAtOnce, Wall: rec.Wall, CPU: rec.CPU}
	if pr := rec.Proposal; pr != nil {
		p := tempering.Proposal{Center: pr.Center, Cov: pr.Cov, Split: pr.Split, DF: pr.DF, Scale: pr.Scale, Rounds: pr.Rounds, ImportanceESS: pr.ImportanceESS,
			SecondsPerEval: pr.SecondsPerEval, EvalsAtOnce: pr.EvalsAtOnce, SplitEvals: pr.SplitEvals, TransformEvals: pr.TransformEvals,
			SurrogateFailure: pr.SurrogateFailure}
		if pr.Surrogate != nil {
			p.Surrogate = new(tempering.Surrogate)
			if err := p.Surrogate.UnmarshalBinary(pr.Surrogate); err != nil {
				return nil, fmt.Errorf("subtemper: decoding the warm start's proposal: %w", err)
			}
		}
		switch pr.Transform {
		case "":
		case "variance-split":
			p.Transform = gp.VarianceSplit{}
		case "variance-split-tail":
			p.Transform = gp.VarianceSplitTail{Center: pr.TailCenter, Scale: pr.TailScale}
		default:
			return nil, fmt.Errorf("subtemper: the warm start's proposal lives in an unknown space %q", pr.Transform)
		}
		ws.Proposal = &p
	}
	if len(ws.Mode) == 0 || len(ws.Cov) != len(ws.Mode)*len(ws.Mode) {
		return nil, fmt.Errorf("subtemper: the warm start decoded has a mode of %d and a covariance of %d entries", len(ws.Mode), len(ws.Cov))
	}
	return &ws, nil
}
