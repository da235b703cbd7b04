package report

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
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
		for _, tk := range (preciseTicks{}).Ticks(r[0], r[1]) {
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
