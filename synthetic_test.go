package subtemper

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSyntheticGPData: the same seed gives the same data, another seed
// other data; the data have the shape asked for, and WriteGPData writes
// what ReadGPData reads back exactly.
func TestSyntheticGPData(t *testing.T) {
	ctx := context.Background()
	d, theta, err := SyntheticGPData(ctx, 30, 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	if d.N != 30 || d.D != 2 || len(d.X) != 60 || len(d.Y) != 30 || len(theta) != 4 {
		t.Fatalf("N = %d, D = %d, %d inputs, %d targets, θ of %d values; want 30, 2, 60, 30, 4", d.N, d.D, len(d.X), len(d.Y), len(theta))
	}
	again, theta2, _ := SyntheticGPData(ctx, 30, 2, 7)
	if !slices.Equal(d.X, again.X) || !slices.Equal(d.Y, again.Y) || !slices.Equal(theta, theta2) {
		t.Error("seed 7 twice gave different data")
	}
	other, _, _ := SyntheticGPData(ctx, 30, 2, 8)
	if slices.Equal(d.Y, other.Y) {
		t.Error("seeds 7 and 8 gave the same targets")
	}
	path := filepath.Join(t.TempDir(), "data.csv")
	if err := WriteGPData(path, d); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, info, err := ReadGPData(f, path, GPDataOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if back.N != d.N || back.D != d.D || !slices.Equal(back.X, d.X) || !slices.Equal(back.Y, d.Y) || info.Dropped != 0 {
		t.Error("the data read back differ from those written")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := SyntheticGPData(cctx, 500, 2, 7); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
}

// TestReadGPDataOptions: the options choose the target and inputs and
// drop the rows with missing values.
func TestReadGPDataOptions(t *testing.T) {
	csv := "a,b,note,y\n1,2,x,3\n4,NA,z,6\n7,8,w,9\n10,11,v,12\n"
	d, info, err := ReadGPData(strings.NewReader(csv), "t.csv", GPDataOptions{Target: "a", Inputs: []string{"y"}, DropNA: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.D != 1 || d.N != 4 || d.TargetName() != "a" || !slices.Equal(d.X, []float64{3, 6, 9, 12}) || info.Dropped != 0 {
		t.Errorf("target a, input y: D = %d, N = %d, target %q, X = %v, dropped %d", d.D, d.N, d.TargetName(), d.X, info.Dropped)
	}
	d, info, err = ReadGPData(strings.NewReader(csv), "t.csv", GPDataOptions{Exclude: []string{"note"}, DropNA: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.D != 2 || d.N != 3 || info.Dropped != 1 || !slices.Equal(info.DroppedLines, []int{3}) {
		t.Errorf("excluding note: D = %d, N = %d, dropped %d (lines %v); want 2, 3, 1 (line 3)", d.D, d.N, info.Dropped, info.DroppedLines)
	}
}

// TestSyntheticMVNData: without Σ the data's Σ is AR(1) with ρ = 0.5;
// the same seed gives the same data; WriteMVNData writes what
// ReadMVNData reads back; ReadMVNSigma reads a Σ.
func TestSyntheticMVNData(t *testing.T) {
	ctx := context.Background()
	d, sigma, theta, err := SyntheticMVNData(ctx, 40, 3, 5, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.N != 40 || d.D != 3 || len(theta) != 3 {
		t.Fatalf("N = %d, D = %d, θ of %d values; want 40, 3, 3", d.N, d.D, len(theta))
	}
	for i := range 3 {
		for j := range 3 {
			if want := math.Pow(0.5, math.Abs(float64(i-j))); math.Abs(sigma.At(i, j)-want) > 1e-15 {
				t.Errorf("Σ[%d,%d] = %v, want %v", i, j, sigma.At(i, j), want)
			}
		}
	}
	again, _, theta2, _ := SyntheticMVNData(ctx, 40, 3, 5, 2, nil)
	if !slices.Equal(d.X, again.X) || !slices.Equal(theta, theta2) {
		t.Error("seed 5 twice gave different data")
	}
	path := filepath.Join(t.TempDir(), "data.csv")
	if err := WriteMVNData(path, d); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := ReadMVNData(f, path)
	if err != nil {
		t.Fatal(err)
	}
	if back.N != d.N || back.D != d.D || !slices.Equal(back.X, d.X) {
		t.Error("the data read back differ from those written")
	}
	s, err := ReadMVNSigma(strings.NewReader("2,0.5\n0.5,1\n"), "s.csv", 2)
	if err != nil {
		t.Fatal(err)
	}
	if s.At(0, 0) != 2 || s.At(0, 1) != 0.5 || s.At(1, 1) != 1 {
		t.Errorf("Σ read as %v", s)
	}
	d2, sigma2, _, err := SyntheticMVNData(ctx, 10, 2, 5, 0, s)
	if err != nil {
		t.Fatal(err)
	}
	if d2.D != 2 || sigma2.At(0, 0) != 2 || sigma2.At(0, 1) != 0.5 {
		t.Errorf("with Σ given: D = %d, Σ = %v", d2.D, sigma2)
	}
}
