package subtemper

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// normalDraws returns chains × n draws of 2 variables, independent
// standard normals shifted by shift[c] in chain c.
func normalDraws(chains, n int, shift []float64) [][][]float64 {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([][][]float64, chains)
	for c := range out {
		out[c] = make([][]float64, n)
		for s := range out[c] {
			out[c][s] = []float64{r.NormFloat64() + shift[c], 3 * r.NormFloat64()}
		}
	}
	return out
}

// sameDraws reports whether d holds draws[c][s][v] in Values[v][c][s].
func sameDraws(d *Draws, draws [][][]float64) bool {
	for v := range d.Values {
		for c := range d.Values[v] {
			if len(d.Values[v][c]) != len(draws[c]) {
				return false
			}
			for s, x := range d.Values[v][c] {
				if x != draws[c][s][v] {
					return false
				}
			}
		}
	}
	return len(d.Values) == len(draws[0][0]) && len(d.Chains) == len(draws)
}

// TestReadDraws: ReadDrawsCSV and ReadDrawsNetCDF read back exactly what
// WriteDrawsCSV and WriteDrawsNetCDF write; a file that is not netCDF is
// an error naming it.
func TestReadDraws(t *testing.T) {
	draws := normalDraws(3, 50, []float64{0, 0, 0})
	names := []string{"a", "b,c"}
	var csv, nc bytes.Buffer
	if err := WriteDrawsCSV(&csv, names, draws); err != nil {
		t.Fatal(err)
	}
	if err := WriteDrawsNetCDF(&nc, "test", names, draws); err != nil {
		t.Fatal(err)
	}
	dc, err := ReadDrawsCSV(&csv, "draws.csv", false)
	if err != nil {
		t.Fatal(err)
	}
	dn, err := ReadDrawsNetCDF(&nc, "draws.nc")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Draws{dc, dn} {
		if strings.Join(d.Names, "|") != "a|b,c" || !sameDraws(d, draws) || d.Chains[0] != 1 || d.Chains[2] != 3 {
			t.Errorf("read back: names %q, chains %v, the draws as written: %v", d.Names, d.Chains, sameDraws(d, draws))
		}
	}
	if _, err := ReadDrawsNetCDF(strings.NewReader("x,y\n1,2\n"), "bad.nc"); err == nil || !strings.Contains(err.Error(), "bad.nc") {
		t.Errorf("not netCDF: error %v, want one naming bad.nc", err)
	}
}

// TestDiagnose: independent draws of the same distribution in every
// chain converge, with sd and mean near the truth; chains centred 5 sd
// apart do not, and their R-hat says so.
func TestDiagnose(t *testing.T) {
	to := func(draws [][][]float64) *Draws {
		var b bytes.Buffer
		if err := WriteDrawsCSV(&b, []string{"x", "y"}, draws); err != nil {
			t.Fatal(err)
		}
		d, err := ReadDrawsCSV(&b, "d.csv", false)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	sums, v, err := Diagnose(to(normalDraws(4, 1000, []float64{0, 0, 0, 0})))
	if err != nil {
		t.Fatal(err)
	}
	if !v.Converged || len(sums) != 2 || math.Abs(sums[0].Mean) > 0.1 || math.Abs(sums[1].SD-3) > 0.2 {
		t.Errorf("iid draws: converged %v, summaries %+v", v.Converged, sums)
	}
	sums, v, err = Diagnose(to(normalDraws(4, 1000, []float64{0, 5, 0, 5})))
	if err != nil {
		t.Fatal(err)
	}
	if v.Converged || !(sums[0].Rhat > 1.5) || !(sums[1].Rhat < 1.01) {
		t.Errorf("chains 5 sd apart in x: converged %v, R-hat of x %v, of y %v", v.Converged, sums[0].Rhat, sums[1].Rhat)
	}
}
