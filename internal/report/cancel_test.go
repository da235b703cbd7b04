package report

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestDrawContextCancel: a cancellation while a figure is being drawn
// makes DrawContext return at once with the figures drawn before it,
// whole; the abandoned goroutine's later figures never reach the folder,
// and no hidden folder is left in it.
func TestDrawContextCancel(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec := BarSpec{Labels: []string{"a", "b"}, Values: []float64{0.4, 0.6}}
	drawing, release, finished := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	var cancelled time.Time
	go func() {
		<-drawing
		cancelled = time.Now()
		cancel()
	}()
	written, cut, err := DrawContext(ctx, dir, func(folder string, keep func(string, error)) {
		base := filepath.Join(folder, "first")
		keep(base, Bars(base, spec))
		close(drawing) // the second figure "takes long": cancelled meanwhile
		<-release
		base = filepath.Join(folder, "second")
		err := Bars(base, spec)
		keep(base, err)
		finished <- err
	})
	took := time.Since(cancelled) // cancelled is set before ctx is done
	if !cut || err != nil {
		t.Errorf("DrawContext: cut %v, error %v; want cut, no error", cut, err)
	}
	if want := []string{filepath.Join(dir, "first.png"), filepath.Join(dir, "first.svg")}; !slices.Equal(written, want) {
		t.Errorf("written %v, want %v", written, want)
	}
	if took > time.Second {
		t.Errorf("DrawContext returned %v after the cancellation, want at once", took)
	}
	close(release)
	if err := <-finished; err == nil {
		t.Error("the abandoned goroutine saved a figure: its folder is still there")
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := []string{"first.png", "first.svg"}; !slices.Equal(names, want) {
		t.Errorf("%s holds %v, want %v", dir, names, want)
	}
}

// TestDrawContextDone: without a cancellation every figure is kept, a
// failed one is reported and leaves no file, and no hidden folder is
// left; a context cancelled before the start draws nothing.
func TestDrawContextDone(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	written, cut, err := DrawContext(ctx, dir, func(folder string, keep func(string, error)) {
		for _, n := range []string{"a", "b"} {
			base := filepath.Join(folder, n)
			keep(base, Bars(base, BarSpec{Labels: []string{"x"}, Values: []float64{1}}))
		}
		base := filepath.Join(folder, "bad")
		keep(base, Bars(base, BarSpec{Labels: []string{"x", "y"}, Values: []float64{1}}))
	})
	if cut || err == nil {
		t.Errorf("cut %v, error %v; want not cut, the bad figure's error", cut, err)
	}
	if len(written) != 4 {
		t.Errorf("written %v, want a and b", written)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 4 {
		t.Errorf("%s holds %d entries, want 4 (a and b, PNG and SVG)", dir, len(ents))
	}
	cancel()
	dir2 := t.TempDir()
	called := false
	written, cut, _ = DrawContext(ctx, dir2, func(string, func(string, error)) { called = true })
	if !cut || called || len(written) > 0 {
		t.Errorf("cancelled before: cut %v, draw called %v, written %v", cut, called, written)
	}
}
