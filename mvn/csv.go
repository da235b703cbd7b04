package mvn

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/plural"
)

// ReadCSVFile opens the file at path and reads it with ReadCSV.
func ReadCSVFile(path string) (*Data, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mvn: %w", err)
	}
	defer f.Close()
	return ReadCSV(f, path)
}

// ReadCSV reads observations from comma-separated values: a header row of
// distinct, non-empty column names (one per dimension), then at least one
// row of finite numbers per observation (surrounding spaces ignored, blank
// lines skipped). A UTF-8 byte-order mark at the start of the file is
// skipped. name is used in error messages, which name the file, the line
// and the column.
func ReadCSV(r io.Reader, name string) (*Data, error) {
	cr := fileio.NewCSVReader(r, 0)
	header, hline, err := fileio.ReadRecord(cr, "mvn: ", name)
	if err == io.EOF {
		return nil, fmt.Errorf("mvn: %s: empty file: want a header row and at least one data row", name)
	}
	if err != nil {
		return nil, err
	}
	if err := checkHeader(name, hline, header); err != nil {
		return nil, err
	}
	d := len(header)
	data := &Data{D: d, Names: header}
	for {
		rec, line, err := fileio.ReadRecord(cr, "mvn: ", name)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		row, err := parseRow(name, line, rec, header, d)
		if err != nil {
			return nil, err
		}
		data.X = append(data.X, row...)
		data.N++
	}
	if data.N == 0 {
		return nil, fmt.Errorf("mvn: %s: no data rows after the header", name)
	}
	return data, nil
}

// ReadSigmaCSVFile opens the file at path and reads it with ReadSigmaCSV.
func ReadSigmaCSVFile(path string, d int) (*mat.SymDense, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mvn: %w", err)
	}
	defer f.Close()
	return ReadSigmaCSV(f, path, d)
}

// ReadSigmaCSV reads a covariance matrix Σ from comma-separated values: d
// rows of d finite numbers, optionally preceded by a header row (a first
// row in which no cell is a number is taken as a header and must have as
// many cells as the rows). d ≤ 0 means the size is taken from the file. Σ must be
// symmetric (|Σ_ij − Σ_ji| ≤ 1e-12·max|Σ|; the mean of the two is used)
// and positive definite. A UTF-8 byte-order mark at the start of the file
// is skipped. name is used in error messages.
func ReadSigmaCSV(r io.Reader, name string, d int) (*mat.SymDense, error) {
	rows, lines, err := readSigmaRows(fileio.NewCSVReader(r, 0), name)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("mvn: %s: empty covariance file: want %d rows of %d numbers", name, max(d, 1), max(d, 1))
	}
	n := len(rows[0])
	if d > 0 && n != d {
		return nil, fmt.Errorf("mvn: %s:%d: covariance rows have %s; the observations have %s", name, lines[0], plural.Count(n, "column", "columns"), plural.Count(d, "dimension", "dimensions"))
	}
	if len(rows) != n {
		return nil, fmt.Errorf("mvn: %s: covariance has %s of %s; want a square matrix", name, plural.Count(len(rows), "row", "rows"), plural.Count(n, "column", "columns"))
	}
	sg, err := symmetrize(name, rows, lines)
	if err != nil {
		return nil, err
	}
	if err := checkSigma(name, sg, lines); err != nil {
		return nil, err
	}
	return sg, nil
}

// readSigmaRows reads the rows of numbers of a covariance file, skipping
// a first row without numbers (a header, checked), and the line of each.
// Every row must be as wide as the first (or as the header).
func readSigmaRows(cr *csv.Reader, name string) (rows [][]float64, lines []int, err error) {
	var header []string
	for first := true; ; first = false {
		rec, line, err := fileio.ReadRecord(cr, "mvn: ", name)
		if err == io.EOF {
			return rows, lines, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if first && noNumbers(rec) {
			if err := checkHeader(name, line, rec); err != nil {
				return nil, nil, err
			}
			header = rec
			continue
		}
		width := len(rec)
		if len(rows) > 0 {
			width = len(rows[0])
		} else if header != nil {
			width = len(header)
		}
		row, err := parseRow(name, line, rec, header, width)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, row)
		lines = append(lines, line)
	}
}

// symmetrize returns the symmetric matrix of the square rows, each entry
// the mean of Σ_ij and Σ_ji, after checking that they agree to
// 1e-12·max|Σ|; lines are the rows' lines.
func symmetrize(name string, rows [][]float64, lines []int) (*mat.SymDense, error) {
	var big float64
	for _, row := range rows {
		for _, v := range row {
			big = math.Max(big, math.Abs(v))
		}
	}
	n := len(rows)
	sg := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			a, b := rows[i][j], rows[j][i]
			if math.Abs(a-b) > 1e-12*big {
				return nil, fmt.Errorf("mvn: %s:%d: column %d: Σ is not symmetric: Σ[%d,%d] = %v but Σ[%d,%d] = %v (line %d, column %d)", name, lines[i], j+1, i+1, j+1, a, j+1, i+1, b, lines[j], i+1)
			}
			// a/2 + b/2, not (a+b)/2: a + b overflows above MaxFloat64/2.
			sg.SetSym(i, j, a/2+b/2)
		}
	}
	return sg, nil
}

// checkSigma refuses a Σ that is not positive definite, or whose inverse
// or log-determinant, which the model needs, is not finite; lines are its
// rows' lines.
func checkSigma(name string, sg *mat.SymDense, lines []int) error {
	n := sg.SymmetricDim()
	for i := 0; i < n; i++ {
		if !(sg.At(i, i) > 0) {
			return fmt.Errorf("mvn: %s:%d: column %d: Σ is not positive definite: variance Σ[%d,%d] = %v", name, lines[i], i+1, i+1, i+1, sg.At(i, i))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sg) {
		return fmt.Errorf("mvn: %s: Σ (%d×%d) is symmetric but not positive definite", name, n, n)
	}
	// Refuse a Σ whose factorisation overflowed or whose inverse or
	// determinant would.
	if ld := ch.LogDet(); math.IsNaN(ld) || math.IsInf(ld, 0) {
		return fmt.Errorf("mvn: %s: Σ (%d×%d): its log-determinant is %v (entries too large or too small); rescale the data and Σ", name, n, n, ld)
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil || !finiteSym(&inv) {
		return fmt.Errorf("mvn: %s: Σ (%d×%d) cannot be inverted in floating point (entries too large or too small, or nearly singular); rescale the data and Σ", name, n, n)
	}
	return nil
}

// WriteCSV writes the observations with a header row (x1, x2, … for
// unnamed columns), numbers in the shortest form that round-trips.
func WriteCSV(w io.Writer, d *Data) error {
	return fileio.WriteCSV("mvn", w, d, writeCSV)
}

// writeCSV is WriteCSV on checked data, with the writer's errors as they are.
func writeCSV(w io.Writer, d *Data) error {
	rec := make([]string, d.D)
	for j := range rec {
		rec[j] = d.ColumnName(j)
	}
	if err := fileio.WriteHeader(w, rec); err != nil {
		return err
	}
	buf := make([]byte, 0, 32*d.D)
	for i := 0; i < d.N; i++ {
		buf = buf[:0]
		for j := 0; j < d.D; j++ {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendFloat(buf, d.X[i*d.D+j], 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// WriteCSVFile writes d to the file at path (created or truncated).
func WriteCSVFile(path string, d *Data) error {
	return fileio.WriteCSVFile("mvn", path, d, writeCSV)
}

// finiteSym reports whether every entry of s is finite.
func finiteSym(s *mat.SymDense) bool {
	n := s.SymmetricDim()
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			if v := s.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// checkHeader trims the names of rec, the header at line, and checks them
// with fileio.CheckNames.
func checkHeader(name string, line int, rec []string) error {
	for j, h := range rec {
		rec[j] = strings.TrimSpace(h)
	}
	col, err := fileio.CheckNames(rec)
	switch {
	case err == nil:
		return nil
	case col > 0:
		return fmt.Errorf("mvn: %s:%d: column %d: %w", name, line, col, err)
	}
	return fmt.Errorf("mvn: %s:%d: %w", name, line, err)
}

// noNumbers reports whether no cell of rec parses as a number.
func noNumbers(rec []string) bool {
	for _, s := range rec {
		if fileio.IsNumber(s) {
			return false
		}
	}
	return true
}

// parseRow parses a row of width finite numbers found at line.
func parseRow(name string, line int, rec, header []string, width int) ([]float64, error) {
	if len(rec) != width {
		return nil, fmt.Errorf("mvn: %s:%d: row has %s, want %d", name, line, plural.Count(len(rec), "field", "fields"), width)
	}
	col := func(j int) string {
		if j < len(header) {
			return fmt.Sprintf("column %d (%s)", j+1, fileio.Quote(header[j]))
		}
		return fmt.Sprintf("column %d", j+1)
	}
	row := make([]float64, width)
	for j, s := range rec {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, fmt.Errorf("mvn: %s:%d: %s: empty cell", name, line, col(j))
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("mvn: %s:%d: %s: %s is not a number", name, line, col(j), fileio.Quote(s))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("mvn: %s:%d: %s: %s is not finite", name, line, col(j), fileio.Quote(s))
		}
		row[j] = v
	}
	return row, nil
}
