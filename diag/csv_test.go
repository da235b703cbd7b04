package diag

import (
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestReadCSV(t *testing.T) {
	// Rows out of order, spaces, a comment, a blank line, NA and Inf, and
	// a variable column before draw.
	in := `# draws
chain, mu ,draw,sigma
2,0.5,2,NA
1,1.5,1,1

1,2.5,2,Inf
2,-0.5,1,-Inf
`
	d, err := ReadCSV(strings.NewReader(in), "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Names, []string{"mu", "sigma"}) || !reflect.DeepEqual(d.Chains, []int{1, 2}) {
		t.Fatalf("names %q chains %v", d.Names, d.Chains)
	}
	mu, _ := d.Variable("mu")
	if !reflect.DeepEqual(mu, [][]float64{{1.5, 2.5}, {-0.5, 0.5}}) {
		t.Errorf("mu = %v", mu)
	}
	sigma, ok := d.Variable("sigma")
	if !ok || sigma[0][0] != 1 || !math.IsInf(sigma[0][1], 1) || !math.IsInf(sigma[1][0], -1) || !math.IsNaN(sigma[1][1]) {
		t.Errorf("sigma = %v", sigma)
	}
	if _, ok := d.Variable("nope"); ok {
		t.Error("Variable(nope) found")
	}

	// The committed test data: 4 chains of 1000 draws of 6 variables.
	e := readTestdata(t, "even")
	if len(e.Values) != 6 || len(e.Chains) != 4 || len(e.Values[0][3]) != 1000 || e.Values[0][0][0] != -0.7340068224093685 {
		t.Errorf("draws_even.csv: %d variables, %d chains", len(e.Values), len(e.Chains))
	}
}

// TestReadCSVBOM checks that a UTF-8 byte-order mark at the start of the
// file is skipped, also before a comment line, and that the file
// otherwise reads as it does without the mark.
func TestReadCSVBOM(t *testing.T) {
	for _, in := range []string{
		"chain,draw,mu\n1,1,0.5\n1,2,0.7\n2,1,0.1\n2,2,0.3\n",
		"# draws\nchain,draw,mu\n1,1,0.5\n1,2,0.7\n2,1,0.1\n2,2,0.3\n",
	} {
		plain, err := ReadCSV(strings.NewReader(in), "x.csv")
		if err != nil {
			t.Fatal(err)
		}
		d, err := ReadCSV(strings.NewReader("\ufeff"+in), "x.csv")
		if err != nil {
			t.Fatalf("%q with a BOM: %v", in, err)
		}
		if !reflect.DeepEqual(d, plain) || !reflect.DeepEqual(d.Names, []string{"mu"}) {
			t.Errorf("%q with a BOM reads as %+v, without as %+v", in, d, plain)
		}
	}
	// A mark after the start is part of the name it precedes.
	d, err := ReadCSV(strings.NewReader("chain,draw,\ufeffmu\n1,1,0.5\n"), "x.csv")
	if err != nil || !reflect.DeepEqual(d.Names, []string{"\ufeffmu"}) {
		t.Errorf("mark inside the header: %v, %v", d, err)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadCSVErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		line     int
		column   int
		msg      string // substring of the error message
	}{
		{"empty", "", 0, 0, "x.csv: empty file"},
		{"comments only", "# nothing\n\n", 0, 0, "empty file"},
		{"no chain", "draw,mu\n1,2\n", 1, 0, `x.csv:1: header has no column ".chain" or "chain"`},
		{"no draw", "chain,mu\n1,2\n", 1, 0, `no column "draw"`},
		{"no variables", "chain,draw\n1,1\n", 1, 0, "no variable columns"},
		{"empty name", "chain,draw,,mu\n", 1, 3, "x.csv:1:3: empty column name"},
		{"repeated name", "chain,draw,mu,mu\n", 1, 4, `x.csv:1:4: column "mu": repeats the name of column 3`},
		{"header only", "chain,draw,mu\n", 0, 0, "no draws"},
		{"not a number", "chain,draw,mu,sigma\n1,1,2,3\n1,2,2,abc\n", 3, 4, `x.csv:3:4: column "sigma": "abc" is not a number`},
		{"empty field", "chain,draw,mu\n1,1,\n", 2, 3, `x.csv:2:3: column "mu": "" is not a number`},
		{"bad chain", "chain,draw,mu\n1,1,2\nb,2,3\n", 3, 1, `x.csv:3:1: column "chain": "b" is not an integer label`},
		{"fractional draw", "chain,draw,mu\n1,1.5,2\n", 2, 2, `x.csv:2:2: column "draw": "1.5" is not an integer label`},
		{"short row", "chain,draw,mu,sigma\n1,1,2,3\n1,2,2\n", 3, 0, "x.csv:3: 3 fields, want 4 as in the header"},
		{"long row", "chain,draw,mu\n1,1,2,3\n", 2, 0, "x.csv:2: 4 fields, want 3"},
		{"one field", "chain,draw,mu\n1,1,2\n7\n", 3, 0, "x.csv:3: 1 field, want 3 as in the header"},
		{"unequal chains", "chain,draw,mu\n1,1,1\n1,2,1\n2,1,1\n", 0, 0, "chain 2 has 1 draw, chain 1 has 2"},
		{"repeated draw", "chain,draw,mu\n1,1,1\n1,2,1\n2,1,1\n1,2,5\n2,2,1\n", 5, 2, "x.csv:5:2: column \"draw\": chain 1 has draw 2 twice (lines 3 and 5)"},
		{"bad quote", "chain,draw,mu\n1,1,\"2\n", 2, 0, "x.csv:2: invalid CSV"},
	} {
		_, err := ReadCSV(strings.NewReader(tc.in), "x.csv")
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: error %v is not an *InputError", tc.name, err)
			continue
		}
		if ie.Line != tc.line || ie.Column != tc.column || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "diag: x.csv") {
			t.Errorf("%s: error %q (line %d, column %d), want line %d, column %d, containing %q",
				tc.name, err, ie.Line, ie.Column, tc.line, tc.column, tc.msg)
		}
	}
	_, err := ReadCSV(failingReader{}, "x.csv")
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("reader failure: %v", err)
	}
	_, err = ReadCSV(io.MultiReader(strings.NewReader("chain,draw,mu\n1,1,1\n"), failingReader{}), "x.csv")
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("reader failure after the header: %v", err)
	}
}

func TestReadCSVTruncate(t *testing.T) {
	in := "chain,draw,x\n1,1,0.5\n1,2,0.7\n1,3,0.9\n2,2,1.5\n2,1,1.2\n"
	if _, err := ReadCSV(strings.NewReader(in), "r.csv"); err == nil || !strings.Contains(err.Error(), "--truncate") {
		t.Fatalf("unequal chains: err = %v, want an error suggesting --truncate", err)
	}
	d, err := ReadCSVWith(strings.NewReader(in), "r.csv", CSVOptions{Truncate: true})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := d.Variable("x")
	if len(x) != 2 || len(x[0]) != 2 || len(x[1]) != 2 || x[0][1] != 0.7 || x[1][0] != 1.2 {
		t.Errorf("truncated draws %v, want [[0.5 0.7] [1.2 1.5]]", x)
	}
}
