package gp

import (
	"bytes"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/subtemper/subtemper/linalg"
)

func TestReadCSVErrors(t *testing.T) {
	cases := []struct {
		name, in, target string
		want             []string // substrings of the error
	}{
		{"empty", "", "", []string{"f.csv", "empty file"}},
		{"header only", "a,b,y\n", "", []string{"f.csv", "0 data rows"}},
		{"one row", "a,y\n1,2\n", "", []string{"f.csv", "1 data row after", "at least 2"}},
		{"one field", "a,y\n1,2\n3\n", "", []string{"f.csv:3", "1 field,"}},
		{"one column", "y\n1\n2\n", "", []string{"f.csv:1", "1 column"}},
		{"ragged", "a,b,y\n1,2,3\n4,5\n", "", []string{"f.csv:3", "2 fields", "has 3"}},
		{"non-numeric", "a,b,y\n1,2,3\n4,abc,6\n", "", []string{"f.csv:3", "column 2", `"b"`, `"abc" is not a number`}},
		{"nan", "a,b,y\n1,2,3\n4,5,NaN\n", "", []string{"f.csv:3", "column 3", `"y"`, "missing value", "--drop-na; CSVOptions.DropNA"}},
		{"NA", "a,b,y\n1,2,3\n4,NA,5\n", "", []string{"f.csv:3", "column 2", `"b"`, `"NA", a missing value`, "--drop-na"}},
		{"text input", "a,b,y\n1,2,3\n4,\"Ideal\",5\n", "", []string{"f.csv:3", "column 2", `"b"`, `"Ideal" is not a number`, "--exclude b"}},
		{"inf", "a,b,y\n1,2,3\n4,-Inf,5\n", "", []string{"f.csv:3", "column 2", "not finite"}},
		{"overflow", "a,b,y\n1,2,3\n4,1e400,5\n", "", []string{"f.csv:3", "column 2", "not finite"}},
		{"empty cell", "a,b,y\n1,2,3\n4,,5\n", "", []string{"f.csv:3", "column 2", "empty cell"}},
		{"constant target", "a,b,y\n1,2,3\n4,5,3\n6,7,3\n", "", []string{"f.csv:2-4", "column 3", `"y"`, "constant"}},
		{"unknown target", "a,b,y\n1,2,3\n4,5,6\n", "z", []string{"f.csv:1", `"z"`, `"a", "b", "y"`}},
		{"duplicate", "a,b,a\n1,2,3\n4,5,6\n", "", []string{"f.csv:1", "column 3", `duplicate column name "a"`, "column 1"}},
		{"empty name", "a,,y\n1,2,3\n4,5,6\n", "", []string{"f.csv:1", "column 2", "empty column name"}},
		{"bad quote", "a,b,y\n1,2,3\n4,\"5,6\n", "", []string{"f.csv:3"}},
		{"blank lines then one row", "a,y\n\n1,2\n\n", "", []string{"1 data row after"}},
	}
	for _, c := range cases {
		_, err := ReadCSV(strings.NewReader(c.in), "f.csv", CSVOptions{Target: c.target})
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", c.name, err, w)
			}
		}
	}
}

func TestReadCSVTarget(t *testing.T) {
	in := "a, y ,b\n1, 2, 3\n\n4,5,6.5\n"
	d, err := ReadCSV(strings.NewReader(in), "f.csv", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.N != 2 || d.D != 2 || d.Target != "b" || strings.Join(d.Names, ",") != "a,y" || d.Y[1] != 6.5 || d.X[2] != 4 || d.X[3] != 5 {
		t.Errorf("last column as target: %+v", d)
	}
	d, err = ReadCSV(strings.NewReader(in), "f.csv", CSVOptions{Target: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Target != "y" || strings.Join(d.Names, ",") != "a,b" || d.Y[0] != 2 || d.X[1] != 3 || d.X[3] != 6.5 {
		t.Errorf("named target: %+v", d)
	}
	if _, err := ReadCSVFile(filepath.Join(t.TempDir(), "missing.csv"), CSVOptions{}); err == nil || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("missing file: %v", err)
	}
}

// TestReadCSVBOM checks that a UTF-8 byte-order mark at the start of the
// file (as Excel and pandas' utf-8-sig write) is not part of the first
// column's name, whether that column is the target or an input, and that
// the file otherwise reads as it does without the mark.
func TestReadCSVBOM(t *testing.T) {
	for _, c := range []struct{ in, target, first string }{
		{"y,x\n1,2\n2,3\n3,5\n", "y", "y"},
		{"x, y\n1,2\n2,3\n3,5\n", "", "x"},
	} {
		plain, err := ReadCSV(strings.NewReader(c.in), "f.csv", CSVOptions{Target: c.target})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []io.Reader{
			strings.NewReader("\ufeff" + c.in),
			iotest.OneByteReader(strings.NewReader("\ufeff" + c.in)),
		} {
			d, err := ReadCSV(r, "f.csv", CSVOptions{Target: c.target})
			if err != nil {
				t.Fatalf("%q with a BOM: %v", c.in, err)
			}
			if got := append([]string{d.Target}, d.Names...); !slices.Contains(got, c.first) {
				t.Errorf("%q with a BOM: columns %q, want one named %q", c.in, got, c.first)
			}
			if !reflect.DeepEqual(d, plain) {
				t.Errorf("%q with a BOM reads as %+v, without as %+v", c.in, d, plain)
			}
		}
	}
	// Only a mark at the very start is skipped.
	d, err := ReadCSV(strings.NewReader("a,\ufeffb,y\n1,2,3\n4,5,6\n"), "f.csv", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Names[1] != "\ufeffb" {
		t.Errorf("mark inside the header: names %q", d.Names)
	}
}

func TestWriteCSVRoundTrip(t *testing.T) {
	data, _, err := Synthetic(20, 3, 5, Prior{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "d.csv")
	if err := WriteCSVFile(path, data); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSVFile(path, CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if back.N != data.N || back.D != data.D || strings.Join(back.Names, ",") != "x1,x2,x3" || back.Target != "y" {
		t.Fatalf("round trip: %+v", back)
	}
	for i := range data.X {
		if back.X[i] != data.X[i] {
			t.Fatalf("X[%d]: %v != %v", i, back.X[i], data.X[i])
		}
	}
	for i := range data.Y {
		if back.Y[i] != data.Y[i] {
			t.Fatalf("Y[%d]: %v != %v", i, back.Y[i], data.Y[i])
		}
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, &Data{N: 1, D: 1, X: []float64{1}, Y: []float64{math.NaN()}}); err == nil {
		t.Error("NaN written")
	}
}

// TestStandardize checks that the likelihood of standardised data at θ
// equals that of the original data at Original(θ), up to the Jacobian of
// the target's scaling: log p(y | θ_orig) = log p(y/s | θ) − n·log s, for
// a target with zero mean (the GP has a zero mean function).
func TestStandardize(t *testing.T) {
	data, _, err := Synthetic(30, 2, 9, Prior{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range data.X {
		data.X[i] = 3*data.X[i] + 10
	}
	m, _ := meanSD(data.Y)
	for i := range data.Y {
		data.Y[i] = 5 * (data.Y[i] - m)
	}
	std, s, err := Standardize(data, true, true)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.YMean) > 1e-12 {
		t.Fatalf("target mean %v", s.YMean)
	}
	for j := 0; j < 2; j++ {
		mj, sdj := meanSD(columnOf(std, j))
		if math.Abs(mj) > 1e-12 || math.Abs(sdj-1) > 1e-12 {
			t.Errorf("column %d: mean %v, sd %v", j, mj, sdj)
		}
	}
	u := []float64{0.3, -0.2, 0.1, -1.2}
	uo := s.OriginalU(nil, u)
	th := s.Original(nil, Theta(nil, u))
	for k := range u {
		if math.Abs(math.Exp(uo[k])-th[k]) > 1e-12*th[k] {
			t.Errorf("Original and OriginalU disagree: %v vs %v", th, Theta(nil, uo))
		}
	}
	forEachBackend(t, func(t *testing.T, be linalg.Backend) {
		ms, err := New(be, std, Options{})
		if err != nil {
			t.Fatal(err)
		}
		mo, err := New(be, data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, err1 := ms.LogLik(nil, u, nil)
		b, err2 := mo.LogLik(nil, uo, nil)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if want := a - float64(data.N)*math.Log(s.YSD); math.Abs(b-want) > 1e-9*math.Abs(want) {
			t.Errorf("original units: %v, from standardised: %v", b, want)
		}
	})
	// Identity and errors.
	if got := (Standardization{}).Original(nil, []float64{1, 2, 3}); got[0] != 1 || got[2] != 3 {
		t.Errorf("zero Standardization is not the identity: %v", got)
	}
	cst := &Data{N: 3, D: 2, X: []float64{1, 5, 1, 6, 1, 7}, Y: []float64{1, 2, 3}, Names: []string{"a", "b"}}
	if _, _, err := Standardize(cst, true, false); err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("constant input: %v", err)
	}
	if _, _, err := Standardize(cst, false, true); err != nil {
		t.Errorf("target only: %v", err)
	}
}

func columnOf(d *Data, j int) []float64 {
	c := make([]float64, d.N)
	for i := range c {
		c[i] = d.X[i*d.D+j]
	}
	return c
}
