package tempering

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ckptRun runs s with checkpoints at the end of warm-up, at the end, and
// after each of the iterations at, and
// returns the result and each checkpoint as written.
func ckptRun(t *testing.T, tg Target, s Settings, at ...int) (*Result, [][]byte) {
	t.Helper()
	var files ckptFiles
	s.Checkpoints = &Checkpointing{EndOfWarmup: true, AtEnd: true, Iterations: at, Meta: []byte("test"), Save: files.save}
	res, err := Run(context.Background(), tg, &s)
	if err != nil {
		t.Fatal(err)
	}
	if res.CheckpointErr != nil {
		t.Fatal(res.CheckpointErr)
	}
	return res, files.files
}

// ckptFiles collects the checkpoints a run saves, marshalled.
type ckptFiles struct {
	mu    sync.Mutex
	files [][]byte
}

// save is a Checkpointing.Save.
func (f *ckptFiles) save(cp *Checkpoint) error {
	b, err := cp.MarshalBinary()
	f.mu.Lock()
	f.files = append(f.files, b)
	f.mu.Unlock()
	return err
}

// sameBits reports whether two arrays of float64 hold the same bits
// (NaN included).
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// sameRun reports how two results differ in what a seed determines: the
// draws, energies, divergences, counters, tunings, ladder and status.
func sameRun(a, b *Result) string {
	if len(a.Draws) != len(b.Draws) {
		return "chains"
	}
	for c := range a.Draws {
		if len(a.Draws[c]) != len(b.Draws[c]) {
			return fmt.Sprintf("chain %d: %d draws, want %d", c, len(b.Draws[c]), len(a.Draws[c]))
		}
		for s := range a.Draws[c] {
			if !sameBits(a.Draws[c][s], b.Draws[c][s]) {
				return fmt.Sprintf("chain %d: draw %d differs", c, s)
			}
		}
		if a.Energy != nil && !sameBits(a.Energy[c], b.Energy[c]) {
			return fmt.Sprintf("chain %d: energies differ", c)
		}
		if !slices.Equal(a.Divergent[c], b.Divergent[c]) {
			return fmt.Sprintf("chain %d: divergences differ", c)
		}
	}
	switch {
	case !reflect.DeepEqual(a.Stats, b.Stats):
		return "counters differ"
	case !reflect.DeepEqual(a.Tunings, b.Tunings):
		return "tunings differ"
	case !reflect.DeepEqual(a.Betas, b.Betas) || a.Ladder.Rounds != b.Ladder.Rounds || !reflect.DeepEqual(a.Ladder.WarmupCosts, b.Ladder.WarmupCosts):
		return "ladders differ"
	case a.Status != b.Status || a.StoppedAt != b.StoppedAt:
		return fmt.Sprintf("status %v after %d, want %v after %d", b.Status, b.StoppedAt, a.Status, a.StoppedAt)
	}
	return ""
}

// resumeFrom reads a checkpoint and runs s from it.
func resumeFrom(t *testing.T, tg Target, s Settings, file []byte) (*Result, *Checkpoint) {
	t.Helper()
	cp, err := ReadCheckpoint(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	s.Resume = cp
	res, err := Run(context.Background(), tg, &s)
	if err != nil {
		t.Fatal(err)
	}
	return res, cp
}

// TestResume: a run resumed from a checkpoint taken in warm-up (during
// the ladder's rounds and after them), at its end, and while sampling,
// makes the draws, counters, tunings and ladder of the run that was not
// interrupted, bit for bit, for every driver and kernel.
func TestResume(t *testing.T) {
	kernels := []Kernel{nil, MH{}, NUTS{}, HMC{Adapt: AdaptDense}}
	for _, d := range allDrivers {
		for _, k := range kernels {
			if d == None && k == nil {
				continue
			}
			tg := Target(newMVNTarget(30, 2, 3))
			if d.subsampled() {
				tg = &prefixTarget{mvnTarget: newMVNTarget(30, 2, 3)}
			}
			s := Settings{Sampler: Sampler{Driver: d, Kernel: k, Levels: 3}, Control: Control{Chains: 2, Warmup: 120, Draws: 60, Thin: 2, Seed: 11}}
			full, files := ckptRun(t, tg, s, 10, 40, 90, 150)
			if len(files) < 5 {
				t.Fatalf("%v/%T: %d checkpoints, want 6", d, k, len(files))
			}
			for _, f := range files {
				res, cp := resumeFrom(t, tg, s, f)
				if diff := sameRun(full, res); diff != "" {
					t.Errorf("%v/%T resumed from iteration %d: %s", d, k, cp.Iteration, diff)
				}
			}
		}
	}
}

// TestResumeStopRule: resumed with a stop rule, a run stops where the
// uninterrupted run stops, with its draws, also from the checkpoint of
// its end.
func TestResumeStopRule(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	s := Settings{Sampler: Sampler{Driver: PT, Kernel: MH{}}, Control: Control{Chains: 3, Warmup: 60, Draws: 400, Seed: 7, StopEvery: 40}}
	s.Stop = &countRule{at: 130}
	full, files := ckptRun(t, tg, s, 70, 150, 170)
	if full.StoppedAt != 160 {
		t.Fatalf("stopped at %d, want 160", full.StoppedAt)
	}
	for _, f := range files {
		s.Stop = &countRule{at: 130}
		res, cp := resumeFrom(t, tg, s, f)
		if diff := sameRun(full, res); diff != "" {
			t.Errorf("resumed from iteration %d: %s", cp.Iteration, diff)
		}
	}
}

// TestExtend: the end of a completed run, extended to more draws, gives
// the draws of the run made that long in one go, and with a stop rule
// stops where that run stops.
func TestExtend(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	short := Settings{Sampler: Sampler{Driver: STT, Kernel: MH{}}, Control: Control{Chains: 2, Warmup: 60, Draws: 80, Seed: 5, StopEvery: 40}}
	short.Stop = &countRule{at: 1 << 30}
	_, files := ckptRun(t, tg, short)
	end := files[len(files)-1]
	long := short
	long.Draws = 200
	long.Stop = &countRule{at: 1 << 30}
	want, _ := ckptRun(t, tg, long)
	long.Stop = &countRule{at: 1 << 30}
	got, cp := resumeFrom(t, tg, long, end)
	if !cp.Final || cp.Draws != 80 {
		t.Fatalf("the last checkpoint is at %d draws (final %v), want the end at 80", cp.Draws, cp.Final)
	}
	if diff := sameRun(want, got); diff != "" {
		t.Errorf("extended: %s", diff)
	}
	// The stop rule's checkpoint at 80 draws, which the short run did not
	// make, says enough in the long run: so must the extension's.
	long.Stop = &countRule{at: 80}
	want, _ = ckptRun(t, tg, long)
	long.Stop = &countRule{at: 80}
	got, _ = resumeFrom(t, tg, long, end)
	if want.StoppedAt != 80 {
		t.Fatalf("the long run stopped at %d, want 80", want.StoppedAt)
	}
	if diff := sameRun(want, got); diff != "" {
		t.Errorf("extended with a rule: %s", diff)
	}
}

// TestResumeInterrupted: the checkpoint a cancelled run saved before its
// cancellation, at a planned iteration or on a request, or on its
// cancellation (CancelGrace, as the CLI's signal handler asks),
// continues to the uninterrupted run's draws.
func TestResumeInterrupted(t *testing.T) {
	// Slow enough for the goroutine that hears the cancellation to run
	// before the chains end.
	tg := newSlowTarget()
	s := Settings{Sampler: Sampler{Driver: PT, Kernel: MH{}, Levels: 3}, Control: Control{Chains: 2, Warmup: 100, Draws: 300, Seed: 3}}
	full, err := Run(context.Background(), tg, &s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		how string
		at  int
	}{{"planned", 30}, {"planned", 150}, {"request", 30}, {"request", 150}, {"cancel", 30}, {"cancel", 150}} {
		ctx, cancel := context.WithCancel(context.Background())
		var file []byte
		i := s
		i.Checkpoints = &Checkpointing{Save: func(cp *Checkpoint) error {
			var err error
			file, err = cp.MarshalBinary()
			if c.how != "cancel" {
				cancel()
			}
			return err
		}}
		req := make(chan struct{}, 1)
		switch c.how {
		case "planned":
			i.Checkpoints.Iterations = []int{c.at}
		case "request":
			i.Checkpoints.Request = req
		case "cancel":
			i.Checkpoints.CancelGrace = time.Minute
		}
		i.Recorder = RecorderFunc(func(r *Report) {
			if r.Chain == 1 && r.Iteration == c.at {
				switch c.how {
				case "request":
					req <- struct{}{}
				case "cancel":
					cancel()
				}
			}
		})
		res, err := Run(ctx, tg, &i)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if !res.Interrupted || file == nil {
			t.Fatalf("%s at %d: interrupted %v, checkpoint %v", c.how, c.at, res.Interrupted, file != nil)
		}
		got, cp := resumeFrom(t, tg, s, file)
		if c.how == "planned" && cp.Iteration != c.at {
			t.Errorf("%s at %d: checkpoint at iteration %d", c.how, c.at, cp.Iteration)
		}
		if diff := sameRun(full, got); diff != "" {
			t.Errorf("%s: resumed from iteration %d: %s", c.how, cp.Iteration, diff)
		}
	}
}

// TestResumeRefused: a checkpoint is refused by a run with other
// settings, more chains, fewer draws, or more draws unless it is the end
// of a completed run; a truncated, corrupt or foreign file is refused by
// ReadCheckpoint.
func TestResumeRefused(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	s := Settings{Sampler: Sampler{Driver: PT, Kernel: MH{}}, Control: Control{Chains: 2, Warmup: 60, Draws: 50, Seed: 3}}
	_, files := ckptRun(t, tg, s)
	mid, end := files[0], files[len(files)-1]
	for _, c := range []struct {
		name string
		file []byte
		edit func(*Settings)
		want string
	}{
		{"seed", mid, func(s *Settings) { s.Seed = 4 }, "other settings"},
		{"kernel", mid, func(s *Settings) { s.Kernel = HMC{} }, "other settings"},
		{"levels", mid, func(s *Settings) { s.Levels = 4 }, "other settings"},
		{"warm-up", mid, func(s *Settings) { s.Warmup = 61 }, "other settings"},
		{"fewer draws", end, func(s *Settings) { s.Draws = 40 }, "more than the 40"},
		{"extend mid-run", mid, func(s *Settings) { s.Draws = 60 }, "only the end of a completed run"},
	} {
		r := s
		c.edit(&r)
		cp, err := ReadCheckpoint(bytes.NewReader(c.file))
		if err != nil {
			t.Fatal(err)
		}
		r.Resume = cp
		if _, err := Run(context.Background(), tg, &r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
	bad := map[string][]byte{
		"truncated":   mid[:len(mid)/2],
		"empty":       nil,
		"foreign":     []byte("draw,chain\n1,2\n"),
		"version":     slices.Concat([]byte(checkpointMagic), []byte{CheckpointVersion + 1}, mid[len(checkpointMagic)+1:]),
		"flipped bit": slices.Concat(mid[:len(mid)/2], []byte{mid[len(mid)/2] ^ 4}, mid[len(mid)/2+1:]),
	}
	want := map[string]string{"truncated": "truncated", "empty": "not a checkpoint", "foreign": "not a checkpoint", "version": "format version", "flipped bit": "corrupt"}
	for name, b := range bad {
		if _, err := ReadCheckpoint(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), want[name]) {
			t.Errorf("%s: error %v, want one saying %q", name, err, want[name])
		}
	}
}

// FuzzReadCheckpoint: the checkpoint reader never panics, and the
// state of a checkpoint it accepts is restored into chains or refused
// with an error. Each input is read as it is and, sealed with a valid
// checksum, as a checkpoint's contents.
func FuzzReadCheckpoint(f *testing.F) {
	tg := newMVNTarget(10, 2, 1)
	s := Settings{Sampler: Sampler{Driver: SPT, Kernel: MH{}, Levels: 2}, Control: Control{Chains: 1, Warmup: 50, Draws: 5, Seed: 3}}
	var files ckptFiles
	s.Checkpoints = &Checkpointing{EndOfWarmup: true, AtEnd: true, Save: files.save}
	if _, err := Run(context.Background(), tg, &s); err != nil {
		f.Fatal(err)
	}
	s.Checkpoints = nil
	head := len(checkpointMagic) + 1
	for _, b := range files.files {
		f.Add(b)
		f.Add(b[head : len(b)-sha256.Size])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		restoreAll(t, tg, s, b)
		sealed := slices.Concat([]byte(checkpointMagic), []byte{CheckpointVersion}, b)
		sum := sha256.Sum256(sealed)
		restoreAll(t, tg, s, append(sealed, sum[:]...))
	})
}

// restoreAll reads a checkpoint and restores its chains, as Run does
// before sampling.
func restoreAll(t *testing.T, tg Target, s Settings, b []byte) {
	cp, err := ReadCheckpoint(bytes.NewReader(b))
	if err != nil {
		return
	}
	s.Resume = cp
	cfg, err := s.resolve()
	if err != nil || checkResume(cp, &cfg) != nil {
		return
	}
	r, err := newRunner(context.Background(), tg, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	for c := range cfg.Chains {
		ch, err := r.newChain(c)
		if err != nil {
			t.Fatal(err)
		}
		o := r.newChainOut()
		o.rec = newDrawRecord(ch, cfg.Draws)
		r.restore(c, ch, o) // an error is fine; a panic is not
	}
}

// TestShards: the shards of a run, each a process's share of its chains,
// make the whole run's draws of their chains; their final checkpoints,
// merged, give the whole run's result, and their checkpoints at the end
// of warm-up, merged, continue in one process to it.
func TestShards(t *testing.T) {
	tg := newMVNTarget(20, 2, 1)
	s := Settings{Sampler: Sampler{Driver: PT, Ladder: LadderFixed, Levels: 3}, Control: Control{Chains: 4, Warmup: 80, Draws: 60, Seed: 9}}
	full, _ := ckptRun(t, tg, s)
	var ends, warm []*Checkpoint
	for _, sh := range []Shard{{0, 1}, {1, 3}, {3, 4}} {
		p := s
		p.Shard = sh
		res, files := ckptRun(t, tg, p)
		for c := range res.Draws {
			if !reflect.DeepEqual(res.Draws[c], full.Draws[sh.From+c]) {
				t.Errorf("shard %v: chain %d's draws are not the whole run's", sh, sh.From+c)
			}
		}
		for _, f := range files {
			cp, err := ReadCheckpoint(bytes.NewReader(f))
			if err != nil {
				t.Fatal(err)
			}
			if cp.Chains() != sh {
				t.Errorf("shard %v: checkpoint of chains %v", sh, cp.Chains())
			}
			switch {
			case cp.Final:
				ends = append(ends, cp)
			case cp.Iteration == s.Warmup:
				warm = append(warm, cp)
			}
		}
	}
	// The shards' chains never meet: checkpoints of different iterations
	// go together ("mixed").
	for name, cps := range map[string][]*Checkpoint{"ends": ends, "end of warm-up": warm, "mixed": {ends[0], warm[1], ends[2]}} {
		m, err := MergeCheckpoints(cps[2], cps[0], cps[1])
		if err != nil {
			t.Fatal(err)
		}
		r := s
		r.Resume = m
		res, err := Run(context.Background(), tg, &r)
		if err != nil {
			t.Fatal(err)
		}
		if diff := sameRun(full, res); diff != "" {
			t.Errorf("merged %s: %s", name, diff)
		}
	}
	if _, err := MergeCheckpoints(ends[0], ends[2]); err == nil || !strings.Contains(err.Error(), "chain 1") {
		t.Errorf("merging without chains 1 and 2: %v", err)
	}
	if _, err := MergeCheckpoints(ends[0], ends[1]); err == nil || !strings.Contains(err.Error(), "chain 3") {
		t.Errorf("merging without chain 3: %v", err)
	}
	r := s
	r.Resume = ends[1]
	if _, err := Run(context.Background(), tg, &r); err == nil || !strings.Contains(err.Error(), "chains 1 to 2") {
		t.Errorf("resuming the whole run from chains 1 to 2: %v", err)
	}
	for name, edit := range map[string]func(*Settings){
		"stop rule":       func(s *Settings) { s.Stop = &countRule{at: 10} },
		"adaptive ladder": func(s *Settings) { s.Ladder = LadderAdaptive },
		"empty":           func(s *Settings) { s.Shard = Shard{2, 2} },
	} {
		p := s
		p.Shard = Shard{0, 2}
		edit(&p)
		if _, err := Run(context.Background(), tg, &p); err == nil {
			t.Errorf("a shard with %s ran", name)
		}
	}
}

// slowTarget is an mvnTarget whose log-likelihood takes a while: each
// clone longer than the one before, so that chains drift apart.
type slowTarget struct {
	*mvnTarget
	delay  time.Duration
	clones *atomic.Int64
}

func newSlowTarget() slowTarget {
	return slowTarget{newMVNTarget(20, 2, 1), 50 * time.Microsecond, new(atomic.Int64)}
}

func (s slowTarget) LogLik(subset []int, u, grad []float64) (float64, error) {
	time.Sleep(s.delay)
	return s.mvnTarget.LogLik(subset, u, grad)
}

func (s slowTarget) Clone() (Target, error) {
	c, err := s.mvnTarget.Clone()
	if err != nil {
		return nil, err
	}
	n := s.clones.Add(1)
	return slowTarget{c.(*mvnTarget), time.Duration(1+n%3) * 50 * time.Microsecond, s.clones}, nil
}

// TestCheckpointEvery: checkpoints come every Checkpointing.Every, in
// warm-up too (where the end of warm-up's is planned already), and each
// resumes to the run's draws.
func TestCheckpointEvery(t *testing.T) {
	tg := newSlowTarget()
	s := Settings{Sampler: Sampler{Driver: None, Kernel: MH{}}, Control: Control{Chains: 2, Warmup: 300, Draws: 100, Seed: 2}}
	var saved ckptFiles
	r := s
	r.Checkpoints = &Checkpointing{Every: 5 * time.Millisecond, EndOfWarmup: true, Save: saved.save}
	full, err := Run(context.Background(), tg, &r)
	if err != nil {
		t.Fatal(err)
	}
	files := saved.files
	inWarmup := 0
	for i, f := range files {
		cp, err := ReadCheckpoint(bytes.NewReader(f))
		if err != nil {
			t.Fatal(err)
		}
		if cp.Iteration < s.Warmup {
			inWarmup++
		}
		if i%max(1, len(files)/6) != 0 {
			continue // six of them resumed are enough
		}
		res, _ := resumeFrom(t, tg, s, f)
		if diff := sameRun(full, res); diff != "" {
			t.Errorf("resumed from iteration %d: %s", cp.Iteration, diff)
		}
	}
	if inWarmup < 2 || len(files) < 4 {
		t.Errorf("%d checkpoints, %d of them in warm-up; want one every 5 ms of a run of 400 iterations of at least 0.1 ms", len(files), inWarmup)
	}
}

// TestCheckpointDrift: chains that drift apart are each taken after their
// own iteration, and a cut across a point where they meet (a round of
// the pooled ladder, a check of the stop rule) is taken again: every
// checkpoint resumes to the run's draws.
func TestCheckpointDrift(t *testing.T) {
	tg := newSlowTarget()
	s := Settings{Sampler: Sampler{Driver: PT, Kernel: MH{}, Levels: 2}, Control: Control{Chains: 3, Warmup: 200, Draws: 150, Seed: 5, StopEvery: 20}}
	var saved ckptFiles
	r := s
	r.Stop, s.Stop = &countRule{at: 1 << 30}, &countRule{at: 1 << 30}
	r.Checkpoints = &Checkpointing{Every: 3 * time.Millisecond, Save: saved.save}
	full, err := Run(context.Background(), tg, &r)
	if err != nil {
		t.Fatal(err)
	}
	files := saved.files
	// Where the chains meet: the ladder's rounds and the stop checks.
	meet := roundEnds(s.Warmup)
	for n := s.StopEvery; n < s.Draws; n += s.StopEvery {
		meet = append(meet, s.Warmup+n)
	}
	apart := 0
	for i, f := range files {
		cp, err := ReadCheckpoint(bytes.NewReader(f))
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := (&pendingCkpt{chains: cp.file.Chains}).span()
		if lo != hi {
			apart++
		}
		for _, m := range meet {
			if lo < m && m <= hi {
				t.Errorf("a checkpoint of chains at iterations %d to %d, across iteration %d where they meet", lo, hi, m)
			}
		}
		if lo == hi && i%max(1, len(files)/4) != 0 || apart > 8 {
			continue // enough resumed
		}
		s.Stop = &countRule{at: 1 << 30}
		res, _ := resumeFrom(t, tg, s, f)
		if diff := sameRun(full, res); diff != "" {
			t.Errorf("resumed from iteration %d: %s", cp.Iteration, diff)
		}
	}
	t.Logf("%d checkpoints, %d with chains at different iterations", len(files), apart)
	if apart == 0 || len(files) < 5 {
		t.Errorf("%d checkpoints, %d with chains at different iterations", len(files), apart)
	}
}

// TestCancelAfterAChainEnded: a cancellation's checkpoint takes a chain
// that has already made all its draws at its end, and the others after
// their next iteration: the chains still running stop once it is saved,
// and it resumes to the run's draws.
func TestCancelAfterAChainEnded(t *testing.T) {
	tg := newSlowTarget()
	s := Settings{Sampler: Sampler{Driver: None, Kernel: MH{}}, Control: Control{Chains: 2, Warmup: 50, Draws: 300, Seed: 8}}
	full, err := Run(context.Background(), tg, &s)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ended atomic.Bool
	var file []byte
	r := s
	r.Recorder = RecorderFunc(func(rep *Report) {
		switch {
		case rep.Chain == 0 && rep.Iteration == rep.Total:
			ended.Store(true)
		case rep.Chain == 1 && rep.Iteration == 100:
			for !ended.Load() {
				time.Sleep(time.Millisecond)
			}
			cancel()
		}
	})
	r.Checkpoints = &Checkpointing{CancelGrace: time.Minute, Save: func(cp *Checkpoint) error {
		var err error
		file, err = cp.MarshalBinary()
		return err
	}}
	res, err := Run(ctx, tg, &r)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || file == nil || len(res.Draws[1]) >= s.Draws {
		t.Fatalf("interrupted %v, checkpoint %v, chain 1 made %d draws", res.Interrupted, file != nil, len(res.Draws[1]))
	}
	got, _ := resumeFrom(t, tg, s, file)
	if diff := sameRun(full, got); diff != "" {
		t.Error(diff)
	}
}

// TestResumeIndependence: the large fits' kernel, the independence
// sampler with a wide component and a local step, resumes exactly too.
func TestResumeIndependence(t *testing.T) {
	tg := newMVNTarget(30, 2, 3)
	D := tg.Dim()
	k := Independence{Center: make([]float64, D), Cov: make([]float64, D*D), DF: 5, Wide: 0.15, Local: 1}
	for i := range D {
		k.Cov[i*D+i] = 0.05
	}
	s := Settings{Sampler: Sampler{Driver: None, Kernel: k}, Control: Control{Chains: 2, Warmup: 40, Draws: 80, Seed: 5}}
	full, files := ckptRun(t, tg, s, 10, 40, 90)
	if len(files) < 3 {
		t.Fatalf("%d checkpoints, want at least 3", len(files))
	}
	for _, f := range files {
		res, cp := resumeFrom(t, tg, s, f)
		if diff := sameRun(full, res); diff != "" {
			t.Errorf("resumed from iteration %d: %s", cp.Iteration, diff)
		}
	}
}
