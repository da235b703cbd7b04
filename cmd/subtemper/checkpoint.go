package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/internal/errmsg"
	"github.com/subtemper/subtemper/tempering"
)

// checkpointName is the file in --out that holds a gp run's checkpoint:
// the sampler's whole state (tempering.Checkpoint) with ckptMeta, the
// run's flags and data, in its header. It is not one of the files a run
// writes into its staging folder (ours): it is written in place, into
// --out itself, and carried over when the run's results are put there.
const checkpointName = "checkpoint.subtemper"

// checkpointGrace bounds the time a SIGINT or SIGTERM lets the chains run
// on to the checkpoint it asks for: one iteration of every chain.
const checkpointGrace = 30 * time.Second

// ckptMeta is what a checkpoint says of its run, for --resume: the
// command, its flags (without --out and the checkpoint flags) and the
// checksum of its data (summary.json's data.sha256).
type ckptMeta struct {
	Command    string   `json:"command"`
	Args       []string `json:"args"`
	DataSHA256 string   `json:"data_sha256"`
	Backend    string   `json:"backend"`
}

// ckptFlags are the gp command's checkpoint flags and what a resumed run
// carries.
type ckptFlags struct {
	resume string
	extend int
	every  string

	dir  string                // --out, where the checkpoint goes ("": none)
	cp   *tempering.Checkpoint // the checkpoint resumed from
	meta ckptMeta
}

// checkpointFlags are the flags that ckptMeta.Args leaves out.
var checkpointFlags = map[string]bool{"resume": true, "extend": true, "checkpoint-every": true, "out": true}

// runOnly are the flags that summary.json's settings list only when
// given: they change no draw.
var runOnly = map[string]bool{"resume": true, "extend": true, "checkpoint-every": true}

func (c *ckptFlags) define(fs *flagSet) {
	fs.group("Checkpoints")
	fs.str(&c.every, "checkpoint-every", "5m", "with --out: save the sampler's whole state to --out/"+checkpointName+" every `duration` of wall time, at the end of warm-up, at the end, and on SIGINT or SIGTERM (docs/RESUME.md); 0: none")
	fs.str(&c.resume, "resume", "", "continue the run whose --out is `DIR` from its checkpoint, with the flags it was started with: the draws are those of the run not interrupted")
	fs.integer(&c.extend, "extend", 0, "with --resume: add `K` draws per chain to the completed run in DIR (the verdict is on all draws); the draws are those of a run made that long in one go")
}

// interval parses --checkpoint-every; 0 means none.
func (c *ckptFlags) interval() (time.Duration, error) {
	if c.every == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(c.every)
	if err != nil || d < 0 {
		return 0, usagef("--checkpoint-every: want a duration such as 90s, 5m or 0, got %q", c.every)
	}
	return d, nil
}

// resumeArgs reads the checkpoint in --resume's folder and returns the
// flags to run it with: its run's, --out the folder, and with --extend
// the draws extended.
func (c *ckptFlags) resumeArgs(fs *flagSet) ([]string, *tempering.Checkpoint, error) {
	var other, shown []string
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "resume", "extend", "checkpoint-every":
		case "quiet", "progress":
			shown = append(shown, "--"+fl.Name+"="+fl.Value.String())
		default:
			other = append(other, "--"+fl.Name)
		}
	})
	if len(other) > 0 {
		return nil, nil, usagef("--resume takes the run's flags from its checkpoint: %s cannot be given beside it (only --extend, --checkpoint-every, --quiet and --progress can)", other[0])
	}
	if err := checkNonNegInt("extend", c.extend); err != nil {
		return nil, nil, err
	}
	path := filepath.Join(c.resume, checkpointName)
	file, err := os.Open(path)
	if err != nil {
		return nil, nil, usagef("--resume %s: no checkpoint to resume from: %v", c.resume, err)
	}
	defer file.Close()
	cp, err := tempering.ReadCheckpoint(file)
	if err != nil {
		return nil, nil, usagef("--resume %s: %s: %v", c.resume, path, errmsg.Trim(err, "tempering: "))
	}
	var meta ckptMeta
	if err := json.Unmarshal(cp.Meta, &meta); err != nil || meta.Command != "gp" {
		return nil, nil, usagef("--resume %s: %s is not the checkpoint of a gp run", c.resume, path)
	}
	if c.extend > 0 && !(cp.Final && !cp.Stopped) {
		return nil, nil, usagef("--extend: the run in %s has not completed (its checkpoint is at iteration %d): resume it first, without --extend", c.resume, cp.Iteration)
	}
	args := append(meta.Args, "--out", c.resume, "--checkpoint-every", c.every)
	args = append(args, shown...)
	if c.extend > 0 {
		args = append(args, "--draws", strconv.Itoa(cp.RunDraws+c.extend))
	}
	return args, cp, nil
}

// prepare sets the checkpoints of the run with flags fs on data: its
// meta, and, resuming, checks that the data are the checkpoint's.
func (c *ckptFlags) prepare(fs *flagSet, finalOut string, data *gp.Data, backend string) error {
	if _, err := c.interval(); err != nil {
		return err
	}
	if fs.isSet("extend") {
		return usagef("--extend goes with --resume DIR")
	}
	c.dir = finalOut
	if stale, err := filepath.Glob(filepath.Join(finalOut, "."+checkpointName+"-*")); err == nil && finalOut != "" {
		for _, p := range stale {
			os.Remove(p) // of a killed run
		}
	}
	c.meta = ckptMeta{Command: "gp", DataSHA256: subtemper.DataSHA256(data), Backend: backend}
	fs.Visit(func(fl *flag.Flag) {
		if !checkpointFlags[fl.Name] {
			c.meta.Args = append(c.meta.Args, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	if c.cp == nil {
		return nil
	}
	var was ckptMeta
	json.Unmarshal(c.cp.Meta, &was)
	switch {
	case was.DataSHA256 != c.meta.DataSHA256:
		return usagef("--resume %s: the data are not the checkpointed run's (sha256 %s, the run's %s)", c.dir, c.meta.DataSHA256, was.DataSHA256)
	case was.Backend != backend:
		return usagef("--resume %s: the run used the %s backend, this build's is %s: the draws would differ", c.dir, was.Backend, backend)
	}
	return nil
}

// apply sets the checkpoints and the resumption in the run's settings.
func (c *ckptFlags) apply(st *tempering.Settings) {
	st.Resume = c.cp
	every, _ := c.interval()
	if c.dir == "" || every == 0 {
		return
	}
	meta, _ := json.Marshal(c.meta)
	st.Checkpoints = &tempering.Checkpointing{
		Every: every, EndOfWarmup: true, AtEnd: true, CancelGrace: checkpointGrace,
		Meta: meta, Save: c.save,
	}
}

// save writes cp to --out atomically: a temporary file beside it, synced,
// renamed over it.
func (c *ckptFlags) save(cp *tempering.Checkpoint) error {
	b, err := cp.MarshalBinary()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.dir, "."+checkpointName+"-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(c.dir, checkpointName))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	os.Chmod(filepath.Join(c.dir, checkpointName), 0o644&^umaskBits())
	return err
}
