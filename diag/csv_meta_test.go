package diag

import (
	"strings"
	"testing"
)

// TestReadCSVPosteriorMeta reads R posterior's meta-column form
// (.chain, .iteration, .draw) and the older chain/draw form of the same
// draws, in shuffled row order, to the same Draws.
func TestReadCSVPosteriorMeta(t *testing.T) {
	meta := ".chain,.iteration,.draw,mu\n2,2,4,7\n1,1,1,1\n2,1,3,5\n1,2,2,3\n"
	old := "chain,draw,mu\n2,2,7\n1,1,1\n2,1,5\n1,2,3\n"
	noIter := ".chain,.draw,mu\n2,4,7\n1,1,1\n2,3,5\n1,2,3\n"
	want := [][]float64{{1, 3}, {5, 7}}
	for name, in := range map[string]string{"meta": meta, "old": old, "no .iteration": noIter} {
		d, err := ReadCSV(strings.NewReader(in), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(d.Names) != 1 || d.Names[0] != "mu" || len(d.Chains) != 2 {
			t.Fatalf("%s: names %v chains %v", name, d.Names, d.Chains)
		}
		for c := range want {
			for s := range want[c] {
				if got := d.Values[0][c][s]; got != want[c][s] {
					t.Errorf("%s: chain %d draw %d = %v, want %v", name, c, s, got, want[c][s])
				}
			}
		}
	}
	for in, msg := range map[string]string{
		".chain,draw,mu\n1,1,0\n":               "mixes",
		".iteration,.draw,mu\n1,1,0\n":          `no column ".chain"`,
		".chain,mu\n1,0\n":                      `no column ".iteration" or ".draw"`,
		".chain,.iteration,.draw,mu\n1,1,x,0\n": "not an integer",
		"draw,mu\n1,0\n":                        `no column ".chain" or "chain"`,
	} {
		_, err := ReadCSV(strings.NewReader(in), "bad.csv")
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: error %v, want one containing %q", in, err, msg)
		}
	}
}
