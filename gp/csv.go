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
	// so is excluding every input. The ignored columns must still hold
	// numbers.
	Inputs, Exclude []string
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
// row of distinct, non-empty column names, then one row per observation,
// every cell a finite number (surrounding spaces are ignored, blank lines
// skipped). One column is the target (opt.Target, or the last); the others
// are the inputs, in file order. A UTF-8 byte-order mark at the start of
// the file is skipped.
//
// name is used in error messages, which name the file, the line and the
// column: an empty file, a header without data, fewer than 2 data rows,
// ragged rows, cells that are not numbers, NaN or Inf cells (a number
// beyond ±MaxFloat64 included), duplicate or empty column names, names
// that are not valid UTF-8 or hold control characters (see
// fileio.CheckName), a header row whose cells are all numbers (a file
// without a header: add one), an unknown target name, and a constant
// target are all errors. A record longer than 4 MiB or a header of more
// than 100 000 columns is refused before more of it is read; messages
// quote at most 64 bytes of a cell (the caps of internal/fileio).
func ReadCSV(r io.Reader, name string, opt CSVOptions) (*Data, error) {
	header, rows, lines, err := readTable(r, name)
	if err != nil {
		return nil, err
	}
	if len(header) < 2 {
		return nil, fmt.Errorf("gp: %s:1: header has %d column; need at least one input column and a target column", name, len(header))
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
			return nil, fmt.Errorf("gp: %s:1: no column named %s for the target (columns: %s)", name, fileio.Quote(opt.Target), columnList(header))
		}
	}
	cols, err := inputColumns(name, header, tc, opt)
	if err != nil {
		return nil, err
	}
	n, d := len(rows), len(cols)
	data := &Data{N: n, D: d, X: make([]float64, 0, n*d), Y: make([]float64, n), Target: header[tc]}
	for _, j := range cols {
		data.Names = append(data.Names, header[j])
	}
	for i, row := range rows {
		data.Y[i] = row[tc]
		for _, j := range cols {
			data.X = append(data.X, row[j])
		}
	}
	constant := true
	for _, v := range data.Y[1:] {
		if v != data.Y[0] {
			constant = false
			break
		}
	}
	if constant {
		return nil, fmt.Errorf("gp: %s:%d-%d: column %d (%q): the target is constant (every value is %v)", name, lines[0], lines[n-1], tc+1, header[tc], data.Y[0])
	}
	return data, nil
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
		if j != tc && !drop[j] {
			cols = append(cols, j)
		}
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("gp: %s:1: excluding %s leaves no input column", name, strings.Join(opt.Exclude, ", "))
	}
	return cols, nil
}

// readTable reads a header row and at least 2 rows of finite numbers, all
// of the header's width, and returns them with the line number of each
// data row.
func readTable(r io.Reader, name string) (header []string, rows [][]float64, lines []int, err error) {
	cr := fileio.NewCSVReader(r, 0)
	rec, err := cr.Read()
	if err == io.EOF {
		return nil, nil, nil, fmt.Errorf("gp: %s: empty file: want a header row and at least 2 data rows", name)
	}
	if err != nil {
		return nil, nil, nil, readErr(name, err)
	}
	hline, _ := cr.FieldPos(0)
	for j, h := range rec {
		rec[j] = strings.TrimSpace(h)
	}
	if col, err := fileio.CheckNames(rec); err != nil {
		if col > 0 {
			return nil, nil, nil, fmt.Errorf("gp: %s:%d: column %d: %w", name, hline, col, err)
		}
		return nil, nil, nil, fmt.Errorf("gp: %s:%d: %w", name, hline, err)
	}
	header = rec
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, nil, readErr(name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			return nil, nil, nil, fmt.Errorf("gp: %s:%d: row has %s, the header (line %d) has %d", name, line, plural.Count(len(rec), "field", "fields"), hline, len(header))
		}
		row := make([]float64, len(rec))
		for j, s := range rec {
			s = strings.TrimSpace(s)
			if s == "" {
				return nil, nil, nil, fmt.Errorf("gp: %s:%d: column %d (%s): empty cell", name, line, j+1, fileio.Quote(header[j]))
			}
			v, perr := strconv.ParseFloat(s, 64)
			if perr != nil && !errors.Is(perr, strconv.ErrRange) {
				return nil, nil, nil, fmt.Errorf("gp: %s:%d: column %d (%s): %s is not a number", name, line, j+1, fileio.Quote(header[j]), fileio.Quote(s))
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, nil, fmt.Errorf("gp: %s:%d: column %d (%s): %s is not finite", name, line, j+1, fileio.Quote(header[j]), fileio.Quote(s))
			}
			row[j] = v
		}
		rows = append(rows, row)
		lines = append(lines, line)
	}
	if len(rows) < 2 {
		return nil, nil, nil, fmt.Errorf("gp: %s: %s after the header; need at least 2", name, plural.Count(len(rows), "data row", "data rows"))
	}
	return header, rows, lines, nil
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
