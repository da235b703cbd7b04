package diag

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/subtemper/subtemper/internal/fileio"
)

var update = flag.Bool("update", false, "regenerate the draws in testdata/ (then rerun testdata/reference.R)")

// TestGenerateTestdata writes testdata/draws_even.csv and
// testdata/draws_odd.csv when run with -update:
//
//	go test ./diag -run TestGenerateTestdata -update
//
// The files are committed; the reference values in reference_test.go were
// computed from them by testdata/reference.R. Without -update it does nothing.
func TestGenerateTestdata(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate testdata")
	}
	for _, f := range []struct {
		name  string
		draws int
		seed  uint64
	}{
		{"draws_even.csv", 1000, 1},
		{"draws_odd.csv", 501, 2},
	} {
		if err := writeCases(filepath.Join("testdata", f.name), 4, f.draws, f.seed); err != nil {
			t.Fatal(err)
		}
	}
}

// caseNames are the variables of the generated files, in column order.
var caseNames = []string{"iid", "ar1", "shifted", "cauchy", "t2", "discrete"}

// genCases draws the test cases: [variable][chain][draw].
func genCases(chains, draws int, seed uint64) [][][]float64 {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	out := make([][][]float64, len(caseNames))
	for v, name := range caseNames {
		out[v] = make([][]float64, chains)
		for c := range chains {
			x := make([]float64, draws)
			switch name {
			case "iid": // iid standard normal
				for i := range x {
					x[i] = rng.NormFloat64()
				}
			case "ar1": // stationary AR(1), ρ = 0.9, unit marginal variance
				const rho = 0.9
				s := math.Sqrt(1 - rho*rho)
				prev := rng.NormFloat64()
				for i := range x {
					if i > 0 {
						prev = rho*prev + s*rng.NormFloat64()
					}
					x[i] = prev
				}
			case "shifted": // normal draws, chain c centred at 0.3·c
				for i := range x {
					x[i] = 0.3*float64(c) + rng.NormFloat64()
				}
			case "cauchy": // standard Cauchy, a ratio of normals
				for i := range x {
					x[i] = rng.NormFloat64() / rng.NormFloat64()
				}
			case "t2": // Student t, 2 degrees of freedom
				for i := range x {
					z, a, b := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
					x[i] = z / math.Sqrt((a*a+b*b)/2)
				}
			case "discrete": // AR(1) with ρ = 0.5 rounded to integers: many ties
				prev := rng.NormFloat64()
				for i := range x {
					if i > 0 {
						prev = 0.5*prev + math.Sqrt(0.75)*rng.NormFloat64()
					}
					x[i] = math.Round(2*prev) + 0 // + 0 turns -0 into 0
				}
			}
			out[v][c] = x
		}
	}
	return out
}

func writeCases(path string, chains, draws int, seed uint64) error {
	vals := genCases(chains, draws, seed)
	return fileio.Write(path, func(w *bufio.Writer) error {
		fmt.Fprint(w, "chain,draw")
		for _, n := range caseNames {
			fmt.Fprint(w, ",", n)
		}
		fmt.Fprintln(w)
		for c := range chains {
			for i := range draws {
				fmt.Fprintf(w, "%d,%d", c+1, i+1)
				for v := range caseNames {
					fmt.Fprint(w, ",", strconv.FormatFloat(vals[v][c][i], 'g', -1, 64))
				}
				fmt.Fprintln(w)
			}
		}
		return nil
	})
}
