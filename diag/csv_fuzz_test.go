package diag

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/subtemper/subtemper/internal/fileio"
)

// writeLong writes d in long form, chains under their labels, draws
// numbered from 1.
func writeLong(t *testing.T, d *Draws) string {
	var b bytes.Buffer
	if err := fileio.WriteHeader(&b, append([]string{"chain", "draw"}, d.Names...)); err != nil {
		t.Fatalf("names %q: %v", d.Names, err)
	}
	for c, label := range d.Chains {
		for s := range d.Values[0][c] {
			b.WriteString(strconv.Itoa(label) + "," + strconv.Itoa(s+1))
			for v := range d.Names {
				b.WriteString("," + strconv.FormatFloat(d.Values[v][c][s], 'g', -1, 64))
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// FuzzReadCSV: ReadCSVWith never panics, its errors are short, and the
// draws it reads, written in long form, read back the same.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"chain,draw,a\n1,1,0.5\n1,2,NA\n2,1,Inf\n2,2,-Inf\n",
		"# comment\n\uFEFFchain,draw,\"x,y\"\n-3,10,1e308\n-3,9,5e-324\n",
		"\"\uFEFFa\",chain,draw\n1,1,1\n",
		"\"#a\",chain,draw\n1,1,1\n",
		"chain,draw,a\xff\n1,1,1\n",
		"chain,draw,\"a\r\nb\"\n1,1,1\n",
		"chain,draw,a\n1,1,1\n1,2,2\n2,1,3\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, in []byte, truncate bool) {
		d, err := ReadCSVWith(bytes.NewReader(in), "f.csv", CSVOptions{Truncate: truncate})
		if err != nil {
			if n := len(err.Error()); n > 2048 {
				t.Fatalf("error message of %d bytes", n)
			}
			return
		}
		out := writeLong(t, d)
		e, err := ReadCSV(strings.NewReader(out), "g.csv")
		if err != nil {
			t.Fatalf("%q does not read back: %v", out, err)
		}
		if strings.Join(e.Names, "\x00") != strings.Join(d.Names, "\x00") || len(e.Chains) != len(d.Chains) {
			t.Fatalf("names or chains changed: %q %v became %q %v", d.Names, d.Chains, e.Names, e.Chains)
		}
		for v := range d.Values {
			for c := range d.Values[v] {
				if e.Chains[c] != d.Chains[c] || len(e.Values[v][c]) != len(d.Values[v][c]) {
					t.Fatalf("chain %d changed", c)
				}
				for s, x := range d.Values[v][c] {
					if !sameFloat(x, e.Values[v][c][s]) {
						t.Fatalf("value [%d][%d][%d] %v became %v", v, c, s, x, e.Values[v][c][s])
					}
				}
			}
		}
	})
}

// TestReadCSVNames: a first column name beginning with U+FEFF, written
// quoted, reads back whole; a non-UTF-8 name (which the JSON output would
// spell differently) and a control character are refused; an enormous cell
// is quoted in part (a 200 MB cell used to be quoted whole).
func TestReadCSVNames(t *testing.T) {
	d, err := ReadCSV(strings.NewReader("\"\uFEFFa\",chain,draw\n1,1,1\n"), "f.csv")
	if err != nil || d.Names[0] != "\uFEFFa" {
		t.Errorf("got %v, %v", d, err)
	}
	for _, in := range []string{"chain,draw,a\xff\n1,1,1\n", "chain,draw,\"a\r\nb\"\n1,1,1\n"} {
		if _, err := ReadCSV(strings.NewReader(in), "f.csv"); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	_, err = ReadCSV(strings.NewReader("chain,draw,a\n1,1,"+strings.Repeat("z", 1<<20)+"\n"), "f.csv")
	if err == nil || len(err.Error()) > 300 {
		t.Errorf("error of %d bytes for a 1 MiB cell", len(err.Error()))
	}
}
