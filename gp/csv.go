package gp

import (
	"bufio"
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
	if len(header) < 2 {
		return nil, info, fmt.Errorf("gp: %s:1: header has %d column; need at least one input column and a target column", name, len(header))
	}
	tc := len(header) - 1
	if opt.Target != "" {
		tc = -1
		for j, h := range header {
			if h == opt.Target {
				tc = j
			}
		}
		if tc < 0 {
			return nil, info, fmt.Errorf("gp: %s:1: no column named %s for the target (columns: %s)", name, fileio.Quote(opt.Target), columnList(header))
		}
	}
	cols, err := inputColumns(name, header, tc, opt)
	if err != nil {
		return nil, info, err
	}
	d := len(cols)
	data := &Data{D: d, Target: header[tc]}
	for _, j := range cols {
		data.Names = append(data.Names, header[j])
	}
	var lines []int
	x := make([]float64, d)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, info, readErr(name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			return nil, info, fmt.Errorf("gp: %s:%d: row has %s, the header (line %d) has %d", name, line, plural.Count(len(rec), "field", "fields"), hline, len(header))
		}
		missing := false
		cell := func(j int) (float64, error) {
			s := strings.TrimSpace(rec[j])
			if isNA(s) {
				if opt.DropNA {
					missing = true
					return 0, nil
				}
				what := "empty cell"
				if s != "" {
					what = fileio.Quote(s) + ", a missing value"
				}
				return 0, fmt.Errorf("gp: %s:%d: column %d (%s): %s; drop the incomplete rows (--drop-na; CSVOptions.DropNA) or leave the column out", name, line, j+1, fileio.Quote(header[j]), what)
			}
			v, perr := strconv.ParseFloat(s, 64)
			if perr != nil && !errors.Is(perr, strconv.ErrRange) {
				excl := header[j]
				if len(excl) > 64 {
					excl = "with its name" // too long to repeat in a message
				}
				return 0, fmt.Errorf("gp: %s:%d: column %d (%s): %s is not a number; a column of text or factor levels cannot be an input: leave it out (--exclude %s; CSVOptions.Exclude) or code it as numbers", name, line, j+1, fileio.Quote(header[j]), fileio.Quote(s), excl)
			}
			if math.IsInf(v, 0) {
				return 0, fmt.Errorf("gp: %s:%d: column %d (%s): %s is not finite", name, line, j+1, fileio.Quote(header[j]), fileio.Quote(s))
			}
			return v, nil
		}
		y, err := cell(tc)
		if err != nil {
			return nil, info, err
		}
		for k, j := range cols {
			if x[k], err = cell(j); err != nil {
				return nil, info, err
			}
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
	n := len(data.Y)
	data.N = n
	if n < 2 {
		if info.Dropped > 0 {
			return nil, info, fmt.Errorf("gp: %s: %s after the header once %s with missing values were dropped; need at least 2", name, plural.Count(n, "data row", "data rows"), plural.Count(info.Dropped, "row", "rows"))
		}
		return nil, info, fmt.Errorf("gp: %s: %s after the header; need at least 2", name, plural.Count(n, "data row", "data rows"))
	}
	constant := true
	for _, v := range data.Y[1:] {
		if v != data.Y[0] {
			constant = false
			break
		}
	}
	if constant {
		return nil, info, fmt.Errorf("gp: %s:%d-%d: column %d (%q): the target is constant (every value is %v)", name, lines[0], lines[n-1], tc+1, header[tc], data.Y[0])
	}
	return data, info, nil
}

// isNA reports whether a trimmed cell is a missing value: empty, NA (R's
// write.csv) or NaN.
// IsMissing reports whether a CSV cell, its surrounding spaces trimmed,
// is a missing value as ReadCSV reads one: NA (as R writes it), empty, or
// NaN in any case.
func IsMissing(s string) bool { return isNA(s) }

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
				return nil, nil, fmt.Errorf("gp: %s:1: %s names %s, which is not a column (columns: %s)", name, what, fileio.Quote(s), columnList(header))
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
	rec, err := cr.Read()
	if err == io.EOF {
		return nil, 0, fmt.Errorf("gp: %s: empty file: want a header row and at least 2 data rows", name)
	}
	if err != nil {
		return nil, 0, readErr(name, err)
	}
	hline, _ := cr.FieldPos(0)
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

// readErr formats an error of the CSV reader with the file, line and
// column.
func readErr(name string, err error) error {
	var pe *csv.ParseError
	var long *fileio.RecordTooLongError
	switch {
	case errors.As(err, &long):
		return fmt.Errorf("gp: %s:%w", name, err)
	case errors.As(err, &pe):
		return fmt.Errorf("gp: %s:%d: column %d: %w", name, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("gp: %s: %w", name, err)
}

// WriteCSVFile writes d to the file at path (created or truncated) with
// WriteCSV.
func WriteCSVFile(path string, d *Data) error {
	if err := d.Check(); err != nil {
		return err
	}
	if err := fileio.Write(path, func(w *bufio.Writer) error { return writeCSV(w, d) }); err != nil {
		return fmt.Errorf("gp: writing %s: %w", path, err)
	}
	return nil
}

// WriteCSV writes d as comma-separated values that ReadCSV reads back
// exactly: a header of the input names (x1, x2, … if unnamed) and the
// target name (y if unnamed), then one row per observation, numbers in the
// shortest form that round-trips. Names that ReadCSV would refuse or change
// (empty, duplicate, not UTF-8, holding control characters or surrounding
// white space, all numbers) are an error; a name that begins with U+FEFF
// is quoted, so that it is not taken for a byte-order mark.
func WriteCSV(w io.Writer, d *Data) error {
	if err := d.Check(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	err := writeCSV(bw, d)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("gp: write csv: %w", err)
	}
	return nil
}

// columnList lists the first 10 names of header for an error message.
func columnList(header []string) string {
	var b strings.Builder
	for j, h := range header {
		if j == 10 {
			fmt.Fprintf(&b, ", … (%d in all)", len(header))
			break
		}
		if j > 0 {
			b.WriteString(", ")
		}
		b.WriteString(fileio.Quote(h))
	}
	return b.String()
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
