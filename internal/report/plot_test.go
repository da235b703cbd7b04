package report

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestFiguresWritten(t *testing.T) {
	dir := t.TempDir()
	xs := []float64{64, 128, 256, 512}
	if err := Line(filepath.Join(dir, "line"), LineSpec{
		Title: "t", XLabel: "N", YLabel: "s", LogX: true, LogY: true,
		Series: []Series{{Name: "a", X: xs, Y: []float64{1, 2, 4, 8}}, {Name: "b", X: xs, Y: []float64{1, math.NaN(), 3, 0}, Dashed: true}},
		HLine:  1.1, HLineSet: true,
	}); err != nil {
		t.Fatal(err)
	}
	if err := Bars(filepath.Join(dir, "bars"), BarSpec{Labels: []string{"1-0", "2-1"}, Values: []float64{0.4, 0.6}}); err != nil {
		t.Fatal(err)
	}
	draws := [][][]float64{{{1, 2, 3}, {3, 2, 1}}, {{2, 2, 2}, {1, 1, 1}}}
	if err := Traces(filepath.Join(dir, "trace"), []string{"x", "y"}, draws); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"line", "bars", "trace"} {
		for _, ext := range []string{".png", ".svg"} {
			fi, err := os.Stat(filepath.Join(dir, b+ext))
			if err != nil || fi.Size() < 100 {
				t.Errorf("%s%s: %v (size %v)", b, ext, err, fi)
			}
		}
	}
	if err := Line(filepath.Join(dir, "bad"), LineSpec{Series: []Series{{X: []float64{1}, Y: nil}}}); err == nil {
		t.Error("mismatched series lengths: no error")
	}
}

// TestErrorCounts: counts of one in error messages are singular.
func TestErrorCounts(t *testing.T) {
	dir := t.TempDir()
	err := Line(filepath.Join(dir, "bad"), LineSpec{Series: []Series{{Name: "s", X: []float64{1}, Y: []float64{1, 2}}}})
	if want := `report: series "s" has 1 x value and 2 y values`; err == nil || err.Error() != want {
		t.Errorf("Line: %v, want %q", err, want)
	}
	err = Bars(filepath.Join(dir, "bad"), BarSpec{Labels: []string{"a", "b"}, Values: []float64{1}})
	if want := "report: 2 labels for 1 bar"; err == nil || err.Error() != want {
		t.Errorf("Bars: %v, want %q", err, want)
	}
}

// TestTickLabels: every labelled tick's label reads back as its value.
func TestTickLabels(t *testing.T) {
	for _, r := range [][2]float64{{0.97, 1.36}, {0, 1}, {1e-3, 5e-3}, {64, 2048}, {-3, 7}} {
		for _, tk := range (PreciseTicks{}).Ticks(r[0], r[1]) {
			if tk.Label == "" {
				continue
			}
			v, err := strconv.ParseFloat(tk.Label, 64)
			if err != nil || math.Abs(v-tk.Value) > 1e-9*math.Max(1, math.Abs(tk.Value)) {
				t.Errorf("range %v: tick at %v labelled %q", r, tk.Value, tk.Label)
			}
		}
	}
}

// TestLegendBesidePlot: in the SVG, each series' legend thumbnail (a
// two-point path of the series' width) lies to the right of every point of
// every line, so the legend cannot hide one; lines are drawn up to the
// right edge of the plotting area. Without names there is no legend and no
// thumbnail.
func TestLegendBesidePlot(t *testing.T) {
	dir := t.TempDir()
	xs := []float64{64, 128, 256, 512, 1024}
	var ss []Series
	for i, name := range []string{"none", "stt", "tt", "spt", "pt"} {
		y := make([]float64, len(xs))
		for k, x := range xs {
			y[k] = float64(i+1) * 1e4 / x // falling with N, as ESS/s does
		}
		ss = append(ss, Series{Name: name, X: xs, Y: y})
	}
	paths := func(base string, series []Series) (lines, thumbs [][]float64) {
		t.Helper()
		if err := Line(filepath.Join(dir, base), LineSpec{Title: "t", XLabel: "N", YLabel: "y", LogX: true, LogY: true, Series: series}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, base+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`<path d="M([^"]*)" style="[^"]*stroke-width:1\.2"`).FindAllStringSubmatch(string(b), -1) {
			var x []float64
			for _, pt := range strings.Split(m[1], "L") {
				v, err := strconv.ParseFloat(strings.Split(pt, ",")[0], 64)
				if err != nil {
					t.Fatalf("path %q: %v", m[1], err)
				}
				x = append(x, v)
			}
			if len(x) == 2 {
				thumbs = append(thumbs, x)
			} else {
				lines = append(lines, x)
			}
		}
		return lines, thumbs
	}
	lines, thumbs := paths("named", ss)
	if len(lines) != len(ss) || len(thumbs) != len(ss) {
		t.Fatalf("%d lines and %d legend thumbnails, want %d of each", len(lines), len(thumbs), len(ss))
	}
	right := math.Inf(-1)
	for _, l := range lines {
		for _, x := range l {
			right = math.Max(right, x)
		}
	}
	for i, th := range thumbs {
		if min(th[0], th[1]) <= right {
			t.Errorf("legend thumbnail %d spans x = %v…%v, not right of the lines (up to %v)", i, th[0], th[1], right)
		}
	}
	ss[0].Name = ""
	if _, thumbs := paths("one-unnamed", ss[:1]); len(thumbs) != 0 {
		t.Errorf("an unnamed series got %d legend thumbnails", len(thumbs))
	}
}
