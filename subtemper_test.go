package subtemper

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/tempering"
)

func smallFit(t *testing.T) *GPFit {
	t.Helper()
	data, _, err := gp.Synthetic(30, 2, 7, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range data.Y {
		data.Y[i] = 50 + 10*data.Y[i]
	}
	fit, err := FitGP(context.Background(), data, GPOptions{Backend: "gonum", Standardize: true, Settings: &tempering.Settings{
		Sampler: tempering.Sampler{Driver: tempering.SPT, Kernel: tempering.MH{Sigma: 0.2}, Swap: tempering.Sweep},
		Control: tempering.Control{Warmup: 20, Draws: 30, Chains: 2, Seed: 4},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return fit
}

// TestSaveLoad: a saved fit reads back to the same model and draws, and
// predicts the same values bit for bit; folders without a complete fit
// are refused with ErrIncompleteFit.
func TestSaveLoad(t *testing.T) {
	fit := smallFit(t)
	defer fit.Close()
	dir := t.TempDir()
	if err := fit.SaveFlags(dir, map[string]any{"seed": 4}); err != nil {
		t.Fatal(err)
	}
	back, err := LoadGPFit(dir, "gonum")
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	x := []float64{0, 0, 1, -1, 5, 5}
	ctx := context.Background()
	p1, err := fit.Predict(ctx, x, 3, PredictOptions{Draws: 17})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := back.Predict(ctx, x, 3, PredictOptions{Draws: 17})
	if err != nil {
		t.Fatal(err)
	}
	if p1.Draws != 17 || !slices.Equal(p1.YMean, p2.YMean) || !slices.Equal(p1.FSD, p2.FSD) || !slices.Equal(p1.YQ[2], p2.YQ[2]) {
		t.Errorf("predictions differ after Save/Load: %v %v", p1.YMean, p2.YMean)
	}
	if !sameStd(fit.Std, back.Std) || len(back.Draws) != 2 || !slices.Equal(back.Draws[1][29], fit.Draws[1][29]) {
		t.Error("standardisation or draws differ after Save/Load")
	}
	// Incomplete folders.
	empty := t.TempDir()
	if _, err := LoadGPFit(empty, ""); !errors.Is(err, ErrIncompleteFit) || !strings.Contains(err.Error(), FitFile) {
		t.Errorf("empty folder: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, FitDataFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadGPFit(dir, ""); !errors.Is(err, ErrIncompleteFit) || !strings.Contains(err.Error(), FitDataFile) {
		t.Errorf("no data file: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, FitFile), []byte("{\"format\": \"x\"}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadGPFit(dir, ""); !errors.Is(err, ErrIncompleteFit) {
		t.Errorf("wrong format: %v", err)
	}
}

// TestPooledDraws: evenly spaced over the pooled chains, capped by default.
func TestPooledDraws(t *testing.T) {
	f := &GPFit{Draws: make([][][]float64, 2)}
	for c := range 2 {
		for s := range 3000 {
			f.Draws[c] = append(f.Draws[c], []float64{float64(c*3000 + s)})
		}
	}
	if got := f.PooledDraws(0); len(got) != MaxPredictDraws || got[1][0] != 1 || got[MaxPredictDraws-1][0] != 5998 {
		t.Errorf("default: %d draws, second %v, last %v", len(got), got[1], got[len(got)-1])
	}
	if got := f.PooledDraws(3); len(got) != 3 || got[0][0] != 0 || got[1][0] != 2000 || got[2][0] != 4000 {
		t.Errorf("3 draws: %v", got)
	}
	if got := f.PooledDraws(10000); len(got) != 6000 {
		t.Errorf("more than held: %d", len(got))
	}
	// From WarmStartMinN observations on the default is the smaller cap.
	f.Data = &gp.Data{N: WarmStartMinN, D: 1}
	if got := f.PooledDraws(0); len(got) != LargePredictDraws || got[1][0] != float64(6000/LargePredictDraws) {
		t.Errorf("default at N = %d: %d draws, second %v", WarmStartMinN, len(got), got[1])
	}
	f.Data.N--
	if got := f.PooledDraws(0); len(got) != MaxPredictDraws {
		t.Errorf("default at N = %d: %d draws", f.Data.N, len(got))
	}
}

// TestReadTestCSVDropNA: with DropNA the rows whose inputs or target
// hold NA, an empty cell or NaN are dropped and counted with their
// lines; a missing value in a column that is not read does not matter.
// Without it the first such cell is an error naming its line and column
// and pointing at --drop-na. Inf is never a missing value.
func TestReadTestCSVDropNA(t *testing.T) {
	in := []string{"a", "b"}
	const csv = "note,a,b,y\n" +
		"x,1,2,3\n" + // line 2: kept
		"x,NA,2,3\n" + // line 3: NA input
		"NA,4,5,6\n" + // line 4: kept (note is not read)
		"x,7,,9\n" + // line 5: empty input
		"x,1,2,nan\n" + // line 6: NaN target
		"x,10,20,30\n" // line 7: kept
	td, err := ReadTestCSVFrom(strings.NewReader(csv), "t.csv", in, "y", TestCSVOptions{DropNA: true})
	if err != nil {
		t.Fatal(err)
	}
	if td.N != 3 || td.Dropped != 3 || !slices.Equal(td.DroppedLines, []int{3, 5, 6}) ||
		!slices.Equal(td.X, []float64{1, 2, 4, 5, 10, 20}) || !slices.Equal(td.Y, []float64{3, 6, 30}) {
		t.Errorf("read N %d, X %v, Y %v, dropped %d at %v; want 3 rows kept, lines 3, 5, 6 dropped", td.N, td.X, td.Y, td.Dropped, td.DroppedLines)
	}
	// Without the target column, a NaN target is not read.
	td, err = ReadTestCSVFrom(strings.NewReader(csv), "t.csv", in, "z", TestCSVOptions{DropNA: true})
	if err != nil || td.N != 4 || td.Dropped != 2 || td.Y != nil {
		t.Errorf("no target column: %+v, %v", td, err)
	}
	_, err = ReadTestCSVFrom(strings.NewReader(csv), "t.csv", in, "y")
	if err == nil || !strings.Contains(err.Error(), `t.csv:3: column 2 ("a") holds "NA", a missing value`) || !strings.Contains(err.Error(), "--drop-na") {
		t.Errorf("without DropNA: %v", err)
	}
	if _, err := ReadTestCSVFrom(strings.NewReader("a,b\n1,\n"), "t.csv", in, "y"); err == nil || !strings.Contains(err.Error(), `t.csv:2: column 2 ("b") holds an empty cell`) {
		t.Errorf("empty cell: %v", err)
	}
	if _, err := ReadTestCSVFrom(strings.NewReader("a,b\n1,inf\n"), "t.csv", in, "y", TestCSVOptions{DropNA: true}); err == nil || !strings.Contains(err.Error(), "not a finite number") {
		t.Errorf("Inf with DropNA: %v", err)
	}
	if _, err := ReadTestCSVFrom(strings.NewReader("a,b\nNA,1\n"), "t.csv", in, "y", TestCSVOptions{DropNA: true}); err == nil || !strings.Contains(err.Error(), "every row holds a missing value") {
		t.Errorf("every row dropped: %v", err)
	}
	p := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(p, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	if td, err := ReadTestCSV(p, in, "y", TestCSVOptions{DropNA: true}); err != nil || td.Dropped != 3 {
		t.Errorf("ReadTestCSV with DropNA: %+v, %v", td, err)
	}
}

// TestReadTestCSV: columns matched by name in any order; missing
// columns, NaN and empty files are errors naming what is wrong.
func TestReadTestCSV(t *testing.T) {
	in := []string{"a", "b"}
	td, err := ReadTestCSVFrom(strings.NewReader("extra,b,a,y\n9,2,1,3\n9,20,10,30\n"), "t.csv", in, "y")
	if err != nil {
		t.Fatal(err)
	}
	if td.N != 2 || !slices.Equal(td.X, []float64{1, 2, 10, 20}) || !slices.Equal(td.Y, []float64{3, 30}) {
		t.Errorf("read %+v", td)
	}
	td, err = ReadTestCSVFrom(strings.NewReader("b,a\n2,1\n"), "t.csv", in, "y")
	if err != nil || td.Y != nil || td.N != 1 {
		t.Errorf("no target: %+v, %v", td, err)
	}
	for _, c := range []struct{ csv, want string }{
		{"a,c\n1,2\n", `missing input column "b"`},
		{"a,b\n1,NaN\n", `t.csv:2: column 2 ("b") holds "NaN", a missing value; drop the incomplete rows (--drop-na`},
		{"a,b\n1,Inf\n", `t.csv:2: column 2 ("b"): "Inf" is not a finite number`},
		{"a,b,y\n1,2,x\n", `column 3 ("y")`},
		{"a,b\n", "no rows"},
		{"", "empty file"},
	} {
		if _, err := ReadTestCSVFrom(strings.NewReader(c.csv), "t.csv", in, "y"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to say %q", c.csv, err, c.want)
		}
	}
}
