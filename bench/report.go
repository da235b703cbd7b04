package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/plural"
	"github.com/subtemper/subtemper/internal/report"
	"github.com/subtemper/subtemper/tempering"
)

// CellsDir is the folder of a run's output holding one JSON file per cell.
const CellsDir = "cells"

// cellFile is the file name of a cell's result: its key with '/' → '_'.
func cellFile(key string) string { return strings.ReplaceAll(key, "/", "_") + ".json" }

// WriteCell writes r as JSON to dir/cells/<key>.json.
func WriteCell(dir string, r *CellResult) error {
	d := filepath.Join(dir, CellsDir)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return fmt.Errorf("bench: encoding cell %s: %w", r.Key, err)
	}
	return writeFile(filepath.Join(d, cellFile(r.Key)), append(b, '\n'))
}

// Manifest records what a (shard of a) run was asked to do: the whole
// grid's keys, so that Merge can report missing cells.
type Manifest struct {
	Budget      string   `json:"budget"`
	Experiments []string `json:"experiments"`
	Seed        uint64   `json:"seed"`
	Shard       string   `json:"shard"`
	Backend     string   `json:"backend"`
	Grid        []string `json:"grid"`  // keys of the whole grid
	Cells       []string `json:"cells"` // keys of this shard
}

// ManifestFile is the manifest's name in an output folder.
const ManifestFile = "manifest.json"

// WriteManifest writes m to dir/manifest.json.
func WriteManifest(dir string, m *Manifest) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return writeFile(filepath.Join(dir, ManifestFile), append(b, '\n'))
}

// MergeReport says what Merge found.
type MergeReport struct {
	Cells      []*CellResult // sorted by key, one per key
	Missing    []string      // grid keys with no result
	Duplicates []string      // keys found more than once (first kept, by folder order then file name)
	Partial    []string      // keys whose result is marked interrupted
	Mismatch   []string      // manifests that disagree on the grid, budget or seed
}

// ReadCells reads the cell results and manifests of the output folders
// dirs and merges them: one result per key, sorted by key, with missing,
// duplicate and interrupted cells reported. Which copy of a duplicate is
// kept is deterministic (the first folder on the command line).
func ReadCells(dirs []string) (*MergeReport, error) {
	rep := &MergeReport{}
	byKey := map[string]*CellResult{}
	var grid []string
	var ref *Manifest
	for _, dir := range dirs {
		if b, err := os.ReadFile(filepath.Join(dir, ManifestFile)); err == nil {
			var m Manifest
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, fmt.Errorf("bench: %s: %w", filepath.Join(dir, ManifestFile), err)
			}
			if ref == nil {
				ref = &m
				grid = m.Grid
			} else if !slices.Equal(ref.Grid, m.Grid) || ref.Budget != m.Budget || ref.Seed != m.Seed {
				rep.Mismatch = append(rep.Mismatch, fmt.Sprintf("%s (budget %s, seed %d, %s; first: budget %s, seed %d, %d)", dir, m.Budget, m.Seed,
					plural.Count(len(m.Grid), "grid cell", "grid cells"), ref.Budget, ref.Seed, len(ref.Grid)))
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("bench: %w", err)
		}
		files, err := filepath.Glob(filepath.Join(dir, CellsDir, "*.json"))
		if err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		slices.Sort(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("bench: %w", err)
			}
			var r CellResult
			if err := json.Unmarshal(b, &r); err != nil {
				return nil, fmt.Errorf("bench: %s: %w", f, err)
			}
			if r.Key == "" || r.Key != r.Cell.Key() {
				return nil, fmt.Errorf("bench: %s: key %q does not match its cell %q", f, r.Key, r.Cell.Key())
			}
			if _, dup := byKey[r.Key]; dup {
				rep.Duplicates = append(rep.Duplicates, r.Key)
				continue
			}
			byKey[r.Key] = &r
		}
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		rep.Cells = append(rep.Cells, byKey[k])
		if byKey[k].Interrupted {
			rep.Partial = append(rep.Partial, k)
		}
	}
	for _, k := range grid {
		if _, ok := byKey[k]; !ok {
			rep.Missing = append(rep.Missing, k)
		}
	}
	slices.Sort(rep.Duplicates)
	rep.Duplicates = slices.Compact(rep.Duplicates)
	return rep, nil
}

// driverCols are the tables' columns after the inner sampler (the paper's
// order).
var driverCols = []string{"stt", "tt", "spt", "pt"}

// Summary is the reproduction's output files, written by WriteReport.
// WriteReport is deterministic: the same cells give the same files, byte
// for byte (figures included).
func WriteReport(dir string, cells []*CellResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	cells = slices.Clone(cells)
	slices.SortFunc(cells, func(a, b *CellResult) int { return strings.Compare(a.Key, b.Key) })
	var md bytes.Buffer
	md.WriteString("# Reproduction of \"Tempering by subsampling\"\n\n")
	if len(cells) > 0 {
		fmt.Fprintf(&md, "Budget `%s`, backend `%s`, %s.\n\n", cells[0].Budget, cells[0].Backend, cells[0].Host)
	}
	if err := runtimeReport(dir, cells, &md); err != nil {
		return err
	}
	if err := essReport(dir, cells, &md); err != nil {
		return err
	}
	if err := convergenceReport(dir, cells, &md); err != nil {
		return err
	}
	if err := writeSamplersCSV(filepath.Join(dir, "samplers.csv"), cells); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "REPORT.md"), md.Bytes())
}

// writeFile replaces the file at path with b, atomically (fileio.Write).
func writeFile(path string, b []byte) error {
	if err := fileio.Write(path, func(w *bufio.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

func ff(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "NaN"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func fg(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// runtimeReport writes runtime.csv, runtime.md's section and Fig. 1.
func runtimeReport(dir string, cells []*CellResult, md *bytes.Buffer) error {
	var csv bytes.Buffer
	csv.WriteString("model,n,dim,driver,sec_per_iter,none_sec_per_iter,ratio_measured,ratio_median,ratio_predicted,ratio_powerlaw,transitions_per_iter,evals_per_iter,evals_grad_per_iter,alpha_grad,paper_formula,corrected_formula,neal_formula\n")
	any := false
	for _, model := range []string{ModelMVN, ModelGP} {
		var rows []*CellResult
		for _, c := range cells {
			if c.Cell.Kind == ExpRuntime && c.Cell.Model == model && len(c.Timings) > 0 {
				rows = append(rows, c)
			}
		}
		if len(rows) == 0 {
			continue
		}
		any = true
		if err := runtimeSection(dir, md, &csv, model, rows); err != nil {
			return err
		}
	}
	if !any {
		return nil
	}
	return writeFile(filepath.Join(dir, "runtime.csv"), csv.Bytes())
}

// runtimeSection writes model's run-time section over its cells rows (by
// N): its table and closed forms to md, its rows to csv and its Fig. 1
// to dir.
func runtimeSection(dir string, md, csv *bytes.Buffer, model string, rows []*CellResult) error {
	series := map[string]*report.Series{}
	fmt.Fprintf(md, "## Run time, %s (HMC, D = %d): cost ratio to HMC alone (Fig. 1)\n\n", strings.ToUpper(model), rows[0].Cell.Dim)
	md.WriteString("| N | α̂ (grad) | s/iter HMC | SPT meas / pred | STT meas / pred | PT meas / pred | TT meas / pred |\n|---|---|---|---|---|---|---|\n")
	for _, c := range rows {
		_, g := c.Cost.Fit()
		tm := map[string]Timing{}
		for _, t := range c.Timings {
			tm[t.Driver] = t
			if series[t.Driver] == nil {
				series[t.Driver] = &report.Series{Name: t.Driver}
			}
			s := series[t.Driver]
			s.X = append(s.X, float64(c.Cell.N))
			s.Y = append(s.Y, t.SecPerIter)
			d, _ := tempering.ParseDriver(t.Driver)
			fmt.Fprintf(csv, "%s,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", model, c.Cell.N, c.Cell.Dim, t.Driver,
				fg(t.SecPerIter), fg(t.NoneSecPerIter), ff(t.RatioMeasured, 3), ff(t.RatioMedian, 3), ff(t.RatioPredicted, 3), ff(t.RatioPowerLaw, 3),
				ff(t.Transitions, 2), ff(t.Evals, 2), ff(t.EvalsGrad, 2), ff(g.Alpha, 3),
				ff(ClosedForm(Paper, d, g.Alpha, PaperBetaMin, PaperLevels), 3),
				ff(ClosedForm(Corrected, d, g.Alpha, PaperBetaMin, PaperLevels), 3),
				ff(ClosedForm(Neal, d, g.Alpha, PaperBetaMin, PaperLevels), 3))
		}
		fmt.Fprintf(md, "| %d | %s | %s |", c.Cell.N, ff(g.Alpha, 2), fg(tm["none"].SecPerIter))
		for _, d := range []string{"spt", "stt", "pt", "tt"} {
			t, ok := tm[d]
			if !ok {
				md.WriteString(" – |")
				continue
			}
			fmt.Fprintf(md, " %s / %s |", ff(t.RatioMeasured, 2), ff(t.RatioPredicted, 2))
		}
		md.WriteString("\n")
	}
	last := rows[len(rows)-1]
	_, g := last.Cost.Fit()
	fmt.Fprintf(md, "\nClosed forms at the fitted α = %s (N = %d): ", ff(g.Alpha, 2), last.Cell.N)
	for _, d := range []tempering.Driver{tempering.SPT, tempering.STT, tempering.PT, tempering.TT} {
		fmt.Fprintf(md, "%v paper %s, corrected %s, Neal form %s; ", d,
			ff(ClosedForm(Paper, d, g.Alpha, PaperBetaMin, PaperLevels), 2),
			ff(ClosedForm(Corrected, d, g.Alpha, PaperBetaMin, PaperLevels), 2),
			ff(ClosedForm(Neal, d, g.Alpha, PaperBetaMin, PaperLevels), 2))
	}
	md.WriteString("\n\n")
	var ss []report.Series
	for _, d := range []string{"none", "stt", "tt", "spt", "pt"} {
		if s := series[d]; s != nil {
			ss = append(ss, *s)
		}
	}
	title := fmt.Sprintf("%s run time; ratios at N=%d:", strings.ToUpper(model), last.Cell.N)
	for _, t := range last.Timings {
		if t.Driver != "none" {
			title += fmt.Sprintf(" %s %.2f", t.Driver, t.RatioMeasured)
		}
	}
	if err := report.Line(filepath.Join(dir, "fig1_runtime_"+model), report.LineSpec{
		Title: title, XLabel: "N", YLabel: "seconds per iteration", Series: ss, LogX: true, LogY: true,
	}); err != nil {
		return err
	}
	fmt.Fprintf(md, "![](fig1_runtime_%s.png)\n\n", model)
	return nil
}

// samplerMap returns the cell's samplers by driver name.
func samplerMap(c *CellResult) map[string]SamplerResult {
	m := map[string]SamplerResult{}
	for _, s := range c.Samplers {
		m[s.Driver] = s
	}
	return m
}

// essTable writes one table shaped like the paper's Tables 1–2: rows |θ|,
// columns inner sampler, STT, TT, SPT, PT; the best bold, the unconverged
// starred.
func essTable(md, csv *bytes.Buffer, name string, rows []*CellResult) {
	if len(rows) == 0 {
		return
	}
	k := strings.ToUpper(rows[0].Cell.Kernel)
	fmt.Fprintf(md, "| |θ| | %s | STT | TT | SPT | PT |\n|---|---|---|---|---|---|\n", k)
	for _, c := range rows {
		m := samplerMap(c)
		cols := append([]string{"none"}, driverCols...)
		best, bv := "", -1.0
		for _, d := range cols {
			if s, ok := m[d]; ok && s.ESSPerSec > bv {
				best, bv = d, s.ESSPerSec
			}
		}
		fmt.Fprintf(md, "| %d |", c.Cell.Params())
		for _, d := range cols {
			s, ok := m[d]
			if !ok {
				md.WriteString(" – |")
				continue
			}
			v := ff(s.ESSPerSec, 4)
			if d == best {
				v = "**" + v + "**"
			}
			if !s.Converged {
				v += `\*`
			}
			fmt.Fprintf(md, " %s |", v)
			fmt.Fprintf(csv, "%s,%s,%s,%d,%d,%d,%s,%s,%s,%t\n", name, c.Cell.Model, c.Cell.Kernel, c.Cell.N, c.Cell.Params(), s.Draws, d, ff(s.ESSPerSec, 6), ff(s.Rhat, 4), s.Converged)
		}
		md.WriteString("\n")
	}
	md.WriteString("\n")
}

// essReport writes ess.csv, the report's Tables 1–2 and Fig. 3.
func essReport(dir string, cells []*CellResult, md *bytes.Buffer) error {
	var csv bytes.Buffer
	csv.WriteString("table,model,kernel,n,params,draws,driver,ess_per_sec,rhat,converged\n")
	wrote := false
	for _, t := range []struct{ model, title, name string }{
		{ModelGP, "Table 1: median ESS per second, GP", "table1"},
		{ModelMVN, "Table 2: median ESS per second, MVN", "table2"},
	} {
		for _, k := range []string{"hmc", "mh"} {
			n := essTableN(cells, t.model, k)
			rows := essCells(cells, t.model, k, n, 0)
			if len(rows) < 2 {
				continue
			}
			wrote = true
			fmt.Fprintf(md, "## %s, %s, N = %d\n\n", t.title, strings.ToUpper(k), n)
			essTable(md, &csv, t.name, rows)
		}
	}
	if wrote {
		md.WriteString("Bold: the most efficient sampler of the row; *: not converged (median R-hat ≥ 1.1 on the kept draws).\n\n")
	}
	// Fig. 3: ESS/s against N.
	for _, f := range []struct{ model, kernel string }{{ModelMVN, "hmc"}, {ModelGP, "mh"}, {ModelGP, "hmc"}} {
		dim := 50
		if f.model == ModelGP {
			dim = 18
		}
		rows := essCells(cells, f.model, f.kernel, 0, dim)
		if len(rows) < 2 {
			continue
		}
		wrote = true
		if err := essFigure(dir, md, &csv, f.model, f.kernel, rows); err != nil {
			return err
		}
	}
	if !wrote {
		return nil
	}
	return writeFile(filepath.Join(dir, "ess.csv"), csv.Bytes())
}

// essCells returns the ESS cells of model and kernel with samplers, of N
// n and dimension dim (either 0: any).
func essCells(cells []*CellResult, model, kernel string, n, dim int) []*CellResult {
	var out []*CellResult
	for _, c := range cells {
		if c.Cell.Kind == ExpESS && c.Cell.Model == model && c.Cell.Kernel == kernel && (n == 0 || c.Cell.N == n) && (dim == 0 || c.Cell.Dim == dim) && len(c.Samplers) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// essTableN returns the tables' N for (model, kernel): the N with most
// dimensions (the largest of those tied).
func essTableN(cells []*CellResult, model, kernel string) int {
	count := map[int]int{}
	for _, c := range essCells(cells, model, kernel, 0, 0) {
		count[c.Cell.N]++
	}
	best, bc := 0, 0
	for n, k := range count {
		if k > bc || (k == bc && n > best) {
			best, bc = n, k
		}
	}
	return best
}

// essFigure writes one panel of Fig. 3, ESS per second against N for
// model and kernel over rows: its table to md, its rows to csv and its
// plot to dir.
func essFigure(dir string, md, csv *bytes.Buffer, model, kernel string, rows []*CellResult) error {
	series := map[string]*report.Series{}
	fmt.Fprintf(md, "## ESS per second against N, %s %s, |θ| = %d (Fig. 3)\n\n", strings.ToUpper(model), strings.ToUpper(kernel), rows[0].Cell.Params())
	fmt.Fprintf(md, "| N | %s | STT | TT | SPT | PT |\n|---|---|---|---|---|---|\n", strings.ToUpper(kernel))
	for _, c := range rows {
		m := samplerMap(c)
		fmt.Fprintf(md, "| %d |", c.Cell.N)
		for _, d := range append([]string{"none"}, driverCols...) {
			s, ok := m[d]
			if !ok {
				md.WriteString(" – |")
				continue
			}
			star := ""
			if !s.Converged {
				star = `\*`
			}
			fmt.Fprintf(md, " %s%s |", ff(s.ESSPerSec, 4), star)
			if series[d] == nil {
				series[d] = &report.Series{Name: d}
			}
			series[d].X = append(series[d].X, float64(c.Cell.N))
			series[d].Y = append(series[d].Y, s.ESSPerSec)
			fmt.Fprintf(csv, "fig3,%s,%s,%d,%d,%d,%s,%s,%s,%t\n", c.Cell.Model, c.Cell.Kernel, c.Cell.N, c.Cell.Params(), s.Draws, d, ff(s.ESSPerSec, 6), ff(s.Rhat, 4), s.Converged)
		}
		md.WriteString("\n")
	}
	var ss []report.Series
	for _, d := range append([]string{"none"}, driverCols...) {
		if s := series[d]; s != nil {
			ss = append(ss, *s)
		}
	}
	base := fmt.Sprintf("fig3_ess_%s_%s", model, kernel)
	if err := report.Line(filepath.Join(dir, base), report.LineSpec{
		Title:  fmt.Sprintf("%s %s, |θ| = %d: median ESS per second", strings.ToUpper(model), strings.ToUpper(kernel), rows[0].Cell.Params()),
		XLabel: "N", YLabel: "ESS / s", Series: ss, LogX: true, LogY: true,
	}); err != nil {
		return err
	}
	fmt.Fprintf(md, "\n![](%s.png)\n\n", base)
	return nil
}

// convergenceReport draws Fig. 2 from the GP HMC D = 18 cell with the
// largest N among those present.
func convergenceReport(dir string, cells []*CellResult, md *bytes.Buffer) error {
	var cell *CellResult
	for _, c := range cells {
		if c.Cell.Kind == ExpESS && c.Cell.Model == ModelGP && c.Cell.Kernel == "hmc" && c.Cell.Dim == 18 && len(c.Samplers) > 0 {
			if cell == nil || c.Cell.N > cell.Cell.N || (c.Cell.N == cell.Cell.N && c.Key > cell.Key) {
				cell = c
			}
		}
	}
	if cell == nil {
		return nil
	}
	var byDraws, bySec []report.Series
	var csv bytes.Buffer
	csv.WriteString("driver,draws,seconds,rhat\n")
	fmt.Fprintf(md, "## Convergence, GP HMC, N = %d, |θ| = %d (Fig. 2)\n\n| sampler | draws to R-hat < 1.1 | seconds to R-hat < 1.1 |\n|---|---|---|\n", cell.Cell.N, cell.Cell.Params())
	for _, s := range cell.Samplers {
		a := report.Series{Name: s.Driver}
		b := report.Series{Name: s.Driver}
		reach, reachS := "not reached", "not reached"
		for _, p := range s.Trace {
			a.X, a.Y = append(a.X, float64(p.Draws)), append(a.Y, p.Rhat)
			b.X, b.Y = append(b.X, p.Seconds), append(b.Y, p.Rhat)
			fmt.Fprintf(&csv, "%s,%d,%s,%s\n", s.Driver, p.Draws, fg(p.Seconds), ff(p.Rhat, 4))
			if p.Rhat < RhatThreshold && reach == "not reached" {
				reach, reachS = strconv.Itoa(p.Draws), fg(p.Seconds)
			}
		}
		fmt.Fprintf(md, "| %s | %s | %s |\n", s.Driver, reach, reachS)
		byDraws, bySec = append(byDraws, a), append(bySec, b)
	}
	md.WriteString("\nSeconds are compute seconds per chain (mean over the three chains).\n\n")
	title := fmt.Sprintf("GP HMC, N = %d, |θ| = %d", cell.Cell.N, cell.Cell.Params())
	if err := report.Line(filepath.Join(dir, "fig2_rhat_draws"), report.LineSpec{
		Title: title, XLabel: "draws per chain", YLabel: "median R-hat", Series: byDraws, LogX: true, LogY: true, HLine: RhatThreshold, HLineSet: true,
	}); err != nil {
		return err
	}
	if err := report.Line(filepath.Join(dir, "fig2_rhat_seconds"), report.LineSpec{
		Title: title, XLabel: "compute seconds per chain", YLabel: "median R-hat", Series: bySec, LogX: true, LogY: true, HLine: RhatThreshold, HLineSet: true,
	}); err != nil {
		return err
	}
	md.WriteString("![](fig2_rhat_draws.png) ![](fig2_rhat_seconds.png)\n\n")
	return writeFile(filepath.Join(dir, "convergence.csv"), csv.Bytes())
}

// writeSamplersCSV writes every sampler run of every ESS cell.
func writeSamplersCSV(path string, cells []*CellResult) error {
	var b bytes.Buffer
	b.WriteString("key,model,kernel,n,params,driver,draws,seconds,kept_seconds,rhat,rhat_rank,ess,ess_bulk,ess_per_sec,converged,stop,accept_rate,swap_rate,tt_rate\n")
	for _, c := range cells {
		for _, s := range c.Samplers {
			fmt.Fprintf(&b, "%s,%s,%s,%d,%d,%s,%d,%s,%s,%s,%s,%s,%s,%s,%t,%s,%s,%s,%s\n", c.Key, c.Cell.Model, c.Cell.Kernel, c.Cell.N, c.Cell.Params(),
				s.Driver, s.Draws, fg(s.Seconds), fg(s.KeptSeconds), ff(s.Rhat, 4), ff(s.RhatRank, 4), fg(s.ESS), fg(s.ESSBulk), fg(s.ESSPerSec), s.Converged, s.StopReason,
				ff(s.AcceptRate, 3), ff(s.SwapRate, 3), ff(s.TTRate, 3))
		}
	}
	return writeFile(path, b.Bytes())
}
