package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/internal/errmsg"
)

// checkpointName is the file in --out that holds a gp run's checkpoint:
// the sampler's whole state (subtemper.Checkpoint) with ckptMeta, the
// run's flags and data, in its header. It is not one of the files a run
// writes into its staging folder (ours): it is written in place, into
// --out itself, and carried over when the run's results are put there.
const checkpointName = "checkpoint.subtemper"

// checkpointGrace bounds the time a SIGINT or SIGTERM lets the chains run
// on to the checkpoint it asks for (each chain's next iteration), so that
// the run still stops within a second; when an iteration takes longer,
// the last checkpoint stays.
const checkpointGrace = time.Second

// ckptMeta is what a checkpoint says of its run, for --resume: the
// command, its flags (without --out and the checkpoint flags), the
// checksum of its data (summary.json's data.sha256) and its warm start
// (subtemper.MarshalWarmStart's; none without one), which a resumed run
// starts from instead of searching for the mode again.
type ckptMeta struct {
	Command    string   `json:"command"`
	Args       []string `json:"args"`
	DataSHA256 string   `json:"data_sha256"`
	Backend    string   `json:"backend"`
	Warm       []byte   `json:"warm,omitempty"`
}

// ckptFlags are the gp command's checkpoint flags and what a resumed run
// carries.
type ckptFlags struct {
	resume    string
	extend    int
	every     string
	runChains string
	shard     subtemper.Shard // --run-chains (zero: every chain)

	dir  string                // --out, where the checkpoint goes ("": none)
	cp   *subtemper.Checkpoint // the checkpoint resumed from
	meta ckptMeta
}

// checkpointFlags are the flags that ckptMeta.Args leaves out.
var checkpointFlags = map[string]bool{"resume": true, "extend": true, "checkpoint-every": true, "out": true}

// runOnly are the flags that summary.json's settings list only when
// given: they change no draw.
var runOnly = map[string]bool{"resume": true, "extend": true, "checkpoint-every": true, "run-chains": true}

func (c *ckptFlags) define(fs *flagSet) {
	fs.group("Checkpoints")
	fs.str(&c.every, "checkpoint-every", "5m", "with --out: save the sampler's whole state to --out/"+checkpointName+" every `duration` of wall time, at the end of warm-up, at the end, and on SIGINT or SIGTERM (docs/RESUME.md); 0: none")
	fs.str(&c.resume, "resume", "", "continue the run whose --out is `DIR` from its checkpoint, with the flags it was started with and its warm start (no new search for the mode): the draws are those of the run not interrupted")
	fs.str(&c.runChains, "run-chains", "", "run only chains `A-B` (numbered from 1, both included) of --chains, for `subtemper merge` to join with the other shards' folders: each chain makes the draws it makes in the whole run; needs --out, --min-ess 0 and a fixed ladder (docs/RESUME.md)")
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
func (c *ckptFlags) resumeArgs(fs *flagSet) ([]string, *subtemper.Checkpoint, error) {
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
	cp, err := subtemper.ReadCheckpoint(file)
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
	args := append(meta.Args, "--out", c.resume)
	if fs.isSet("checkpoint-every") {
		args = append(args, "--checkpoint-every", c.every)
	}
	args = append(args, shown...)
	if c.extend > 0 {
		args = append(args, "--draws", strconv.Itoa(cp.RunDraws+c.extend))
	}
	return args, cp, nil
}

// prepare sets the checkpoints of the run with flags fs on data: its
// meta, and, resuming, checks that the data are the checkpoint's.
func (c *ckptFlags) prepare(fs *flagSet, finalOut string, data *subtemper.GPData, backend string) error {
	if _, err := c.interval(); err != nil {
		return err
	}
	if fs.isSet("extend") {
		return usagef("--extend goes with --resume DIR")
	}
	if err := c.parseShard(fs, finalOut); err != nil {
		return err
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
	was := c.resumedMeta()
	switch {
	case was.DataSHA256 != c.meta.DataSHA256:
		return usagef("--resume %s: the data are not the checkpointed run's (sha256 %s, the run's %s)", c.dir, c.meta.DataSHA256, was.DataSHA256)
	case was.Backend != backend:
		return usagef("--resume %s: the run used the %s backend, this build's is %s: the draws would differ", c.dir, was.Backend, backend)
	}
	return nil
}

// resumedMeta returns the meta of the checkpoint resumed (the zero value
// when none is resumed; resumeArgs has checked that it reads).
func (c *ckptFlags) resumedMeta() ckptMeta {
	var was ckptMeta
	if c.cp != nil {
		json.Unmarshal(c.cp.Meta, &was)
	}
	return was
}

// resumedWarm returns the warm start of the run resumed (nil when none
// is resumed or its checkpoint holds none), and why a warm start it holds
// cannot be read (the run then searches for the mode again).
func (c *ckptFlags) resumedWarm() (*subtemper.WarmStart, error) {
	was := c.resumedMeta()
	if len(was.Warm) == 0 {
		return nil, nil
	}
	return subtemper.UnmarshalWarmStart(was.Warm)
}

// setWarm keeps ws (if any, and if it can be encoded) in the checkpoints'
// meta.
func (c *ckptFlags) setWarm(ws *subtemper.WarmStart) {
	c.meta.Warm = nil
	if ws != nil {
		c.meta.Warm, _ = subtemper.MarshalWarmStart(ws)
	}
}

// parseShard parses --run-chains and checks what a shard needs.
func (c *ckptFlags) parseShard(fs *flagSet, finalOut string) error {
	if c.runChains == "" {
		return nil
	}
	var a, b int
	chains, _ := strconv.Atoi(fs.Lookup("chains").Value.String())
	if n, err := fmt.Sscanf(c.runChains, "%d-%d", &a, &b); n != 2 || err != nil || a < 1 || a > b || b > chains || c.runChains != fmt.Sprintf("%d-%d", a, b) {
		return usagef("--run-chains: want A-B with 1 ≤ A ≤ B ≤ --chains (%d), got %q", chains, c.runChains)
	}
	switch {
	case finalOut == "":
		return usagef("--run-chains needs --out: its checkpoint is what `subtemper merge` joins")
	case fs.Lookup("min-ess").Value.String() != "0":
		return usagef("--run-chains needs --min-ess 0: the stop rule judges every chain's draws as sampling goes, which no shard has (docs/RESUME.md)")
	case fs.Lookup("ladder").Value.String() != "fixed" && fs.Lookup("sampler").Value.String() != "none":
		return usagef("--run-chains needs --ladder fixed: the adaptive ladder pools every chain's estimates during warm-up, which no shard has (docs/RESUME.md)")
	}
	c.shard = subtemper.Shard{From: a - 1, To: b}
	return nil
}

// apply sets the checkpoints, the shard and the resumption in the run's
// settings.
func (c *ckptFlags) apply(st *subtemper.Settings) {
	st.Resume = c.cp
	st.Shard = c.shard
	every, _ := c.interval()
	if c.dir == "" || (every == 0 && c.shard == subtemper.Shard{}) {
		return
	}
	meta, _ := json.Marshal(c.meta)
	st.Checkpoints = &subtemper.Checkpointing{
		Every: every, EndOfWarmup: true, AtEnd: true, CancelGrace: checkpointGrace,
		Meta: meta, Save: c.save,
	}
}

// save writes cp to --out atomically: a temporary file beside it, synced,
// renamed over it.
func (c *ckptFlags) save(cp *subtemper.Checkpoint) error {
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

// mergeFits joins the final checkpoints of the gp shards in dirs (gp
// --run-chains) into the whole run's, written to out, and completes the
// run from it there: the outputs of the fit made in one process.
func mergeFits(ctx context.Context, dirs []string, out string, io *stdio) error {
	var cps []*subtemper.Checkpoint
	var meta ckptMeta
	for i, d := range dirs {
		cp, m, err := readShard(d)
		if err != nil {
			return err
		}
		if i == 0 {
			meta = m
		} else if !slices.Equal(m.Args, meta.Args) || m.DataSHA256 != meta.DataSHA256 || m.Backend != meta.Backend {
			return usagef("%s and %s are not shards of one fit: their flags, data or backend differ", dirs[0], d)
		}
		if !cp.Final {
			return usagef("%s: the shard has not completed (its checkpoint is at iteration %d): resume it first (gp --resume %s)", d, cp.Iteration, d)
		}
		cps = append(cps, cp)
	}
	cp, err := subtemper.MergeCheckpoints(cps...)
	if err != nil {
		return usagef("%v", errmsg.Trim(err, "tempering: "))
	}
	if cp.Meta, err = json.Marshal(meta); err != nil {
		return err
	}
	if err := (&ckptFlags{dir: out}).save(cp); err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	return cmdGP(ctx, []string{"--resume", out}, io)
}

// readShard reads the checkpoint of the gp shard in dir and its meta,
// without --run-chains.
func readShard(dir string) (*subtemper.Checkpoint, ckptMeta, error) {
	var meta ckptMeta
	path := filepath.Join(dir, checkpointName)
	f, err := os.Open(path)
	if err != nil {
		return nil, meta, usagef("%s: not the folder of a gp shard: %v", dir, err)
	}
	defer f.Close()
	cp, err := subtemper.ReadCheckpoint(f)
	if err != nil {
		return nil, meta, usagef("%s: %v", path, errmsg.Trim(err, "tempering: "))
	}
	if err := json.Unmarshal(cp.Meta, &meta); err != nil || meta.Command != "gp" {
		return nil, meta, usagef("%s is not the checkpoint of a gp run", path)
	}
	meta.Args = slices.DeleteFunc(meta.Args, func(a string) bool { return strings.HasPrefix(a, "--run-chains=") })
	return cp, meta, nil
}
