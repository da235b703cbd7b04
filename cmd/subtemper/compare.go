package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/subtemper/subtemper"
)

// compareFlags are the flags of the compare command.
type compareFlags struct {
	json bool
}

func compareFlagSet(f *compareFlags) *flagSet {
	fs := newFlagSet("subtemper compare", "subtemper compare [--json] DIR DIR...",
		`Compares fits written by `+"`subtemper gp --out DIR`"+` on the same data side by side: the log
evidence log p(y) (--evidence) with its standard error, and each fit's difference from the
best with the standard error of the difference (independent runs: the errors add in
quadrature); elpd_loo (--loo) with its standard error, p_loo and the number of points with
Pareto k > 0.7, and each fit's difference from the best with the paired standard error
√(N·Var_i(elpd_a,i − elpd_b,i)) from the fits' loo.csv, as R's loo_compare computes it; and
the held-out metrics of predictions.json (--predict with the target column) where a fit
has them. A difference of less than about 2 standard errors does not separate two fits.`)
	fs.boolean(&f.json, "json", false, "print the comparison as JSON instead of a table")
	return fs
}

// compareFit is one fit in the comparison.
type compareFit struct {
	Dir      string `json:"dir"`
	Kernel   string `json:"kernel,omitempty"`
	Sampler  string `json:"sampler"`
	N        int    `json:"n"`
	DataFile string `json:"data_file,omitempty"`
	// DataSHA256 is summary.json's data.sha256, the checksum of the data
	// fitted (absent in fits written before it was recorded).
	DataSHA256 string  `json:"data_sha256,omitempty"`
	LogZ       *numSE  `json:"log_evidence,omitempty"`
	DLogZ      *numSE  `json:"log_evidence_diff,omitempty"`
	ELPD       *numSE  `json:"elpd_loo,omitempty"`
	DELPD      *numSE  `json:"elpd_loo_diff,omitempty"`
	PLOO       *num    `json:"p_loo,omitempty"`
	KOver07    *int    `json:"k_over_0_7,omitempty"`
	HeldOut    *heldJS `json:"held_out,omitempty"`
	DMLPD      *num    `json:"held_out_mlpd_diff,omitempty"`
	pointwis   []float64
}

// numSE is an estimate with its standard error.
type numSE struct {
	Value num `json:"value"`
	SE    num `json:"se"`
}

// heldJS is a fit's held-out metrics (predictions.json).
type heldJS struct {
	TestFile   string `json:"test_file"`
	N          int    `json:"n"`
	RMSE       num    `json:"rmse"`
	MLPD       num    `json:"mlpd"`
	Coverage90 num    `json:"coverage90"`
}

// compareJSON is the compare command's --json output.
type compareJSON struct {
	Fits []compareFit `json:"fits"`
	// BestEvidence and BestELPD name the fits the differences are taken
	// from (the largest log evidence, the largest elpd_loo).
	BestEvidence string   `json:"best_evidence,omitempty"`
	BestELPD     string   `json:"best_elpd_loo,omitempty"`
	Warnings     []string `json:"warnings"`
}

// cmdCompare is the compare command.
func cmdCompare(_ context.Context, args []string, io *stdio) error {
	var f compareFlags
	fs := compareFlagSet(&f)
	dirs, err := fs.parse(args, io.out)
	if err != nil {
		return err
	}
	if len(dirs) < 2 {
		return usagef("compare needs at least two fit folders, got %d", len(dirs))
	}
	out, err := compareFits(dirs)
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(io.out, out)
	}
	printCompare(io.out, out)
	return nil
}

// readFit reads what compare needs from a fit folder.
func readFit(dir string) (compareFit, error) {
	cf := compareFit{Dir: dir}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return cf, usagef("%s is not a fit folder of `subtemper gp --out`: %v", dir, err)
	}
	var s struct {
		Command string         `json:"command"`
		Sampler string         `json:"sampler"`
		Data    map[string]any `json:"data"`
		Evid    *struct {
			LogZ *float64 `json:"log_z"`
			SE   *float64 `json:"se"`
		} `json:"evidence"`
		LOO *struct {
			ELPD    *float64 `json:"elpd_loo"`
			SE      *float64 `json:"se"`
			PLOO    *float64 `json:"p_loo"`
			KOver07 int      `json:"k_over_0_7"`
			File    string   `json:"file"`
		} `json:"loo"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return cf, usagef("%s: summary.json: %v", dir, err)
	}
	if s.Command != "gp" {
		return cf, usagef("%s holds a run of the %q command, not of gp", dir, s.Command)
	}
	cf.Sampler = s.Sampler
	if k, ok := s.Data["kernel"].(string); ok {
		cf.Kernel = k
	}
	if n, ok := s.Data["n"].(float64); ok {
		cf.N = int(n)
	}
	if p, ok := s.Data["file"].(string); ok {
		cf.DataFile = p
	}
	if h, ok := s.Data["sha256"].(string); ok {
		cf.DataSHA256 = h
	}
	val := func(p *float64) num {
		if p == nil {
			return num(math.NaN())
		}
		return num(*p)
	}
	if s.Evid != nil {
		cf.LogZ = &numSE{val(s.Evid.LogZ), val(s.Evid.SE)}
	}
	if s.LOO != nil {
		cf.ELPD = &numSE{val(s.LOO.ELPD), val(s.LOO.SE)}
		p := val(s.LOO.PLOO)
		k := s.LOO.KOver07
		cf.PLOO, cf.KOver07 = &p, &k
		if s.LOO.File != "" {
			pw, err := readLOOCSV(filepath.Join(dir, s.LOO.File))
			if err != nil {
				return cf, err
			}
			cf.pointwis = pw
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "predictions.json")); err == nil {
		var h struct {
			TestFile   string   `json:"test_file"`
			N          int      `json:"n"`
			RMSE       *float64 `json:"rmse"`
			MLPD       *float64 `json:"mlpd"`
			Coverage90 *float64 `json:"coverage90"`
		}
		if err := json.Unmarshal(b, &h); err != nil {
			return cf, usagef("%s: predictions.json: %v", dir, err)
		}
		cf.HeldOut = &heldJS{TestFile: h.TestFile, N: h.N, RMSE: val(h.RMSE), MLPD: val(h.MLPD), Coverage90: val(h.Coverage90)}
	}
	return cf, nil
}

// readLOOCSV reads the elpd_loo column of a loo.csv.
func readLOOCSV(path string) ([]float64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, usagef("%v", err)
	}
	defer fh.Close()
	rec, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		return nil, usagef("%s: %v", path, err)
	}
	if len(rec) < 2 || len(rec[0]) < 2 || rec[0][1] != "elpd_loo" {
		return nil, usagef("%s: not a loo.csv of `subtemper gp --loo`", path)
	}
	out := make([]float64, 0, len(rec)-1)
	for i, r := range rec[1:] {
		v, err := strconv.ParseFloat(r[1], 64)
		if err != nil {
			return nil, usagef("%s: line %d: %v", path, i+2, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// sameData reports whether two fits were fitted to the same data: the same
// N and the same checksum of the data, or, for fits that record no
// checksum, the same data file path.
func sameData(a, b *compareFit) bool {
	if a.N != b.N {
		return false
	}
	if a.DataSHA256 != "" && b.DataSHA256 != "" {
		return a.DataSHA256 == b.DataSHA256
	}
	return a.DataFile == b.DataFile
}

// compareFits reads the fits and takes the differences.
func compareFits(dirs []string) (*compareJSON, error) {
	out := &compareJSON{Warnings: []string{}}
	for _, d := range dirs {
		cf, err := readFit(d)
		if err != nil {
			return nil, err
		}
		out.Fits = append(out.Fits, cf)
	}
	fits := out.Fits
	for i := 1; i < len(fits); i++ {
		if !sameData(&fits[0], &fits[i]) {
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s and %s were fitted to different data (%s, N = %d; %s, N = %d): their evidences and elpd_loo do not compare",
				fits[0].Dir, fits[i].Dir, fits[0].DataFile, fits[0].N, fits[i].DataFile, fits[i].N))
		}
	}
	best := func(get func(*compareFit) *numSE) int {
		b := -1
		for i := range fits {
			if v := get(&fits[i]); v != nil && !math.IsNaN(float64(v.Value)) && (b < 0 || v.Value > get(&fits[b]).Value) {
				b = i
			}
		}
		return b
	}
	if b := best(func(f *compareFit) *numSE { return f.LogZ }); b >= 0 {
		out.BestEvidence = fits[b].Dir
		for i := range fits {
			if e := fits[i].LogZ; e != nil {
				r := fits[b].LogZ
				fits[i].DLogZ = &numSE{e.Value - r.Value, num(math.Hypot(float64(e.SE), float64(r.SE)))}
				if i == b {
					fits[i].DLogZ.SE = 0
				}
			}
		}
	}
	if b := best(func(f *compareFit) *numSE { return f.ELPD }); b >= 0 {
		out.BestELPD = fits[b].Dir
		for i := range fits {
			if fits[i].ELPD == nil {
				continue
			}
			d, se, err := subtemper.ELPDDiff(fits[i].pointwis, fits[b].pointwis)
			if err != nil {
				out.Warnings = append(out.Warnings, fmt.Sprintf("elpd_loo difference of %s and %s: %v", fits[i].Dir, fits[b].Dir, err))
				continue
			}
			fits[i].DELPD = &numSE{num(d), num(se)}
		}
	}
	bestMLPD := math.Inf(-1)
	for _, f := range fits {
		if f.HeldOut != nil && float64(f.HeldOut.MLPD) > bestMLPD {
			bestMLPD = float64(f.HeldOut.MLPD)
		}
	}
	for i := range fits {
		if h := fits[i].HeldOut; h != nil {
			if h.TestFile != "" && fits[0].HeldOut != nil && h.TestFile != fits[0].HeldOut.TestFile {
				out.Warnings = append(out.Warnings, fmt.Sprintf("%s predicted %s, %s %s: their held-out metrics do not compare", fits[i].Dir, h.TestFile, fits[0].Dir, fits[0].HeldOut.TestFile))
			}
			d := num(float64(h.MLPD) - bestMLPD)
			fits[i].DMLPD = &d
		}
	}
	if len(fits) > 0 && !slicesAny(fits, func(f compareFit) bool { return f.LogZ != nil || f.ELPD != nil }) {
		return nil, errors.New("none of the fits holds a log evidence or elpd_loo: fit them with `subtemper gp --evidence --loo --out DIR`")
	}
	return out, nil
}

func slicesAny(fits []compareFit, f func(compareFit) bool) bool {
	for _, x := range fits {
		if f(x) {
			return true
		}
	}
	return false
}

// printCompare prints the comparison table.
func printCompare(w io.Writer, c *compareJSON) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "fit\tkernel\tsampler\tN\tlog p(y)\tdiff\telpd_loo\tdiff\tp_loo\tk>0.7\theld-out MLPD\tdiff\tRMSE\tcov90\t")
	pm := func(v *numSE) string {
		if v == nil {
			return "-"
		}
		return fmtFloat(float64(v.Value), 'f', 2) + " ± " + fmtFloat(float64(v.SE), 'f', 2)
	}
	for _, f := range c.Fits {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t", f.Dir, f.Kernel, f.Sampler, f.N, pm(f.LogZ), pm(f.DLogZ), pm(f.ELPD), pm(f.DELPD))
		if f.PLOO != nil {
			fmt.Fprintf(tw, "%s\t%d\t", fmtFloat(float64(*f.PLOO), 'f', 2), *f.KOver07)
		} else {
			fmt.Fprint(tw, "-\t-\t")
		}
		if h := f.HeldOut; h != nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", fmtFloat(float64(h.MLPD), 'f', 3), fmtFloat(float64(*f.DMLPD), 'f', 3), fmtNum(float64(h.RMSE)), fmtFloat(float64(h.Coverage90), 'f', 3))
		} else {
			fmt.Fprint(tw, "-\t-\t-\t-\t\n")
		}
	}
	tw.Flush()
	if c.BestEvidence != "" {
		fmt.Fprintf(w, "log p(y) diff: from %s, the largest log evidence (standard errors of independent runs added in quadrature)\n", c.BestEvidence)
	}
	if c.BestELPD != "" {
		fmt.Fprintf(w, "elpd_loo diff: from %s, the largest elpd_loo (paired standard error over the points, as loo_compare)\n", c.BestELPD)
	}
	for _, m := range c.Warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
}
