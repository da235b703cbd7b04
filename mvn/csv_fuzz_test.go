package mvn

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// FuzzReadCSV: ReadCSV never panics, its errors are short, and what it
// reads WriteCSV writes back to a file that ReadCSV reads as the same data.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n3,4\n",
		"\uFEFFx1\n1\n",
		"\"\uFEFFx\",\"y,z\"\n1e308,-5e-324\n",
		"1,2\n3,4\n",
		"a\xff\n1\n",
		"\"a\r\nb\"\n1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := ReadCSV(bytes.NewReader(in), "f.csv")
		if err != nil {
			if n := len(err.Error()); n > 2048 {
				t.Fatalf("error message of %d bytes", n)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, d); err != nil {
			t.Fatalf("WriteCSV of what ReadCSV read: %v", err)
		}
		e, err := ReadCSV(&buf, "g.csv")
		if err != nil {
			t.Fatalf("ReadCSV of WriteCSV's output %q: %v", buf.String(), err)
		}
		if e.N != d.N || e.D != d.D || !slices.Equal(e.X, d.X) || !slices.Equal(e.Names, d.Names) {
			t.Fatalf("round trip changed the data: %+v became %+v", d, e)
		}
	})
}

// FuzzReadSigmaCSV: what ReadSigmaCSV accepts is finite, symmetric and
// positive definite, and written out in full precision it reads back the
// same.
func FuzzReadSigmaCSV(f *testing.F) {
	for _, s := range []string{
		"1\n",
		"a,b\n2,0.5\n0.5,1\n",
		"1.7976931348623157e308\n",
		"1.7e308,1.7e308\n1.7e308,1.7e308\n",
		"1e-320\n",
		"+Inf\n",
		"2,1\n1.0000000000001,2\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := ReadSigmaCSV(bytes.NewReader(in), "s.csv", 0)
		if err != nil {
			if n := len(err.Error()); n > 2048 {
				t.Fatalf("error message of %d bytes", n)
			}
			return
		}
		n := s.SymmetricDim()
		var b strings.Builder
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				v := s.At(i, j)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("Σ[%d,%d] = %v from %q", i, j, v, in)
				}
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			}
			b.WriteByte('\n')
		}
		var ch mat.Cholesky
		if !ch.Factorize(s) {
			t.Fatalf("accepted Σ is not positive definite: %q", in)
		}
		r, err := ReadSigmaCSV(strings.NewReader(b.String()), "t.csv", n)
		if err != nil {
			t.Fatalf("Σ written as %q does not read back: %v", b.String(), err)
		}
		if !mat.Equal(r, s) {
			t.Fatalf("Σ changed in the round trip: %v became %v", s, r)
		}
	})
}

// TestReadSigmaCSVOverflow: symmetrising Σ used to compute (a+b)/2, which
// turned finite entries above MaxFloat64/2 into +Inf (Σ = [[+Inf]] was
// accepted and failed later as "log density −∞" without naming the file).
func TestReadSigmaCSVOverflow(t *testing.T) {
	s, err := ReadSigmaCSV(strings.NewReader("1.7e308\n"), "s.csv", 1)
	if err == nil && s.At(0, 0) != 1.7e308 {
		t.Errorf("Σ = [[1.7e308]] read as %v", s.At(0, 0))
	}
	if err != nil && !strings.Contains(err.Error(), "s.csv") {
		t.Errorf("error %v does not name the file", err)
	}
	for _, in := range []string{"1.7e308,1e308\n1e308,1.7e308\n", "+Inf\n", "1e400\n"} {
		s, err := ReadSigmaCSV(strings.NewReader(in), "s.csv", 0)
		if err == nil {
			t.Errorf("%q accepted as %v", in, mat.Formatted(s))
		} else if !strings.Contains(err.Error(), "s.csv") {
			t.Errorf("%q: error %v does not name the file", in, err)
		}
	}
}

// TestMVNNamesRoundTrip: a first name beginning with U+FEFF reads back the
// same (it used to be stripped as a byte-order mark); names that cannot
// round-trip (CR LF, invalid UTF-8) are refused by the writer; a header of
// numbers and a non-UTF-8 header are refused by the reader.
func TestMVNNamesRoundTrip(t *testing.T) {
	for _, name := range []string{"\uFEFFa", "a\r\nb", "a\xff"} {
		d := &Data{N: 1, D: 1, X: []float64{1}, Names: []string{name}}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, d); err != nil {
			if name == "\uFEFFa" {
				t.Errorf("%q: %v", name, err)
			}
			continue
		}
		e, err := ReadCSV(&buf, "f.csv")
		if err != nil || e.Names[0] != name {
			t.Errorf("%q written as %q reads back as %v, %v", name, buf.String(), e, err)
		}
	}
	for _, in := range []string{"1,2\n3,4\n", "a\xff\n1\n"} {
		if _, err := ReadCSV(strings.NewReader(in), "f.csv"); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}
