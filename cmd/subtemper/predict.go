package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	goio "io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/internal/errmsg"
	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/plural"
	"github.com/subtemper/subtemper/linalg"
)

// predictProbs are the quantiles written to predictions.csv; with --plots
// plotProbs are computed, whose 25% and 75% quantiles draw the 50% band of
// the figure. Each costs two or so passes over the draws per test point.
var (
	predictProbs = []float64{0.05, 0.5, 0.95}
	plotProbs    = []float64{0.05, 0.25, 0.5, 0.75, 0.95}
)

// quantiles returns the prob-quantiles in q (Predictive.YQ or FQ), computed
// for probs (Predictive.Probs, which must hold prob).
func quantiles(q [][]float64, probs []float64, prob float64) []float64 {
	return q[slices.Index(probs, prob)]
}

// predictColumns follow the input columns in predictions.csv.
var predictColumns = []string{"y_mean", "y_sd", "y_q05", "y_q50", "y_q95", "f_mean", "f_sd", "f_q05", "f_q50", "f_q95"}

// heldOutColumns follow predictColumns when the test data hold the target:
// each point's log predictive density (the mixture's, in the data's units;
// their mean is predictions.json's mlpd) and its PIT (the mixture's CDF at
// the observed value), for paired comparisons with another model.
var heldOutColumns = []string{"log_density", "pit"}

// predictionsJSON is predictions.json: held-out metrics.
type predictionsJSON struct {
	TestFile string `json:"test_file"`
	N        int    `json:"n"`
	// Dropped counts the test file's rows --drop-na dropped.
	Dropped int `json:"dropped_rows,omitempty"`
	Draws   int `json:"draws"`
	// Distinct is the number of distinct draws among them (fewer where
	// they were resampled from a weighted sample).
	Distinct   int `json:"distinct_draws"`
	RMSE       num `json:"rmse"`
	MLPD       num `json:"mlpd"`
	Coverage50 num `json:"coverage50"`
	Coverage90 num `json:"coverage90"`
	// PITKS and PITKSP: the KS test of the PITs' uniformity (gp.Metrics).
	PITKS   num     `json:"pit_ks"`
	PITKSP  num     `json:"pit_ks_p"`
	Seconds float64 `json:"seconds"`
	Backend string  `json:"backend"`
}

// dropNATestHelp is the help of predict's --drop-na.
const dropNATestHelp = "drop the rows of the test file whose inputs (or target, where it has the target column) are missing (NA as R writes it, an empty cell or NaN), and say how many; without it a missing value is an error"

var predictDrawsHelp = fmt.Sprintf("number of posterior draws the predictions average over, evenly spaced over the pooled chains; 0 means all kept draws up to "+
	"%d, or up to %d from %d observations on (the cost grows linearly: one kernel factorisation per draw and the test points' solves with it, O(S·(N³/3 + N*·N·D + N*·N²)) for S draws, N observations, N* test points)",
	subtemper.MaxPredictDraws, subtemper.LargePredictDraws, subtemper.WarmStartMinN)

// printDropped says how many rows of the test file --drop-na dropped, if
// any.
func printDropped(w goio.Writer, td *subtemper.TestData, testFile string) {
	if td.Dropped > 0 {
		fmt.Fprintf(w, "(--drop-na dropped %s of %s with missing values%s)\n", plural.Count(td.Dropped, "row", "rows"), testFile,
			linesList(gp.CSVInfo{Dropped: td.Dropped, DroppedLines: td.DroppedLines}))
	}
}

// readPredictInputs reads the test file for fit's inputs through
// readInput (capped by maxMemory, stopped by ctx), dropping the rows with
// missing values when dropNA: usage errors (exit 2) for missing columns,
// missing values without dropNA and the like, errInterrupted on Ctrl-C.
func readPredictInputs(ctx context.Context, path, maxMemory string, data *gp.Data, dropNA bool) (*subtemper.TestData, error) {
	names := make([]string, data.D)
	for j := range names {
		names[j] = data.InputName(j)
	}
	td, err := readInput(ctx, "the test file", path, maxMemory, 1, func(r *fileio.Reader) (*subtemper.TestData, error) {
		return subtemper.ReadTestCSVFrom(r, path, names, data.TargetName(), subtemper.TestCSVOptions{DropNA: dropNA})
	})
	if errors.Is(err, errInterrupted) {
		return nil, err
	}
	if err != nil {
		return nil, usageError{err}
	}
	return td, nil
}

// predictProgressEvery is the least time between two of predictProgress's
// lines.
const predictProgressEvery = 30 * time.Second

// predictProgress returns PredictOptions.OnDraw for a prediction begun at
// start: a line on w with the draws done and the time left, at most one
// every every, so that a prediction that takes minutes at large N says how
// far it is and one of seconds says nothing.
func predictProgress(w goio.Writer, cmd string, start time.Time, every time.Duration) func(done, total int) {
	last := start
	return func(done, total int) {
		now := time.Now()
		if now.Sub(last) < every || done == total {
			return
		}
		last = now
		el := now.Sub(start)
		left := time.Duration(float64(el) * float64(total-done) / float64(done))
		fmt.Fprintf(w, "subtemper %s: predicting: %d of %d draws done, %s, about %s left\n", cmd, done, total, fmtDuration(el), fmtDuration(left))
	}
}

// distinctNote says how many of pred's draws were distinct, where some
// repeat: draws resampled from a weighted sample (weighted) repeat, and
// so do a Metropolis chain's after a rejection.
func distinctNote(pred *gp.Predictive, weighted bool) string {
	switch {
	case pred.Distinct == pred.Draws:
		return ""
	case weighted:
		return fmt.Sprintf(" (%d distinct: resampled from the weighted sample)", pred.Distinct)
	}
	return fmt.Sprintf(" (%d distinct)", pred.Distinct)
}

// predictAndWrite predicts at td's inputs from fit, writes predictions.csv
// (and, when td has targets, predictions.json) into dir, prints the
// held-out metrics to stdout, and with plots draws the figure (1 or 2
// inputs).
//
// Messages name the files as in shownDir, the folder that dir will become
// (gp writes into --out's staging folder).
func predictAndWrite(ctx context.Context, io *stdio, cmd string, fit *subtemper.GPFit, td *subtemper.TestData, testFile, dir, shownDir string, draws int, plots, quiet bool) error {
	shown := func(p string) string { return filepath.Join(shownDir, filepath.Base(p)) }
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("--out %s: %v", dir, err)
	}
	start := time.Now()
	probs := predictProbs
	if plots {
		probs = plotProbs
	}
	opt := subtemper.PredictOptions{Draws: draws, Y: td.Y, Probs: probs}
	if !quiet {
		opt.OnDraw = predictProgress(io.err, cmd, start, predictProgressEvery)
	}
	pred, err := predictInterruptible(ctx, func() (*gp.Predictive, error) { return fit.Predict(ctx, td.X, td.N, opt) })
	if errors.Is(err, errInterrupted) {
		return err
	}
	if err != nil {
		return fmt.Errorf("predicting: %w", errmsg.Trim(err, "subtemper: "))
	}
	secs := time.Since(start).Seconds()
	var written []string
	p := filepath.Join(dir, "predictions.csv")
	if err := writePredictionsCSV(p, fit.Data, td, pred); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	written = append(written, shown(p))
	fmt.Fprintf(io.out, "\npredictions at %s from %s%s %s in %.2f s (backend %s): %s\n", plural.Count(td.N, "test point", "test points"),
		plural.Count(pred.Draws, "posterior draw", "posterior draws"), distinctNote(pred, fit.Weighted != nil), "averaged", secs, fit.Backend, shown(p))
	printDropped(io.out, td, testFile)
	if td.Y != nil {
		mt, err := pred.Metrics(td.Y)
		if err != nil {
			return err
		}
		pj := predictionsJSON{TestFile: testFile, N: mt.N, Dropped: td.Dropped, Draws: pred.Draws, Distinct: pred.Distinct, RMSE: num(mt.RMSE), MLPD: num(mt.MLPD),
			Coverage50: num(mt.Coverage50), Coverage90: num(mt.Coverage90), PITKS: num(mt.PITKS), PITKSP: num(mt.PITKSP), Seconds: secs, Backend: fit.Backend}
		fmt.Fprintf(io.out, "held-out: RMSE %s, mean log predictive density %s, coverage of the 50%% interval %.3f and of the 90%% interval %.3f, PIT uniformity KS p = %.2g (%s)\n",
			fmtNum(mt.RMSE), fmtNum(mt.MLPD), mt.Coverage50, mt.Coverage90, mt.PITKSP, plural.Count(mt.N, "point", "points"))
		if mt.PITKSP < 0.01 {
			fmt.Fprintf(io.out, "warning: the predictive distributions are not calibrated on the test points (the PITs are not uniform: KS p = %.2g < 0.01; --plots draws them in ppc)\n", mt.PITKSP)
		}
		p := filepath.Join(dir, "predictions.json")
		if err := writeJSONFile(p, pj); err != nil {
			return fmt.Errorf("writing %s: %w", shown(p), err)
		}
		written = append(written, shown(p))
	}
	var cut *figuresCut
	if plots {
		if beforePredictionFigures != nil {
			beforePredictionFigures()
		}
		figs, failed, err := writePredictionPlots(ctx, dir, fit, td, pred)
		if err != nil && ctx.Err() != nil {
			// The band figure's own prediction stopped at the
			// interruption: the predictions are written whole, some
			// figures are not, and the run says so (it is not complete).
			cut = &figuresCut{missing: failed}
		} else if err != nil {
			fmt.Fprintf(io.err, "subtemper %s: the prediction figure could not be drawn: %v\n", cmd, err)
		}
		for _, f := range figs {
			written = append(written, shown(f))
		}
	}
	if !quiet {
		fmt.Fprintf(io.err, "subtemper %s: wrote %s\n", cmd, strings.Join(written, ", "))
	}
	if cut != nil {
		return cut
	}
	return nil
}

// beforePredictionFigures, when set (by tests), runs just before
// predictAndWrite draws the prediction figures.
var beforePredictionFigures func()

// figuresCut is predictAndWrite's error when an interruption stopped the
// prediction figures after the predictions were written: the command
// exits as interrupted (it wraps errInterrupted), and a gp run is kept
// marked as interrupted during the prediction, with Error as its warning.
type figuresCut struct {
	missing []string // the figures' file names not drawn
	hint    string   // how to draw them, if known
}

func (e *figuresCut) Error() string {
	s := "interrupted while the prediction figures were drawn: the predictions are written, but not " + strings.Join(e.missing, ", ")
	if e.hint != "" {
		s += "; " + e.hint
	}
	return s
}

func (e *figuresCut) Unwrap() error { return errInterrupted }

// writePredictionsCSV writes the test inputs (the fit's input columns, in
// its order) and the predictive summaries, in the data's units.
func writePredictionsCSV(path string, data *gp.Data, td *subtemper.TestData, p *gp.Predictive) error {
	return fileio.Write(path, func(w *bufio.Writer) error {
		for j := range data.D {
			w.WriteString(csvField(data.InputName(j)))
			w.WriteByte(',')
		}
		w.WriteString(strings.Join(predictColumns, ","))
		held := p.LogDensity != nil
		if held {
			w.WriteString("," + strings.Join(heldOutColumns, ","))
		}
		w.WriteByte('\n')
		buf := make([]byte, 0, 32)
		var yq, fq [3][]float64
		for k, prob := range predictProbs {
			yq[k], fq[k] = quantiles(p.YQ, p.Probs, prob), quantiles(p.FQ, p.Probs, prob)
		}
		for i := range td.N {
			row := append(append([]float64(nil), td.X[i*data.D:(i+1)*data.D]...),
				p.YMean[i], p.YSD[i], yq[0][i], yq[1][i], yq[2][i],
				p.FMean[i], p.FSD[i], fq[0][i], fq[1][i], fq[2][i])
			if held {
				row = append(row, p.LogDensity[i], p.CDF[i])
			}
			for k, v := range row {
				buf = buf[:0]
				if k > 0 {
					buf = append(buf, ',')
				}
				buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
				w.Write(buf)
			}
			w.WriteByte('\n')
		}
		return nil
	})
}

// predictFlags are the flags of the predict command.
type predictFlags struct {
	fit, data, out, backend string
	draws                   int
	plots, quiet, dropNA    bool
}

// cmdPredict is the predict command: predictions from a saved fit.
func cmdPredict(ctx context.Context, args []string, io *stdio) error {
	var f predictFlags
	fs := newFlagSet("subtemper predict", "subtemper predict --fit DIR --data new.csv [flags]",
		`Predicts at new inputs from a fit saved by `+"`subtemper gp --out DIR`"+` (DIR holds fit.json and
fit-data.csv: the training data, standardisation, kernel, prior and draws), averaging the GP's
predictive over the posterior draws. Writes predictions.csv: the input columns, then
y_mean, y_sd, y_q05, y_q50, y_q95 (a new observation y*, with noise) and f_mean, f_sd,
f_q05, f_q50, f_q95 (the latent f*), in the data's units; quantiles are those of the
mixture over draws. The columns of --data are matched to the fit's inputs by name (other
columns are ignored); when --data also has the target column, prints the held-out RMSE,
mean log predictive density and coverage of the 50% and 90% intervals, writes them
to predictions.json, and adds to predictions.csv each point's log_density (the log
predictive density of its observed target, whose mean is the MLPD) and pit (the
predictive CDF there), for a paired comparison with another model. A prediction that
takes longer than 30 s says on stderr every 30 s how many draws are done and the time left.`)
	fs.str(&f.fit, "fit", "", "folder of a saved fit (the --out of subtemper gp)")
	fs.str(&f.data, "data", "", "CSV file of new inputs: a header row naming the fit's input columns (any order)")
	fs.str(&f.out, "out", "", "folder for predictions.csv, predictions.json and figures; \"\" means the --fit folder")
	fs.integer(&f.draws, "predict-draws", 0, predictDrawsHelp)
	fs.boolean(&f.dropNA, "drop-na", false, dropNATestHelp)
	fs.str(&f.backend, "backend", linalg.FastestName(), backendHelp())
	fs.boolean(&f.plots, "plots", false, "also draw, as PNG and SVG, "+predictFiguresHelp)
	fs.boolean(&f.quiet, "quiet", false, "no messages on stderr (errors still go there)")
	fs.notes = "Exit codes: 0 success, 1 run-time failure, 2 bad flag, bad input or a folder without a complete fit."
	if err := parseNoArgs(fs, args, io); err != nil {
		return err
	}
	if f.fit == "" || f.data == "" {
		return usagef("--fit DIR and --data FILE are both required (run `subtemper predict --help`)")
	}
	if err := checkNonNegInt("predict-draws", f.draws); err != nil {
		return err
	}
	if err := checkBackend(f.backend); err != nil {
		return err
	}
	fit, err := subtemper.LoadGPFit(f.fit, f.backend)
	if errors.Is(err, subtemper.ErrIncompleteFit) {
		return usageError{fmt.Errorf("--fit %w", err)}
	}
	if err != nil {
		return err
	}
	defer closeUnlessInterrupted(ctx, fit)
	td, err := readPredictInputs(ctx, f.data, "", fit.Data, f.dropNA)
	if err != nil {
		return err
	}
	out := f.out
	if out == "" {
		out = f.fit
	}
	if !f.quiet {
		fmt.Fprintf(io.err, "subtemper predict: fit %s (N = %d, D = %d, %s), %s from %s\n", f.fit, fit.Data.N, fit.Data.D,
			plural.Count(len(fit.PooledDraws(1<<62)), "draw", "draws"), plural.Count(td.N, "test point", "test points"), f.data)
	}
	if err := predictAndWrite(ctx, io, "predict", fit, td, f.data, out, out, f.draws, f.plots, f.quiet); err != nil {
		return err
	}
	if ctx.Err() != nil {
		// Ctrl-C while the files were written: written whole.
		return fmt.Errorf("%w while the files were written: the predictions are complete, every file written", errInterrupted)
	}
	return nil
}

// predictGrace is how long predictInterruptible waits, after a
// cancellation, for the prediction to notice it (it does between draws)
// before it gives up on it.
const predictGrace = 300 * time.Millisecond

// predictInterruptible runs predict (a GPFit.Predict with ctx) in a
// goroutine. If ctx is cancelled, it returns interruptedDuring("the
// prediction") as soon as predict returns, or after predictGrace at the
// latest, abandoning it: a draw's factorisation under way (seconds for
// large N on a loaded machine) is not waited for; the process is about to
// exit, and the fit must then not be closed (its Close would wait for the
// abandoned prediction): see closeUnlessInterrupted.
func predictInterruptible(ctx context.Context, predict func() (*gp.Predictive, error)) (*gp.Predictive, error) {
	type result struct {
		p   *gp.Predictive
		err error
	}
	c := make(chan result, 1) // buffered: an abandoned prediction does not block
	go func() {
		p, err := predict()
		c <- result{p, err}
	}()
	select {
	case r := <-c:
		if r.err != nil && ctx.Err() != nil {
			return nil, interruptedDuring("the prediction")
		}
		return r.p, r.err
	case <-ctx.Done():
	}
	select {
	case <-c:
	case <-time.After(predictGrace):
	}
	return nil, interruptedDuring("the prediction")
}

// closeUnlessInterrupted closes fit, unless ctx was cancelled: a
// prediction abandoned by predictInterruptible may still hold it, and the
// process is about to exit.
func closeUnlessInterrupted(ctx context.Context, fit interface{ Close() error }) {
	if ctx.Err() == nil {
		fit.Close()
	}
}

// gpPredictDone returns the gp command's done hook: save j's fit to out
// (when set) and predict at the test file's inputs (when set).
//
// The files go into out, the staging folder of --out, which is put in
// place of shown (--out itself) after the hook returns: messages name
// shown.
func gpPredictDone(ctx context.Context, io *stdio, j *job, out, shown string, flags map[string]any, td *subtemper.TestData, testFile string, draws int, plots, quiet bool, notes *[]string) func([][][]float64) error {
	if shown == "" {
		shown = out
	}
	return func(d [][][]float64) error {
		fit := j.fit
		fit.Draws = d
		defer closeUnlessInterrupted(ctx, fit)
		if out != "" {
			if err := fit.SaveFlags(out, flags); err != nil {
				return fmt.Errorf("saving the fit to %s: %w", shown, err)
			}
			// Said once the folder is in place (out may be the staging
			// folder of --out).
			*notes = append(*notes, fmt.Sprintf("saved the fit to %s (%s, %s: `subtemper predict --fit %s --data new.csv` reuses it)",
				shown, subtemper.FitFile, subtemper.FitDataFile, shown))
		}
		if td == nil {
			return nil
		}
		dir, sdir := out, shown
		if dir == "" {
			dir, sdir = ".", "."
		}
		err := predictAndWrite(ctx, io, "gp", fit, td, testFile, dir, sdir, draws, plots, quiet)
		var cut *figuresCut
		if errors.As(err, &cut) && out != "" {
			cut.hint = fmt.Sprintf("`subtemper predict --fit %s --data %s --plots` draws them", shown, testFile)
		}
		return err
	}
}
