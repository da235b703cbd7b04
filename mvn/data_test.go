package mvn

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestSyntheticPrefixAndMoments(t *testing.T) {
	const d = 6
	small, s1, th1, err := Synthetic(50, d, 9, SynthOptions{})
	if err != nil {
		t.Fatal(err)
	}
	big, s2, th2, err := Synthetic(4000, d, 9, SynthOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(s1, s2) {
		t.Error("Σ depends on N")
	}
	for j := range th1 {
		if th1[j] != th2[j] {
			t.Fatalf("θ depends on N")
		}
	}
	for i := range small.X {
		if small.X[i] != big.X[i] {
			t.Fatalf("X[%d] depends on N", i)
		}
	}
	// Σ is the AR(1) matrix, correlated.
	if s1.At(0, 1) != 0.5 || s1.At(0, 2) != 0.25 || s1.At(3, 3) != 1 {
		t.Errorf("Σ = %v", mat.Formatted(s1))
	}
	// Sample mean and covariance of the big sample: mean θ, covariance Σ.
	n := float64(big.N)
	mean := make([]float64, d)
	for i := 0; i < big.N; i++ {
		for j := 0; j < d; j++ {
			mean[j] += big.X[i*d+j] / n
		}
	}
	for j := range mean {
		if math.Abs(mean[j]-th1[j]) > 4/math.Sqrt(n) {
			t.Errorf("sample mean %v, θ %v", mean, th1)
		}
	}
	for a := 0; a < d; a++ {
		for b := 0; b < d; b++ {
			var c float64
			for i := 0; i < big.N; i++ {
				c += (big.X[i*d+a] - mean[a]) * (big.X[i*d+b] - mean[b])
			}
			c /= n - 1
			if math.Abs(c-s1.At(a, b)) > 5*math.Sqrt(2/n) {
				t.Errorf("sample cov[%d,%d] = %v, Σ %v", a, b, c, s1.At(a, b))
			}
		}
	}
	if _, err := ARSigma(3, 1, 1); err == nil {
		t.Error("ρ = 1 accepted")
	}
	if _, _, _, err := Synthetic(5, 3, 1, SynthOptions{Sigma: mat.NewSymDense(3, nil)}); err == nil {
		t.Error("singular Σ accepted")
	}
}

func TestCSV(t *testing.T) {
	data, _, _, err := Synthetic(10, 3, 2, SynthOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.csv")
	if err := WriteCSVFile(path, data); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSVFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.N != 10 || back.D != 3 || strings.Join(back.Names, ",") != "x1,x2,x3" {
		t.Fatalf("round trip %+v", back)
	}
	for i := range data.X {
		if back.X[i] != data.X[i] {
			t.Fatalf("X[%d]: %v != %v", i, back.X[i], data.X[i])
		}
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, &Data{N: 1, D: 1, X: []float64{math.Inf(1)}}); err == nil {
		t.Error("Inf written")
	}
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "x.csv: empty file"},
		{"header only", "a,b\n", "no data rows"},
		{"ragged", "a,b\n1,2\n3\n", "x.csv:3: row has 1 field, want 2"},
		{"text", "a,b\n1,2\n3,four\n", `x.csv:3: column 2 ("b"): "four" is not a number`},
		{"nan", "a,b\n1,nan\n", `x.csv:2: column 2 ("b"): "nan" is not finite`},
		{"duplicate", "a,a\n1,2\n", `x.csv:1: column 2: duplicate column name "a"`},
	} {
		_, err := ReadCSV(strings.NewReader(c.in), "x.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestReadSigmaCSV(t *testing.T) {
	good := "2, 0.5, 0\n0.5, 1, 0.25\n0, 0.25, 3\n"
	s, err := ReadSigmaCSV(strings.NewReader(good), "s.csv", 3)
	if err != nil {
		t.Fatal(err)
	}
	if s.At(0, 1) != 0.5 || s.At(2, 2) != 3 {
		t.Errorf("Σ = %v", mat.Formatted(s))
	}
	if s, err := ReadSigmaCSV(strings.NewReader("a,b,c\n"+good), "s.csv", 0); err != nil || s.SymmetricDim() != 3 {
		t.Errorf("with a header: %v", err)
	}
	for _, c := range []struct {
		name, in string
		d        int
		want     string
	}{
		{"empty", "", 3, "s.csv: empty covariance file"},
		{"wrong d", good, 4, "s.csv:1: covariance rows have 3 columns; the observations have 4 dimensions"},
		{"not square", "1,0\n0,1\n0,0\n", 0, "3 rows of 2 columns"},
		{"ragged", "1,0\n0\n", 0, "s.csv:2: row has 1 field, want 2"},
		{"asymmetric", "1,0.5\n0.4,1\n", 2, "s.csv:2: column 1: Σ is not symmetric"},
		{"negative variance", "1,0\n0,-1\n", 2, "s.csv:2: column 2: Σ is not positive definite"},
		{"indefinite", "1,2\n2,1\n", 2, "symmetric but not positive definite"},
		{"text", "1,x\n0,1\n", 2, `s.csv:1: column 2: "x" is not a number`},
		{"duplicate header", "a,a\n1,0\n0,1\n", 2, `s.csv:1: column 2: duplicate column name "a"`},
		{"nan", "1,0\n0,NaN\n", 2, "s.csv:2: column 2: \"NaN\" is not finite"},
		{"header mismatch", "a,b\n1,0,0\n", 0, "s.csv:2: row has 3 fields, want 2"},
	} {
		_, err := ReadSigmaCSV(strings.NewReader(c.in), "s.csv", c.d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
