package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/diag"
)

// TestDrawsCSVPosteriorHeader checks that draws.csv starts with R
// posterior's meta-columns (.chain, .iteration within the chain, .draw
// across chains), so that posterior::as_draws_df(read.csv(...)) sees the
// chains, and that subtemper diag reads the file back to the same draws.
func TestDrawsCSVPosteriorHeader(t *testing.T) {
	p := filepath.Join(t.TempDir(), "draws.csv")
	nat := [][][]float64{{{1, 10}, {2, 20}, {3, 30}}, {{4, 40}, {5, 50}, {6, 60}}}
	var buf bytes.Buffer
	if err := subtemper.WriteDrawsCSV(&buf, []string{"a", "b"}, nat); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := ".chain,.iteration,.draw,a,b\n1,1,1,1,10\n1,2,2,2,20\n1,3,3,3,30\n2,1,4,4,40\n2,2,5,5,50\n2,3,6,6,60\n"
	if string(b) != want {
		t.Fatalf("draws.csv is\n%s\nwant\n%s", b, want)
	}
	d, err := diag.ReadCSV(strings.NewReader(string(b)), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Chains) != 2 || strings.Join(d.Names, ",") != "a,b" {
		t.Fatalf("read back %d chains, names %v", len(d.Chains), d.Names)
	}
	for v := range nat[0][0] {
		for c := range nat {
			for s := range nat[c] {
				if got := d.Values[v][c][s]; got != nat[c][s][v] {
					t.Errorf("variable %d chain %d draw %d: %v, want %v", v, c, s, got, nat[c][s][v])
				}
			}
		}
	}
}
