package subtemper

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/linalg"
	"github.com/subtemper/subtemper/tempering"
)

// Files of a saved fit.
const (
	// FitFile is the fit's description: format, data file, standardisation,
	// kernel family, prior, jitter, settings and the draws of u = log θ.
	// A fit.json without "kernel" (written before the Matérn kernels) is
	// read as the squared exponential.
	FitFile = "fit.json"
	// FitDataFile holds the training data as used, in the data's units
	// (numbers written in the shortest form that reads back exactly).
	FitDataFile = "fit-data.csv"
	fitFormat   = "subtemper-gp-fit"
	fitVersion  = 1
)

// ErrIncompleteFit is wrapped by LoadGPFit's error when the folder does
// not hold a complete saved fit.
var ErrIncompleteFit = errors.New("not a complete saved fit")

type fitJSON struct {
	Format          string         `json:"format"`
	Version         int            `json:"version"`
	DataFile        string         `json:"data_file"`
	DataSHA256      string         `json:"data_sha256,omitempty"`
	N               int            `json:"n"`
	D               int            `json:"d"`
	Inputs          []string       `json:"inputs"`
	Target          string         `json:"target"`
	Standardized    bool           `json:"standardized"`
	Standardization *stdJSON       `json:"standardization,omitempty"`
	Kernel          string         `json:"kernel,omitempty"`
	Prior           gp.Prior       `json:"prior"`
	Jitter          float64        `json:"jitter"`
	Backend         string         `json:"backend"`
	Settings        map[string]any `json:"settings"`
	Flags           map[string]any `json:"flags,omitempty"`
	Names           []string       `json:"names"`
	DrawsU          [][][]float64  `json:"draws_u"`
	// Weighted is an importance-sampled fit's weighted sample (DrawsU
	// then holds draws resampled from it).
	Weighted *weightedJSON `json:"weighted,omitempty"`
}

// weightedJSON is a WeightedSample in FitFile.
type weightedJSON struct {
	DrawsU     [][]float64 `json:"draws_u"`
	LogWeights []float64   `json:"log_weights"`
	ParetoK    *float64    `json:"pareto_k"` // null where not a number
	MinESS     float64     `json:"min_ess"`
	Reused     int         `json:"reused"`
	Proposals  int         `json:"proposals"`
	Failed     int         `json:"failed"`
	Climbs     int         `json:"climbs"`
	ClimbEvals int         `json:"climb_evals,omitempty"`
	Modes      [][]float64 `json:"modes_found_u,omitempty"`
}

// check returns what is wrong with w for a fit of d inputs ("" if
// nothing).
func (w *weightedJSON) check(d int) string {
	switch {
	case len(w.DrawsU) == 0:
		return "the weighted sample holds no draws"
	case len(w.LogWeights) != len(w.DrawsU):
		return fmt.Sprintf("the weighted sample holds %d draws and %d log weights", len(w.DrawsU), len(w.LogWeights))
	case !(w.MinESS > 0) || math.IsInf(w.MinESS, 1):
		return fmt.Sprintf("the weighted sample's ESS needed, %v, is not a finite number > 0", w.MinESS)
	case w.Reused < 0 || w.Proposals < 0 || w.Failed < 0 || w.Climbs < 0 || w.ClimbEvals < 0:
		return "the weighted sample's counts are negative"
	}
	for m, u := range w.Modes {
		if len(u) != d+2 {
			return fmt.Sprintf("mode %d found by the climbs has %d values, want %d", m+1, len(u), d+2)
		}
	}
	for s, u := range w.DrawsU {
		if len(u) != d+2 {
			return fmt.Sprintf("weighted draw %d has %d values, want %d", s+1, len(u), d+2)
		}
		for _, v := range u {
			if math.IsNaN(v) || math.Abs(v) > 700 {
				return fmt.Sprintf("weighted draw %d holds %v (u = log θ must be finite, |u| ≤ 700)", s+1, v)
			}
		}
		if lw := w.LogWeights[s]; math.IsNaN(lw) || math.IsInf(lw, 0) {
			return fmt.Sprintf("the log weight of weighted draw %d is %v", s+1, lw)
		}
	}
	return ""
}

type stdJSON struct {
	XMean []float64 `json:"x_mean"`
	XSD   []float64 `json:"x_sd"`
	YMean float64   `json:"y_mean"`
	YSD   float64   `json:"y_sd"`
}

// settingsMap describes sampler settings for fit.json.
func settingsMap(s tempering.Settings) map[string]any {
	m := map[string]any{
		"driver": s.Driver.String(), "chains": s.Chains, "warmup": s.Warmup, "draws": s.Draws,
		"thin": s.Thin, "seed": s.Seed, "levels": s.Levels, "beta_min": s.BetaMin, "base_steps": s.BaseSteps,
	}
	if s.Transform != nil {
		m["sampling_space"] = fmt.Sprintf("%T", s.Transform)
	}
	if s.Kernel == nil {
		m["kernel"] = "default (tempering.DefaultKernel)"
	} else {
		kernelMap(m, "", s.Kernel)
	}
	return m
}

// kernelMap describes kernel k in m, its keys prefixed by prefix: for a
// tempering.PerLevel, the target level's kernel under "" and the hotter
// levels' under "hot_".
func kernelMap(m map[string]any, prefix string, k tempering.Kernel) {
	switch k := k.(type) {
	case tempering.PerLevel:
		kernelMap(m, prefix, k.Target)
		if k.Hot != nil {
			kernelMap(m, prefix+"hot_", k.Hot)
		}
	case tempering.HMC:
		m[prefix+"kernel"] = "hmc"
		m[prefix+"step_size"], m[prefix+"leapfrog"], m[prefix+"adapt"], m[prefix+"jitter"] = k.StepSize, k.Steps, k.Adapt.String(), k.Jitter
	case tempering.NUTS:
		m[prefix+"kernel"] = "nuts"
		m[prefix+"step_size"], m[prefix+"max_tree_depth"], m[prefix+"adapt"] = k.StepSize, k.MaxTreeDepth, k.Adapt.String()
	case tempering.Independence:
		m[prefix+"kernel"] = "independence"
		m[prefix+"proposal_df"], m[prefix+"proposal_scale"] = k.DF, k.Scale
		m[prefix+"proposal_wide"], m[prefix+"local_steps"] = k.Wide, k.Local
		m[prefix+"screened"] = k.Screen != nil
	case tempering.MH:
		m[prefix+"kernel"] = "mh"
		m[prefix+"mh_scale"], m[prefix+"mh_steps"], m[prefix+"adapt"] = k.Sigma, k.Steps, k.Adapt.String()
	default:
		m[prefix+"kernel"] = fmt.Sprintf("%T", k)
	}
}

// settingsMap describes the fit's settings (settingsMap), with "method":
// "importance sampling" for an importance-sampled fit, whose settings are
// those the chains would have run with.
func (f *GPFit) settingsMap() map[string]any {
	m := settingsMap(f.Settings)
	if f.Weighted != nil {
		m["method"] = "importance sampling"
	}
	return m
}

// Save writes the fit to dir (created if needed): FitFile and
// FitDataFile, everything LoadGPFit needs to rebuild the model and its
// draws exactly.
func (f *GPFit) Save(dir string) error { return f.SaveFlags(dir, nil) }

// SaveFlags is Save recording flags, if non-nil, in FitFile as given
// (the CLI records its flag values).
func (f *GPFit) SaveFlags(dir string, flags map[string]any) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	dp := filepath.Join(dir, FitDataFile)
	if err := gp.WriteCSVFile(dp, f.Data); err != nil {
		return err
	}
	written, err := os.ReadFile(dp)
	if err != nil {
		return fmt.Errorf("subtemper: reading back %s: %w", dp, err)
	}
	fj := fitJSON{
		Format: fitFormat, Version: fitVersion, DataFile: FitDataFile, DataSHA256: sha256Hex(written),
		N: f.Data.N, D: f.Data.D, Target: f.Data.TargetName(),
		Standardized: f.standardized(), Kernel: f.Kernel.String(), Prior: f.Prior, Jitter: f.Jitter, Backend: f.Backend,
		Settings: f.settingsMap(), Flags: flags, Names: f.Names(), DrawsU: f.Draws,
	}
	if w := f.Weighted; w != nil {
		fj.Weighted = &weightedJSON{DrawsU: w.Draws, LogWeights: w.LogWeights, ParetoK: finiteOrNil(w.K), MinESS: w.MinESS,
			Reused: w.Reused, Proposals: w.Proposals, Failed: w.Failed, Climbs: w.Climbs, ClimbEvals: w.ClimbEvals, Modes: w.Modes}
	}
	for j := range f.Data.D {
		fj.Inputs = append(fj.Inputs, f.Data.InputName(j))
	}
	if fj.Standardized {
		fj.Standardization = &stdJSON{XMean: f.Std.XMean, XSD: f.Std.XSD, YMean: f.Std.YMean, YSD: f.Std.YSD}
	}
	b, err := json.MarshalIndent(fj, "", " ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, FitFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, FitFile))
}

// LoadGPFit reads a fit saved by GPFit.Save (or `subtemper gp --out dir`)
// and rebuilds its model on the backend named (""; the fastest compiled
// in). A folder without a complete fit gives an error wrapping
// ErrIncompleteFit that says what is missing.
func LoadGPFit(dir, backend string) (*GPFit, error) {
	fj, kern, err := readFitJSON(dir)
	if err != nil {
		return nil, err
	}
	data, err := readFitData(dir, fj)
	if err != nil {
		return nil, err
	}
	if backend == "" {
		backend = linalg.FastestName()
	}
	f := &GPFit{Data: data, Prior: fj.Prior, Jitter: fj.Jitter, Kernel: kern, Backend: backend, Draws: fj.DrawsU}
	if s := fj.Standardization; fj.Standardized {
		f.Std = gp.Standardization{XMean: s.XMean, XSD: s.XSD, YMean: s.YMean, YSD: s.YSD}
	}
	if w := fj.Weighted; w != nil {
		f.Weighted = &WeightedSample{Draws: w.DrawsU, LogWeights: w.LogWeights, K: orNaN(w.ParetoK), MinESS: w.MinESS,
			Reused: w.Reused, Proposals: w.Proposals, Failed: w.Failed, Climbs: w.Climbs, ClimbEvals: w.ClimbEvals, Modes: w.Modes}
	}
	if _, err := f.Model(); err != nil {
		return nil, incompleteFit(dir, "rebuilding the model: %v", err)
	}
	return f, nil
}

// incompleteFit is the error of a folder dir without a complete fit: it
// wraps ErrIncompleteFit and says what is missing.
func incompleteFit(dir, format string, a ...any) error {
	return fmt.Errorf("%s: %w: %s", dir, ErrIncompleteFit, fmt.Sprintf(format, a...))
}

// readFitJSON reads and checks the FitFile of the fit saved in dir, and
// returns it with its kernel.
func readFitJSON(dir string) (*fitJSON, gp.Kernel, error) {
	fp := filepath.Join(dir, FitFile)
	fi, err := os.Stat(fp)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, incompleteFit(dir, "no %s (a fit is saved by `subtemper gp --out DIR`, or GPFit.Save)", FitFile)
	}
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, incompleteFit(dir, "%s is not a regular file", FitFile)
	}
	b, err := os.ReadFile(fp)
	if err != nil {
		return nil, 0, err
	}
	var fj fitJSON
	if err := json.Unmarshal(b, &fj); err != nil {
		return nil, 0, incompleteFit(dir, "%s is not valid JSON: %v", FitFile, err)
	}
	if fj.Format != fitFormat || fj.Version != fitVersion {
		return nil, 0, incompleteFit(dir, "%s has format %q version %d, want %q version %d", FitFile, fj.Format, fj.Version, fitFormat, fitVersion)
	}
	if fj.DataFile == "" || strings.ContainsAny(fj.DataFile, `/\`) {
		return nil, 0, incompleteFit(dir, "%s names no data file in the folder", FitFile)
	}
	if len(fj.DrawsU) == 0 {
		return nil, 0, incompleteFit(dir, "%s holds no draws", FitFile)
	}
	for c, ch := range fj.DrawsU {
		for s, u := range ch {
			if len(u) != fj.D+2 {
				return nil, 0, incompleteFit(dir, "%s: draw %d of chain %d has %d values, want %d", FitFile, s+1, c+1, len(u), fj.D+2)
			}
		}
	}
	kern := gp.SE
	if fj.Kernel != "" {
		if kern, err = gp.ParseKernel(fj.Kernel); err != nil {
			return nil, 0, incompleteFit(dir, "%s: kernel %q is not one this build knows (se, matern12, matern32, matern52)", FitFile, fj.Kernel)
		}
	}
	if fj.Standardized && fj.Standardization == nil {
		return nil, 0, incompleteFit(dir, "%s says the data were standardised but holds no standardisation", FitFile)
	}
	if msg := fj.check(); msg != "" {
		return nil, 0, incompleteFit(dir, "%s: %s", FitFile, msg)
	}
	return &fj, kern, nil
}

// readFitData reads the training data of the fit saved in dir, whose
// FitFile is fj, checking them against what fj records.
func readFitData(dir string, fj *fitJSON) (*gp.Data, error) {
	dp := filepath.Join(dir, fj.DataFile)
	if fi, err := os.Stat(dp); err != nil {
		return nil, incompleteFit(dir, "its training data %s are missing", fj.DataFile)
	} else if !fi.Mode().IsRegular() {
		return nil, incompleteFit(dir, "its training data %s are not a regular file", fj.DataFile)
	}
	raw, err := os.ReadFile(dp)
	if err != nil {
		return nil, incompleteFit(dir, "reading its training data: %v", err)
	}
	// Fits saved before the checksum was recorded have none to check.
	if fj.DataSHA256 != "" && sha256Hex(raw) != fj.DataSHA256 {
		return nil, incompleteFit(dir, "%s is not the file the fit was made from (its SHA-256 differs from the one %s records)", fj.DataFile, FitFile)
	}
	data, err := gp.ReadCSV(bytes.NewReader(raw), dp, gp.CSVOptions{Target: fj.Target})
	if err != nil {
		return nil, incompleteFit(dir, "reading its training data: %v", err)
	}
	if data.N != fj.N || data.D != fj.D {
		return nil, incompleteFit(dir, "%s holds %d×%d data, %s says %d×%d", fj.DataFile, data.N, data.D, FitFile, fj.N, fj.D)
	}
	for j, name := range fj.Inputs {
		if j >= data.D || data.InputName(j) != name {
			return nil, incompleteFit(dir, "%s's input columns differ from those %s records (%s)", fj.DataFile, FitFile, strings.Join(fj.Inputs, ", "))
		}
	}
	return data, nil
}

// check returns what is wrong with fit.json's numbers ("" if nothing):
// sizes that disagree, draws, jitter or a standardisation that are not
// finite, scales that are not positive.
func (fj *fitJSON) check() string {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case fj.N < 2 || fj.D < 1:
		return fmt.Sprintf("n = %d, d = %d: need n ≥ 2 and d ≥ 1", fj.N, fj.D)
	case len(fj.Inputs) != fj.D:
		return fmt.Sprintf("%d input names for d = %d", len(fj.Inputs), fj.D)
	case !finite(fj.Jitter) || fj.Jitter < 0:
		return fmt.Sprintf("jitter %v: want a finite number ≥ 0", fj.Jitter)
	case fj.DataSHA256 != "" && len(fj.DataSHA256) != 64:
		return "data_sha256 is not a SHA-256 in hexadecimal"
	}
	for c, ch := range fj.DrawsU {
		if len(ch) == 0 {
			return fmt.Sprintf("chain %d holds no draws", c+1)
		}
		for s, u := range ch {
			for _, v := range u {
				if !finite(v) || math.Abs(v) > 700 {
					return fmt.Sprintf("draw %d of chain %d holds %v (u = log θ must be finite, |u| ≤ 700)", s+1, c+1, v)
				}
			}
		}
	}
	if fj.Weighted != nil {
		if msg := fj.Weighted.check(fj.D); msg != "" {
			return msg
		}
	}
	if st := fj.Standardization; fj.Standardized {
		if len(st.XMean) != fj.D || len(st.XSD) != fj.D {
			return fmt.Sprintf("the standardisation has %d means and %d SDs for d = %d", len(st.XMean), len(st.XSD), fj.D)
		}
		for j := range fj.D {
			if !finite(st.XMean[j]) || !finite(st.XSD[j]) || !(st.XSD[j] > 0) {
				return fmt.Sprintf("the standardisation of input %d (mean %v, SD %v) is not finite with SD > 0", j+1, st.XMean[j], st.XSD[j])
			}
		}
		if !finite(st.YMean) || !finite(st.YSD) || !(st.YSD > 0) {
			return fmt.Sprintf("the target's standardisation (mean %v, SD %v) is not finite with SD > 0", st.YMean, st.YSD)
		}
	}
	return ""
}

// sha256Hex returns the SHA-256 of b in hexadecimal.
func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// TestData are test inputs read by ReadTestCSV, in the order of a fit's
// inputs, with the targets when the file has the target column.
type TestData struct {
	// N is the number of rows; X holds them (N×D, row-major) in the fit's
	// input order.
	N int
	X []float64
	// Y holds the targets, nil when the file has no target column.
	Y []float64
	// Header is the file's header.
	Header []string
	// Dropped is the number of rows TestCSVOptions.DropNA dropped, and
	// DroppedLines their line numbers (the first 10).
	Dropped      int
	DroppedLines []int
}

// TestCSVOptions configures ReadTestCSV and ReadTestCSVFrom. The zero
// value reads every row.
type TestCSVOptions struct {
	// DropNA drops the rows in which an input, or the target where the
	// file has the target column, is missing: NA (as R writes a missing
	// value), an empty cell or NaN, as gp.CSVOptions.DropNA does for the
	// training data. Without it such a cell is an error that names its
	// line and column. TestData.Dropped counts the rows dropped.
	DropNA bool
}

// ReadTestCSV reads test inputs from a CSV file with a header row: the
// columns named inputs (in any order; other columns are ignored and may
// hold anything) and, if present, the column named target. A missing
// input column, a row whose number of cells differs from the header's, a
// cell that is not a finite number (a missing one, NA, empty or NaN,
// unless opt's DropNA drops its row; Inf) and a file without rows are
// errors naming the file, line and column. A record longer than 4 MiB or
// of more than 100 000 fields is refused before more of it is read, and
// messages quote at most 64 bytes of a cell or a name (the caps of the
// other readers). opt is optional: at most one may be given.
func ReadTestCSV(path string, inputs []string, target string, opt ...TestCSVOptions) (*TestData, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return ReadTestCSVFrom(fh, path, inputs, target, opt...)
}

// ReadTestCSVFrom is ReadTestCSV reading r; name is the file's name in
// error messages.
func ReadTestCSVFrom(r io.Reader, name string, inputs []string, target string, opt ...TestCSVOptions) (*TestData, error) {
	var o TestCSVOptions
	switch len(opt) {
	case 0:
	case 1:
		o = opt[0]
	default:
		return nil, fmt.Errorf("%s: %d sets of options given, at most 1 is allowed", name, len(opt))
	}
	cr := fileio.NewCSVReader(r, 0)
	header, _, err := fileio.ReadRecord(cr, "", name)
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file", name)
	}
	if err != nil {
		return nil, err
	}
	idx, tc, err := testColumns(name, header, inputs, target)
	if err != nil {
		return nil, err
	}
	td := &TestData{Header: header}
	x := make([]float64, len(idx))
	for {
		rec, line, err := fileio.ReadRecord(cr, "", name)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rec) != len(header) {
			return nil, fmt.Errorf("%s:%d: %d cells, but the header has %d", name, line, len(rec), len(header))
		}
		y, missing, err := testRow(name, line, header, rec, idx, tc, x, o.DropNA)
		if err != nil {
			return nil, err
		}
		if missing {
			td.Dropped++
			if len(td.DroppedLines) < 10 {
				td.DroppedLines = append(td.DroppedLines, line)
			}
			continue
		}
		td.X = append(td.X, x...)
		if tc >= 0 {
			td.Y = append(td.Y, y)
		}
		td.N++
	}
	if td.N == 0 {
		if td.Dropped > 0 {
			return nil, fmt.Errorf("%s: every row holds a missing value (%d dropped)", name, td.Dropped)
		}
		return nil, fmt.Errorf("%s: a header but no rows", name)
	}
	return td, nil
}

// testColumns trims header's names and returns the columns of inputs and
// of target (−1 if the file has none), or an error for a duplicate name
// or a missing input column.
func testColumns(name string, header, inputs []string, target string) ([]int, int, error) {
	col := map[string]int{}
	for j, h := range header {
		h = strings.TrimSpace(h)
		header[j] = h
		if _, dup := col[h]; dup {
			return nil, 0, fmt.Errorf("%s:1: column %s appears twice", name, fileio.Quote(h))
		}
		col[h] = j
	}
	idx := make([]int, len(inputs))
	var missing []string
	for k, in := range inputs {
		j, ok := col[in]
		if !ok {
			missing = append(missing, fileio.Quote(in))
		}
		idx[k] = j
	}
	if len(missing) > 0 {
		return nil, 0, fmt.Errorf("%s:1: missing input column %s (the fit's inputs are %s; the file has %s)", name, strings.Join(missing, ", "),
			fileio.QuoteList(inputs), fileio.QuoteList(header))
	}
	tc, ok := col[target]
	if !ok {
		tc = -1
	}
	return idx, tc, nil
}

// testRow reads the inputs idx of record rec (line line) into x and
// returns its target (column tc, unless −1). With dropNA a missing cell
// is reported by missing rather than as an error.
func testRow(name string, line int, header, rec []string, idx []int, tc int, x []float64, dropNA bool) (y float64, missing bool, err error) {
	cell := func(j int) (float64, error) {
		s := strings.TrimSpace(rec[j])
		if gp.IsMissing(s) {
			if dropNA {
				missing = true
				return 0, nil
			}
			what := "an empty cell"
			if s != "" {
				what = fileio.Quote(s) + ", a missing value"
			}
			return 0, fmt.Errorf("%s:%d: column %d (%s) holds %s; drop the incomplete rows (--drop-na; TestCSVOptions.DropNA)", name, line, j+1, fileio.Quote(header[j]), what)
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%s:%d: column %d (%s): %s is not a finite number", name, line, j+1, fileio.Quote(header[j]), fileio.Quote(s))
		}
		return v, nil
	}
	for k, j := range idx {
		if x[k], err = cell(j); err != nil {
			return 0, false, err
		}
	}
	if tc >= 0 {
		if y, err = cell(tc); err != nil {
			return 0, false, err
		}
	}
	return y, missing, nil
}

// finiteOrNil returns &x, or nil where x is not finite.
func finiteOrNil(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// orNaN returns *p, or NaN for nil.
func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
