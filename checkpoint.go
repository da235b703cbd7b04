package subtemper

import (
	"io"

	"github.com/subtemper/subtemper/tempering"
)

// The sampler's checkpoints, named here so that a program going through
// this package's front doors saves, resumes and joins runs without an
// import of tempering: set Settings.Checkpoints before FitGP or FitMVN,
// write each Checkpoint it hands over with MarshalBinary, and resume with
// Settings.Resume (docs/RESUME.md).
type (
	// Checkpoint is the state of a run after some iterations of every
	// chain (tempering.Checkpoint).
	Checkpoint = tempering.Checkpoint
	// Checkpointing says when a run hands over checkpoints and to whom
	// (tempering.Checkpointing).
	Checkpointing = tempering.Checkpointing
	// Shard is the range of chains a run makes (tempering.Shard; the
	// zero Shard is every chain).
	Shard = tempering.Shard
)

// ReadCheckpoint reads a checkpoint written by Checkpoint.MarshalBinary,
// refusing a truncated or corrupt file and one of another sampler state
// layout (tempering.ReadCheckpoint).
func ReadCheckpoint(r io.Reader) (*Checkpoint, error) { return tempering.ReadCheckpoint(r) }

// MergeCheckpoints joins the checkpoints of the shards of one run into
// that of the whole run, which resumes as if it had been made in one
// process; the shards must cover every chain once
// (tempering.MergeCheckpoints).
func MergeCheckpoints(cps ...*Checkpoint) (*Checkpoint, error) {
	return tempering.MergeCheckpoints(cps...)
}
