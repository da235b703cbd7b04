package figures

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/tempering"
)

// normal2 is N(0, I_2) as a one-observation target.
type normal2 struct{}

func (normal2) Dim() int    { return 2 }
func (normal2) NumObs() int { return 1 }
func (normal2) LogPrior(u, grad []float64) float64 {
	clear(grad)
	return 0
}
func (normal2) LogLik(_ []int, u, grad []float64) (float64, error) {
	if grad != nil {
		grad[0], grad[1] = -u[0], -u[1]
	}
	return -0.5 * (u[0]*u[0] + u[1]*u[1]), nil
}
func (normal2) Clone() (tempering.Target, error) { return normal2{}, nil }

// divergentRun samples N(0, I_2) with a leapfrog step near the stability
// limit and a low divergence threshold, so that some transitions
// diverge after warm-up, and reports on it as the CLI does.
func divergentRun(t *testing.T) (*tempering.Result, *subtemper.Report) {
	t.Helper()
	st := tempering.Settings{
		Sampler: tempering.Sampler{Driver: tempering.None, Kernel: tempering.HMC{StepSize: 1.9, Steps: 8, Adapt: tempering.AdaptNone, MaxEnergyError: 2}},
		Control: tempering.Control{Chains: 2, Warmup: 50, Draws: 300, Seed: 4},
	}
	res, err := tempering.Run(context.Background(), normal2{}, &st)
	if err != nil {
		t.Fatal(err)
	}
	rep := subtemper.NewReport(subtemper.SampledRun{Result: res, Settings: st, Names: []string{"a", "b"}}, subtemper.ReportOptions{})
	return res, rep
}

// checkImages fails unless base.png decodes as a PNG and base.svg is an
// SVG document.
func checkImages(t *testing.T, base string) image.Image {
	t.Helper()
	b, err := os.ReadFile(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s.png: %v", base, err)
	}
	if r := img.Bounds(); r.Dx() < 100 || r.Dy() < 100 {
		t.Errorf("%s.png is %v", base, r)
	}
	s, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(s, []byte("<svg")) || !bytes.HasSuffix(bytes.TrimSpace(s), []byte("</svg>")) {
		t.Errorf("%s.svg is not a whole SVG document", base)
	}
	return img
}

// redPixels counts the pixels of the divergences' red.
func redPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 > 180 && g>>8 < 90 && bl>>8 < 90 {
				n++
			}
		}
	}
	return n
}

// TestPairDivergences: the pair plot marks the draws after divergent
// transitions, counted as summary.json counts the target level's
// (levels[0].divergent: after warm-up); with none marked, the red is
// the key's alone.
func TestPairDivergences(t *testing.T) {
	res, rep := divergentRun(t)
	n := rep.Draws.Summarized
	div := pooledDivergent(res, n)
	if len(div) != 2*n {
		t.Fatalf("%d divergence records for 2 chains of %d draws", len(div), n)
	}
	nd, nt := divergentCount(div)
	if int64(nt) != rep.Levels[0].Divergent || nt == 0 || nd == 2*n {
		t.Fatalf("pair plot: %d divergent transitions (%d draws); the report: %d after warm-up, %d in warm-up",
			nt, nd, rep.Levels[0].Divergent, rep.Levels[0].DivergentWarmup)
	}
	dir := t.TempDir()
	paths, err := Write(dir, Run{Names: []string{"a", "b"}, Draws: res.Draws, Result: res, Report: rep})
	if err != nil {
		t.Fatal(err)
	}
	img := checkImages(t, filepath.Join(dir, "pairs"))
	if !slices.Contains(paths, filepath.Join(dir, "pairs.png")) {
		t.Errorf("pairs.png not listed: %v", paths)
	}
	// The same figure with no draw marked: the key's cross only.
	vars := byVariable(res.Draws, 2, n)
	base := filepath.Join(dir, "pairs_none")
	if err := pairFigure(base, []string{"a", "b"}, vars, []bool{false, false}, make([]int, 2*n)); err != nil {
		t.Fatal(err)
	}
	if marked, key := redPixels(img), redPixels(checkImages(t, base)); marked < key+nd {
		t.Errorf("%d red pixels with %d draws marked, %d with none", marked, nd, key)
	}
}

// TestEnergyFigure: with HMC at the target level the energy figure is
// written (PNG and SVG) and summary.json gets each chain's E-BFMI; with
// MH there is neither.
func TestEnergyFigure(t *testing.T) {
	st := tempering.Settings{Sampler: tempering.Sampler{Driver: tempering.None, Kernel: tempering.HMC{}}, Control: tempering.Control{Chains: 2, Warmup: 100, Draws: 200, Seed: 4}}
	res, err := tempering.Run(context.Background(), normal2{}, &st)
	if err != nil {
		t.Fatal(err)
	}
	rep := subtemper.NewReport(subtemper.SampledRun{Result: res, Settings: st, Names: []string{"a", "b"}}, subtemper.ReportOptions{})
	if len(rep.EBFMI) != 2 || !(rep.EBFMI[0] > 0.3) || !(rep.EBFMI[1] > 0.3) || len(rep.LowEBFMI()) != 0 {
		t.Errorf("E-BFMI %v (low: %v), want 2 values near 1", rep.EBFMI, rep.LowEBFMI())
	}
	dir := t.TempDir()
	if _, err := Write(dir, Run{Names: []string{"a", "b"}, Draws: res.Draws, Result: res, Report: rep}); err != nil {
		t.Fatal(err)
	}
	checkImages(t, filepath.Join(dir, "energy"))

	st.Kernel = tempering.MH{}
	res, err = tempering.Run(context.Background(), normal2{}, &st)
	if err != nil {
		t.Fatal(err)
	}
	rep = subtemper.NewReport(subtemper.SampledRun{Result: res, Settings: st, Names: []string{"a", "b"}}, subtemper.ReportOptions{})
	if rep.EBFMI != nil {
		t.Errorf("MH: E-BFMI %v", rep.EBFMI)
	}
	dir = t.TempDir()
	paths, err := Write(dir, Run{Names: []string{"a", "b"}, Draws: res.Draws, Result: res, Report: rep})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if strings.Contains(p, "energy") {
			t.Errorf("MH: %s written", p)
		}
	}
}
