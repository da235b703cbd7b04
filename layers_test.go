package subtemper_test

import (
	"os/exec"
	"strings"
	"testing"
)

// layers ranks the module's packages (paths below the module's): a package
// may import packages of its own layer or below, never one above it. From
// the bottom: the contract of models and samplers and the leaf utilities;
// the backends' interface; the models, the diagnostics, the samplers and
// the backends; the front door; what is built on it (the experiments, the
// figures); the programs.
var layers = map[string]int{
	"model":           0,
	"internal/allocs": 0, "internal/cputime": 0, "internal/doclinks": 0, "internal/errmsg": 0,
	"internal/fileio": 0, "internal/fit": 0, "internal/interrupt": 0, "internal/memlimit": 0,
	"internal/modrun": 0, "internal/netcdf": 0, "internal/plural": 0, "internal/report": 0,

	"linalg": 1,

	"diag": 2, "gp": 2, "mvn": 2, "tempering": 2, "cuda": 2, "linalg/openblas": 2,
	"linalg/linalgtest": 2, "tempering/temperingtest": 2, "internal/gradcheck": 2,

	"": 3,

	"bench": 4, "figures": 4,

	"cmd/subtemper": 5, "scripts/compare/bimodalcsv": 5, "scripts/compare/bimodalsearch": 5,
	"scripts/profile": 5, "scripts/startwindow": 5,
}

// TestLayers: no package of the module imports one of a layer above its
// own (go list, with and without the cuda build tag), and every package
// has a layer.
func TestLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const module = "github.com/subtemper/subtemper"
	for _, tags := range []string{"", "cuda,openblas"} {
		out, err := exec.Command("go", "list", "-e", "-tags="+tags, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").Output()
		if err != nil {
			t.Fatalf("go list (tags %q): %v", tags, err)
		}
		rel := func(p string) (string, bool) {
			if p == module {
				return "", true
			}
			r, ok := strings.CutPrefix(p, module+"/")
			return r, ok
		}
		n := 0
		for line := range strings.Lines(string(out)) {
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			pkg, _ := rel(f[0])
			lp, ok := layers[pkg]
			if !ok {
				t.Errorf("package %q has no layer: add it to layers", f[0])
				continue
			}
			n++
			for _, imp := range f[1:] {
				dep, ours := rel(imp)
				if !ours {
					continue
				}
				if ld, ok := layers[dep]; ok && ld > lp {
					t.Errorf("%s (layer %d) imports %s (layer %d), a layer above it", f[0], lp, imp, ld)
				}
			}
		}
		if n < 20 {
			t.Errorf("go list (tags %q) listed %d packages of the module: too few to be the module", tags, n)
		}
	}
}
