package diag

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/plural"
)

// Draws holds the draws of several variables from the same chains.
type Draws struct {
	// Names are the variables' names, in the order of the CSV columns.
	Names []string
	// Chains are the chain labels, ascending; chain c of Values is the
	// chain labelled Chains[c].
	Chains []int
	// Values are the draws, indexed [variable][chain][draw], each chain
	// in ascending order of its draw labels. All chains have the same
	// number of draws.
	Values [][][]float64
	// LogWeights, for a weighted sample (a file with a LogWeightColumn,
	// as importance sampling writes), are the draws' log weights up to a
	// constant, indexed [chain][draw]; nil otherwise. The column is not
	// among Names.
	LogWeights [][]float64
}

// LogWeightColumn is the column of a weighted sample's log weights: the
// name R's posterior gives them (posterior::weight_draws).
const LogWeightColumn = ".log_weight"

// Weights returns the weights of every chain's draws pooled in chain
// order, normalised to sum to one (nil without LogWeights).
func (d *Draws) Weights() []float64 {
	if d.LogWeights == nil {
		return nil
	}
	var lw []float64
	for _, ch := range d.LogWeights {
		lw = append(lw, ch...)
	}
	return NormalizeWeights(lw)
}

// Variable returns the draws of the variable called name, indexed
// [chain][draw], and whether there is one.
func (d *Draws) Variable(name string) ([][]float64, bool) {
	i := slices.Index(d.Names, name)
	if i < 0 {
		return nil, false
	}
	return d.Values[i], true
}

// InputError describes what is wrong with a draws file, and where.
type InputError struct {
	File   string // the name passed to ReadCSV
	Line   int    // 1-based line of the file, 0 when not about one line
	Column int    // 1-based CSV column (field), 0 when not about one field
	Header string // the column's header, when known
	Msg    string // what is wrong
	Err    error  // the underlying error, if any
}

// Error formats e as "diag: FILE:LINE:COLUMN: column "HEADER": MSG".
func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString("diag: ")
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Header != "" {
		fmt.Fprintf(&b, "column %s: ", fileio.Quote(e.Header))
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *InputError) Unwrap() error { return e.Err }

// ReadCSV reads draws in long CSV form: a header row, then one row per
// draw. Two columns hold integer labels (of any sign, not necessarily
// contiguous): the chain's and the draw's. Two namings are read:
//
//   - .chain, .iteration, .draw — the meta-columns of R posterior's
//     draws_df (what `subtemper` writes): .chain labels the chain and
//     .iteration the draw within it; .draw (counting across chains) is
//     then only checked to be an integer. Without .iteration, .draw
//     orders the draws.
//   - chain, draw — the older form (subtemper before posterior's names):
//     draw labels may count within each chain or across chains.
//
// A header may use one naming only. Every other column is a variable, named
// by its header. Rows may come in any order: chains are sorted by label, and the
// draws of each chain by draw label. Fields are trimmed of spaces; lines
// starting with # are comments and blank lines are skipped. Values are
// decimal numbers; NaN, NA (R's missing value), Inf and -Inf are read as
// NaN, NaN, +Inf and −Inf. A UTF-8 byte-order mark at the start of the
// file is skipped. Column names must be valid UTF-8 without control
// characters (fileio.CheckName), so that they read and print the same
// everywhere. A record longer than 4 MiB or a header of more than
// 100 000 columns is refused before more of it is read, and messages quote
// at most 64 bytes of a cell (the caps of internal/fileio).
//
// name is used in error messages only (normally the file name). Errors are
// *InputError values naming the line and column at fault: an empty file, a
// missing or repeated column, a row whose number of fields differs from
// the header's, a non-integer label, a field that is not a number, a
// repeated (chain, draw) pair, a file without draws, and chains with
// different numbers of draws; an error of r is wrapped.
func ReadCSV(r io.Reader, name string) (*Draws, error) {
	return ReadCSVWith(r, name, CSVOptions{})
}

// CSVOptions tunes ReadCSVWith. The zero value is ReadCSV's behaviour.
type CSVOptions struct {
	// Truncate keeps the first n draws (in draw order) of every chain, n
	// the shortest chain's length, instead of reporting chains of unequal
	// length as an error. Interrupted runs leave such files.
	Truncate bool
}

// ReadCSVWith is ReadCSV with options.
func ReadCSVWith(r io.Reader, name string, opt CSVOptions) (*Draws, error) {
	cr := fileio.NewCSVReader(r, '#')
	cr.TrimLeadingSpace = false
	cr.ReuseRecord = true
	dr := &drawsReader{name: name, cr: cr}
	if err := dr.readHeader(); err != nil {
		return nil, err
	}
	byChain, err := dr.readRows()
	if err != nil {
		return nil, err
	}
	return dr.assemble(byChain, opt)
}

// drawsReader reads a draws CSV file: its reader, the file's name for
// messages, and what the header says of the columns.
type drawsReader struct {
	name   string
	cr     *csv.Reader
	header []string
	// names are the variables, varCols their columns; chainCol and
	// drawCol are the label columns, checkCol a .draw column that is
	// only checked (−1 if none).
	names                       []string
	varCols                     []int
	chainCol, drawCol, checkCol int
}

// drawRow is a row of a draws file: its draw label, line and variables'
// values.
type drawRow struct {
	draw, line int
	vals       []float64
}

// fail returns an *InputError at line and column col (0: none) of the
// column named header.
func (dr *drawsReader) fail(line, col int, header, format string, args ...any) error {
	return &InputError{File: dr.name, Line: line, Column: col, Header: header, Msg: fmt.Sprintf(format, args...)}
}

// readErr returns the *InputError of the CSV reader's error err.
func (dr *drawsReader) readErr(err error) error {
	var pe *csv.ParseError
	var long *fileio.RecordTooLongError
	if errors.As(err, &long) {
		return &InputError{File: dr.name, Line: long.Line, Msg: long.Reason()}
	}
	if errors.As(err, &pe) {
		return &InputError{File: dr.name, Line: pe.Line, Msg: fmt.Sprintf("invalid CSV (byte column %d)", pe.Column), Err: pe.Err}
	}
	return &InputError{File: dr.name, Msg: "read failed", Err: err}
}

// readHeader reads and checks the header row: the variables' names and
// columns and the label columns.
func (dr *drawsReader) readHeader() error {
	rec, err := dr.cr.Read()
	if err == io.EOF {
		return dr.fail(0, 0, "", "empty file: no header row")
	}
	if err != nil {
		return dr.readErr(err)
	}
	hline, _ := dr.cr.FieldPos(0)
	if len(rec) > fileio.MaxColumns {
		return dr.fail(hline, 0, "", "header has %d columns, more than the %d a file may have", len(rec), fileio.MaxColumns)
	}
	dr.header = make([]string, len(rec))
	chainCol, drawCol := -1, -1
	metaChain, metaIter, metaDraw := -1, -1, -1
	seen := make(map[string]int, len(rec))
	for i, f := range rec {
		h := strings.TrimSpace(f)
		dr.header[i] = h
		if h == "" {
			return dr.fail(hline, i+1, "", "empty column name in header")
		}
		if err := fileio.CheckName(h); err != nil {
			return dr.fail(hline, i+1, "", "%v", err)
		}
		if j, dup := seen[h]; dup {
			return dr.fail(hline, i+1, h, "repeats the name of column %d", j+1)
		}
		seen[h] = i
		switch h {
		case "chain":
			chainCol = i
		case "draw":
			drawCol = i
		case ".chain":
			metaChain = i
		case ".iteration":
			metaIter = i
		case ".draw":
			metaDraw = i
		default:
			dr.names = append(dr.names, h)
			dr.varCols = append(dr.varCols, i)
		}
	}
	if err := dr.labelColumns(hline, chainCol, drawCol, metaChain, metaIter, metaDraw); err != nil {
		return err
	}
	if len(dr.names) == 0 {
		return dr.fail(hline, 0, "", "header has no variable columns besides the chain and draw labels")
	}
	return nil
}

// labelColumns sets the label columns from the header's chain, draw and
// R posterior's meta-columns (each −1 if absent), or returns an error at
// the header's line hline if they do not make one naming.
func (dr *drawsReader) labelColumns(hline, chainCol, drawCol, metaChain, metaIter, metaDraw int) error {
	// checkCol is the .draw column when .iteration labels the draws: its
	// cells must be integers but do not order anything.
	checkCol := -1
	meta := metaChain >= 0 || metaIter >= 0 || metaDraw >= 0
	switch {
	case meta && (chainCol >= 0 || drawCol >= 0):
		return dr.fail(hline, 0, "", `header mixes R posterior's meta-columns (.chain, .iteration, .draw) with chain/draw: use one naming`)
	case meta:
		if metaChain < 0 {
			return dr.fail(hline, 0, "", `header has no column ".chain" (want .chain,.iteration,.draw,<variables>...)`)
		}
		chainCol, drawCol = metaChain, metaIter
		if metaIter < 0 {
			drawCol = metaDraw
		} else {
			checkCol = metaDraw
		}
		if drawCol < 0 {
			return dr.fail(hline, 0, "", `header has no column ".iteration" or ".draw" (want .chain,.iteration,.draw,<variables>...)`)
		}
	default:
		if chainCol < 0 {
			return dr.fail(hline, 0, "", `header has no column ".chain" or "chain" (want .chain,.iteration,.draw,<variables>... or chain,draw,<variables>...)`)
		}
		if drawCol < 0 {
			return dr.fail(hline, 0, "", `header has no column "draw" (want chain,draw,<variables>...)`)
		}
	}
	dr.chainCol, dr.drawCol, dr.checkCol = chainCol, drawCol, checkCol
	return nil
}

// readRows reads the rows after the header, by chain label.
func (dr *drawsReader) readRows() (map[int][]drawRow, error) {
	byChain := map[int][]drawRow{}
	for {
		rec, err := dr.cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, dr.readErr(err)
		}
		line, _ := dr.cr.FieldPos(0)
		if len(rec) != len(dr.header) {
			return nil, dr.fail(line, 0, "", "%s, want %d as in the header", plural.Count(len(rec), "field", "fields"), len(dr.header))
		}
		chain, err := dr.label(rec, line, dr.chainCol)
		if err != nil {
			return nil, err
		}
		draw, err := dr.label(rec, line, dr.drawCol)
		if err != nil {
			return nil, err
		}
		if dr.checkCol >= 0 {
			if _, err := dr.label(rec, line, dr.checkCol); err != nil {
				return nil, err
			}
		}
		vals := make([]float64, len(dr.varCols))
		for k, col := range dr.varCols {
			f := strings.TrimSpace(rec[col])
			v, err := parseValue(f)
			if err != nil {
				return nil, dr.fail(line, col+1, dr.header[col], "%s is not a number", fileio.Quote(f))
			}
			vals[k] = v
		}
		byChain[chain] = append(byChain[chain], drawRow{draw, line, vals})
	}
	if len(byChain) == 0 {
		return nil, dr.fail(0, 0, "", "no draws after the header")
	}
	return byChain, nil
}

// label returns the integer label in column col of the record rec, at
// line.
func (dr *drawsReader) label(rec []string, line, col int) (int, error) {
	f := strings.TrimSpace(rec[col])
	v, err := strconv.Atoi(f)
	if err != nil {
		return 0, dr.fail(line, col+1, dr.header[col], "%s is not an integer label", fileio.Quote(f))
	}
	return v, nil
}

// assemble returns the draws of the rows byChain, chains sorted by label
// and each chain's draws by draw label, after checking the chains' lengths
// (or cutting them to the shortest, with opt.Truncate) and that no draw
// label repeats.
func (dr *drawsReader) assemble(byChain map[int][]drawRow, opt CSVOptions) (*Draws, error) {
	names := dr.names
	chains := make([]int, 0, len(byChain))
	for c := range byChain {
		chains = append(chains, c)
	}
	slices.Sort(chains)
	n := len(byChain[chains[0]])
	if opt.Truncate {
		for _, c := range chains {
			n = min(n, len(byChain[c]))
		}
	}
	d := &Draws{Names: names, Chains: chains, Values: make([][][]float64, len(names))}
	for v := range names {
		d.Values[v] = make([][]float64, len(chains))
	}
	for c, label := range chains {
		rows := byChain[label]
		if len(rows) != n && !opt.Truncate {
			return nil, dr.fail(0, 0, "", "chain %d has %s, chain %d has %d: chains must have equal lengths (an interrupted run? subtemper diag --truncate cuts them to the shortest)",
				label, plural.Count(len(rows), "draw", "draws"), chains[0], n)
		}
		slices.SortStableFunc(rows, func(a, b drawRow) int { return cmp.Compare(a.draw, b.draw) })
		for i := 1; i < len(rows); i++ {
			if rows[i].draw == rows[i-1].draw {
				return nil, dr.fail(max(rows[i].line, rows[i-1].line), dr.drawCol+1, dr.header[dr.drawCol],
					"chain %d has draw %d twice (lines %d and %d)", label, rows[i].draw,
					min(rows[i].line, rows[i-1].line), max(rows[i].line, rows[i-1].line))
			}
		}
		for v := range names {
			x := make([]float64, n)
			for i, r := range rows[:n] {
				x[i] = r.vals[v]
			}
			d.Values[v][c] = x
		}
	}
	return d, dr.splitWeights(d, byChain)
}

// splitWeights moves the LogWeightColumn, if any, from d's variables to
// its LogWeights, checking that no log weight is NaN or +∞ and that some
// draw has weight.
func (dr *drawsReader) splitWeights(d *Draws, byChain map[int][]drawRow) error {
	v := slices.Index(d.Names, LogWeightColumn)
	if v < 0 {
		return nil
	}
	col := dr.varCols[v]
	d.LogWeights = d.Values[v]
	d.Names = slices.Delete(slices.Clone(d.Names), v, v+1)
	d.Values = slices.Delete(d.Values, v, v+1)
	if len(d.Names) == 0 {
		return dr.fail(0, 0, "", "header has no variable columns besides the labels and %s", LogWeightColumn)
	}
	some := false
	for c, ch := range d.LogWeights {
		for i, lw := range ch {
			if math.IsNaN(lw) || math.IsInf(lw, 1) {
				return dr.fail(byChain[d.Chains[c]][i].line, col+1, LogWeightColumn, "log weight %v: want a number or -Inf", lw)
			}
			some = some || !math.IsInf(lw, -1)
		}
	}
	if !some {
		return dr.fail(0, col+1, LogWeightColumn, "every log weight is -Inf")
	}
	return nil
}

// parseValue parses a draw: a decimal number, NaN, NA, Inf or -Inf.
func parseValue(f string) (float64, error) {
	if f == "NA" {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(f, 64)
}
