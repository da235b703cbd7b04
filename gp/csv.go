package gp

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/plural"
)

// CSVOptions configures ReadCSV. The zero value reads the last column as
// the target and every other column as an input.
type CSVOptions struct {
	// Target is the name of the target column in the header; "" means the
	// last column.
	Target string
	// Inputs, if non-empty, names the input columns to use, in this order;
	// the other columns (besides the target) are ignored. Exclude, if
	// non-empty, names input columns to drop; the others are used in file
	// order. At most one of them may be given. A name that is not in the
	// header, that is the target, or that is listed twice is an error, and
	// so is excluding every input. The ignored columns may hold anything
	// (text, factors, missing values): only the target and the inputs are
	// read as numbers.
	Inputs, Exclude []string
	// DropNA drops the rows in which the target or an input is missing:
	// NA (as R writes a missing value), an empty cell or NaN. Without it
	// such a cell is an error that names it. CSVInfo.Dropped counts the
	// rows dropped.
	DropNA bool
}

// CSVInfo reports what ReadCSVInfo did besides reading the data.
type CSVInfo struct {
	// Dropped is the number of rows CSVOptions.DropNA dropped, and
	// DroppedLines their line numbers (the first 10).
	Dropped      int
	DroppedLines []int
}

// ReadCSVFile opens the file at path and reads it with ReadCSV.
func ReadCSVFile(path string, opt CSVOptions) (*Data, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gp: %w", err)
	}
	defer f.Close()
	return ReadCSV(f, path, opt)
}

// ReadCSV reads a regression dataset from comma-separated values: a header
// row of distinct, non-empty column names, then one row per observation
// (surrounding spaces are ignored, blank lines skipped). One column is
// the target (opt.Target, or the last); the others, or those opt.Inputs or
// opt.Exclude choose, are the inputs, in file order. The target and input
// cells must be finite numbers; other columns may hold anything, quoted
// text as R's write.csv writes it included, and a first column with an
// empty name (R's row names) is never read. A UTF-8 byte-order mark at the
// start of the file is skipped.
//
// name is used in error messages, which name the file, the line and the
// column: an empty file, a header without data, fewer than 2 data rows,
// ragged rows, cells that are not numbers (a column of text: the message
// says to exclude it), missing values (NA, empty, NaN: opt.DropNA drops
// their rows), Inf cells (a number beyond ±MaxFloat64 included),
// duplicate or empty column names, names that are not valid UTF-8 or hold
// control characters (see fileio.CheckName), a header row whose cells are
// all numbers (a file without a header: add one), an unknown target name,
// and a constant target are all errors. A record longer than 4 MiB or a
// header of more than 100 000 columns is refused before more of it is
// read; messages quote at most 64 bytes of a cell (the caps of
// internal/fileio).
func ReadCSV(r io.Reader, name string, opt CSVOptions) (*Data, error) {
	d, _, err := ReadCSVInfo(r, name, opt)
	return d, err
}

// ReadCSVInfo is ReadCSV, reporting the rows opt.DropNA dropped.
func ReadCSVInfo(r io.Reader, name string, opt CSVOptions) (*Data, CSVInfo, error) {
	var info CSVInfo
	cr := fileio.NewCSVReader(r, 0)
	header, hline, err := readHeader(cr, name)
	if err != nil {
		return nil, info, err
	}
	tc, err := targetColumn(name, header, opt.Target)
	if err != nil {
		return nil, info, err
	}
	cols, err := inputColumns(name, header, tc, opt)
	if err != nil {
		return nil, info, err
	}
	data := &Data{D: len(cols), Target: header[tc]}
	for _, j := range cols {
		data.Names = append(data.Names, header[j])
	}
	rows := csvRows{name: name, header: header, hline: hline, tc: tc, cols: cols, dropNA: opt.DropNA}
	lines, err := rows.read(cr, data, &info)
	if err != nil {
		return nil, info, err
	}
	if err := rows.check(data, lines, info); err != nil {
		return nil, info, err
	}
	return data, info, nil
}

// targetColumn returns the header index of the target column: the one
// named target, or the last when target is "".
func targetColumn(name string, header []string, target string) (int, error) {
	if len(header) < 2 {
		return 0, fmt.Errorf("gp: %s:1: header has %d column; need at least one input column and a target column", name, len(header))
	}
	if target == "" {
		return len(header) - 1, nil
	}
	tc := -1
	for j, h := range header {
		if h == target {
			tc = j
		}
	}
	if tc < 0 {
		return 0, fmt.Errorf("gp: %s:1: no column named %s for the target (columns: %s)", name, fileio.Quote(target), fileio.QuoteList(header))
	}
	return tc, nil
}

// csvRows reads the data rows of a file whose header has been read: the
// target column tc and the input columns cols of each.
type csvRows struct {
	name   string
	header []string
	hline  int // the header's line
	tc     int
	cols   []int
	dropNA bool
}

// read appends the rows of cr to data, counting the rows it drops (with
// dropNA) in info, and returns the line of each row it kept.
func (c *csvRows) read(cr *csv.Reader, data *Data, info *CSVInfo) ([]int, error) {
	var lines []int
	x := make([]float64, len(c.cols))
	for {
		rec, line, err := fileio.ReadRecord(cr, "gp: ", c.name)
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return nil, err
		}
		if len(rec) != len(c.header) {
			return nil, fmt.Errorf("gp: %s:%d: row has %s, the header (line %d) has %d", c.name, line, plural.Count(len(rec), "field", "fields"), c.hline, len(c.header))
		}
		y, missing, err := c.row(rec, line, x)
		if err != nil {
			return nil, err
		}
		if missing {
			info.Dropped++
			if len(info.DroppedLines) < 10 {
				info.DroppedLines = append(info.DroppedLines, line)
			}
			continue
		}
		data.X = append(data.X, x...)
		data.Y = append(data.Y, y)
		lines = append(lines, line)
	}
}

// row reads the inputs of rec, the record at line, into x and returns its
// target, or reports with missing (under dropNA) that a cell is missing.
func (c *csvRows) row(rec []string, line int, x []float64) (y float64, missing bool, err error) {
	if y, err = c.cell(rec, line, c.tc, &missing); err != nil {
		return 0, false, err
	}
	for k, j := range c.cols {
		if x[k], err = c.cell(rec, line, j, &missing); err != nil {
			return 0, false, err
		}
	}
	return y, missing, nil
}

// cell parses column j of rec, the record at line. A missing value is an
// error, or under dropNA sets *missing and reads as 0.
func (c *csvRows) cell(rec []string, line, j int, missing *bool) (float64, error) {
	s := strings.TrimSpace(rec[j])
	if isNA(s) {
		if c.dropNA {
			*missing = true
			return 0, nil
		}
		what := "empty cell"
		if s != "" {
			what = fileio.Quote(s) + ", a missing value"
		}
		return 0, fmt.Errorf("gp: %s:%d: column %d (%s): %s; drop the incomplete rows (--drop-na; CSVOptions.DropNA) or leave the column out", c.name, line, j+1, fileio.Quote(c.header[j]), what)
	}
	v, perr := strconv.ParseFloat(s, 64)
	if perr != nil && !errors.Is(perr, strconv.ErrRange) {
		excl := c.header[j]
		if len(excl) > 64 {
			excl = "with its name" // too long to repeat in a message
		}
		return 0, fmt.Errorf("gp: %s:%d: column %d (%s): %s is not a number; a column of text or factor levels cannot be an input: leave it out (--exclude %s; CSVOptions.Exclude) or code it as numbers", c.name, line, j+1, fileio.Quote(c.header[j]), fileio.Quote(s), excl)
	}
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("gp: %s:%d: column %d (%s): %s is not finite", c.name, line, j+1, fileio.Quote(c.header[j]), fileio.Quote(s))
	}
	return v, nil
}

// check sets data.N and refuses fewer than 2 rows or a constant target;
// lines are the rows' lines, info what read dropped.
func (c *csvRows) check(data *Data, lines []int, info CSVInfo) error {
	n := len(data.Y)
	data.N = n
	if n < 2 {
		if info.Dropped > 0 {
			return fmt.Errorf("gp: %s: %s after the header once %s with missing values were dropped; need at least 2", c.name, plural.Count(n, "data row", "data rows"), plural.Count(info.Dropped, "row", "rows"))
		}
		return fmt.Errorf("gp: %s: %s after the header; need at least 2", c.name, plural.Count(n, "data row", "data rows"))
	}
	for _, v := range data.Y[1:] {
		if v != data.Y[0] {
			return nil
		}
	}
	return fmt.Errorf("gp: %s:%d-%d: column %d (%q): the target is constant (every value is %v)", c.name, lines[0], lines[n-1], c.tc+1, c.header[c.tc], data.Y[0])
}

// IsMissing reports whether a CSV cell, its surrounding spaces trimmed,
// is a missing value as ReadCSV reads one: NA (as R writes it), empty, or
// NaN in any case.
func IsMissing(s string) bool { return isNA(s) }

// isNA reports whether a trimmed cell is a missing value: empty, NA (R's
// write.csv) or NaN.
func isNA(s string) bool {
	return s == "" || s == "NA" || strings.EqualFold(s, "nan")
}

// inputColumns returns the header indices of the input columns chosen by
// opt.Inputs or opt.Exclude (every column but the target tc by default).
func inputColumns(name string, header []string, tc int, opt CSVOptions) ([]int, error) {
	if len(opt.Inputs) > 0 && len(opt.Exclude) > 0 {
		return nil, fmt.Errorf("gp: %s: choose the inputs by naming them or by excluding some, not both", name)
	}
	index := make(map[string]int, len(header))
	for j, h := range header {
		index[h] = j
	}
	lookup := func(what string, list []string) (map[int]bool, []int, error) {
		seen := map[int]bool{}
		var order []int
		for _, s := range list {
			j, ok := index[s]
			switch {
			case !ok:
				return nil, nil, fmt.Errorf("gp: %s:1: %s names %s, which is not a column (columns: %s)", name, what, fileio.Quote(s), fileio.QuoteList(header))
			case j == tc:
				return nil, nil, fmt.Errorf("gp: %s:1: %s names %s, the target column", name, what, fileio.Quote(s))
			case seen[j]:
				return nil, nil, fmt.Errorf("gp: %s:1: %s names %s twice", name, what, fileio.Quote(s))
			}
			seen[j] = true
			order = append(order, j)
		}
		return seen, order, nil
	}
	if len(opt.Inputs) > 0 {
		_, order, err := lookup("the input list", opt.Inputs)
		return order, err
	}
	drop, _, err := lookup("the exclusion list", opt.Exclude)
	if err != nil {
		return nil, err
	}
	var cols []int
	for j := range header {
		if j != tc && !drop[j] && header[j] != "" {
			cols = append(cols, j)
		}
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("gp: %s:1: excluding %s leaves no input column", name, strings.Join(opt.Exclude, ", "))
	}
	return cols, nil
}

// readHeader reads the header row: trimmed, checked names, and its line.
func readHeader(cr *csv.Reader, name string) ([]string, int, error) {
	rec, hline, err := fileio.ReadRecord(cr, "gp: ", name)
	if err == io.EOF {
		return nil, 0, fmt.Errorf("gp: %s: empty file: want a header row and at least 2 data rows", name)
	}
	if err != nil {
		return nil, 0, err
	}
	for j, h := range rec {
		rec[j] = strings.TrimSpace(h)
	}
	check := rec
	if len(rec) > 2 && rec[0] == "" {
		// R's write.csv names the row names' column "": it is never read.
		check = rec[1:]
	}
	if col, err := fileio.CheckNames(check); err != nil {
		if len(check) < len(rec) && col > 0 {
			col++
		}
		if col > 0 {
			return nil, 0, fmt.Errorf("gp: %s:%d: column %d: %w", name, hline, col, err)
		}
		return nil, 0, fmt.Errorf("gp: %s:%d: %w", name, hline, err)
	}
	return rec, hline, nil
}

// WriteCSVFile writes d to the file at path (created or truncated) with
// WriteCSV.
func WriteCSVFile(path string, d *Data) error {
	return fileio.WriteCSVFile("gp", path, d, writeCSV)
}

// WriteCSV writes d as comma-separated values that ReadCSV reads back
// exactly: a header of the input names (x1, x2, … if unnamed) and the
// target name (y if unnamed), then one row per observation, numbers in the
// shortest form that round-trips. Names that ReadCSV would refuse or change
// (empty, duplicate, not UTF-8, holding control characters or surrounding
// white space, all numbers) are an error; a name that begins with U+FEFF
// is quoted, so that it is not taken for a byte-order mark.
func WriteCSV(w io.Writer, d *Data) error {
	return fileio.WriteCSV("gp", w, d, writeCSV)
}

// writeCSV is WriteCSV on checked data, with the writer's errors as they are.
func writeCSV(w io.Writer, d *Data) error {
	rec := make([]string, d.D+1)
	for j := 0; j < d.D; j++ {
		rec[j] = d.InputName(j)
	}
	rec[d.D] = d.TargetName()
	if err := fileio.WriteHeader(w, rec); err != nil {
		return err
	}
	buf := make([]byte, 0, 32*(d.D+1))
	for i := 0; i < d.N; i++ {
		buf = buf[:0]
		for j := 0; j < d.D; j++ {
			buf = strconv.AppendFloat(buf, d.X[i*d.D+j], 'g', -1, 64)
			buf = append(buf, ',')
		}
		buf = strconv.AppendFloat(buf, d.Y[i], 'g', -1, 64)
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}
