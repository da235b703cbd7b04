package fileio

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Caps on what a CSV file can make a reader allocate or print. A record
// (one line, or several when a quoted cell holds line breaks) longer than
// MaxRecordBytes or of more than MaxColumns fields is refused as soon as
// the excess has been read, so that a file of one enormous line cannot
// take the reader's memory (encoding/csv keeps a whole record, and about
// 40 bytes of bookkeeping per field, in memory: the caps bound a record's
// cost to about 10 MiB); an error message quotes at most MaxQuote bytes of
// a cell or a name (see Quote).
const (
	MaxRecordBytes = 4 << 20
	MaxColumns     = 100_000
	MaxQuote       = 64
)

// RecordTooLongError is the error of a reader made by NewCSVReader when a
// record exceeds MaxRecordBytes or MaxColumns fields.
type RecordTooLongError struct {
	Line   int  // the line (from 1) where the record begins
	Fields bool // too many fields, rather than too many bytes
}

// Error returns "LINE: REASON", to follow a file name and a colon.
func (e *RecordTooLongError) Error() string { return fmt.Sprintf("%d: %s", e.Line, e.Reason()) }

// Reason says what is wrong, without the line.
func (e *RecordTooLongError) Reason() string {
	if e.Fields {
		return fmt.Sprintf("record of more than %d fields", MaxColumns)
	}
	return fmt.Sprintf("record longer than %d MiB (a line or a quoted cell too long for a CSV file of numbers)", MaxRecordBytes>>20)
}

// NewCSVReader returns a csv.Reader of r that skips a leading byte-order
// mark, trims leading spaces of fields, allows records of any width,
// treats lines starting with comment (0: none) as comments, and fails with
// a *RecordTooLongError on a record of more than MaxRecordBytes bytes.
func NewCSVReader(r io.Reader, comment rune) *csv.Reader {
	cr := csv.NewReader(&recordLimiter{r: SkipBOM(r), comment: byte(comment), start: true, line: 1, recLine: 1})
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.Comment = comment
	return cr
}

// recordLimiter passes r through and counts the bytes of the current CSV
// record (quotes tracked by parity, which is exact for well-formed CSV and
// errs on the safe side for malformed input, which csv rejects anyway).
type recordLimiter struct {
	r        io.Reader
	comment  byte
	n        int  // bytes of the current record so far
	fields   int  // fields of the current record so far, less one
	start    bool // at the start of a line outside quotes
	inQuote  bool
	inComm   bool
	line     int // the current line, from 1
	recLine  int // the line where the current record began
	exceeded bool
	tooWide  bool
}

func (l *recordLimiter) Read(p []byte) (int, error) {
	if l.exceeded {
		return 0, &RecordTooLongError{Line: l.recLine, Fields: l.tooWide}
	}
	n, err := l.r.Read(p)
	for i := 0; i < n; i++ {
		b := p[i]
		if l.start {
			l.start = false
			l.recLine = l.line
			l.inComm = l.comment != 0 && b == l.comment
		}
		switch {
		case b == '\n':
			l.line++
			if !l.inQuote {
				l.n, l.fields, l.start, l.inComm = 0, 0, true, false
				continue
			}
		case b == '"' && !l.inComm:
			l.inQuote = !l.inQuote
		case b == ',' && !l.inQuote && !l.inComm:
			l.fields++
		}
		l.n++
		if l.n > MaxRecordBytes || l.fields >= MaxColumns {
			l.exceeded = true
			l.tooWide = l.fields >= MaxColumns
			// Hand over what precedes the excess; the next call fails.
			return i, nil
		}
	}
	return n, err
}

// Quote returns s quoted as strconv.Quote does (invalid UTF-8 and control
// characters escaped), cut to its first MaxQuote bytes (at a rune
// boundary) with its length appended when it is longer, so that an error
// message never repeats a whole enormous cell.
func Quote(s string) string {
	if len(s) <= MaxQuote {
		return strconv.Quote(s)
	}
	cut := MaxQuote
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes)", len(s))
}

// CheckName reports whether s can be a column name that a writer writes
// and a reader reads back unchanged: non-empty, valid UTF-8, free of
// control characters (a CR LF inside a quoted cell comes back as LF) and of
// surrounding white space (readers trim cells).
func CheckName(s string) error {
	switch {
	case s == "":
		return errors.New("empty column name")
	case !utf8.ValidString(s):
		return fmt.Errorf("column name %s is not valid UTF-8", Quote(s))
	case strings.TrimSpace(s) != s:
		return fmt.Errorf("column name %s begins or ends with white space", Quote(s))
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return fmt.Errorf("column name %s holds a control character (a line break, tab, …)", Quote(s))
	}
	return nil
}

// CheckNames checks a header: at most MaxColumns names, each valid for
// CheckName, all distinct, and not all of them numbers (a file whose first
// row is data, without a header, would otherwise lose its first row to the
// names). On error it returns the 1-based column at fault, or 0 when the
// fault is the header's as a whole.
func CheckNames(names []string) (col int, err error) {
	if len(names) > MaxColumns {
		return 0, fmt.Errorf("header has %d columns, more than the %d a file may have", len(names), MaxColumns)
	}
	seen := make(map[string]int, len(names))
	for j, h := range names {
		if err := CheckName(h); err != nil {
			return j + 1, err
		}
		if k, dup := seen[h]; dup {
			return j + 1, fmt.Errorf("duplicate column name %s (also column %d)", Quote(h), k+1)
		}
		seen[h] = j
	}
	if len(names) > 0 && allNumbers(names) {
		return 0, fmt.Errorf("every cell of the header row is a number: the file seems to have no header row; add one (column names such as x1,x2,y)")
	}
	return 0, nil
}

// IsNumber reports whether s (trimmed) parses as a float64, out of range
// included.
func IsNumber(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil || errors.Is(err, strconv.ErrRange)
}

func allNumbers(rec []string) bool {
	for _, s := range rec {
		if !IsNumber(s) {
			return false
		}
	}
	return true
}

// CSVField returns s as a CSV field that encoding/csv (with
// TrimLeadingSpace) and the readers built on NewCSVReader read back as s:
// quoted when it holds a comma, a quote or a line break, begins with a
// byte-order mark (which a reader would strip at the start of a file), with
// # (a comment line to diag's reader) or with white space, or is empty.
func CSVField(s string) string {
	if s == "" || strings.ContainsAny(s, ",\"\n\r") || strings.HasPrefix(s, "\uFEFF") || strings.HasPrefix(s, "#") || strings.TrimSpace(s) != s || s == `\.` {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// WriteHeader writes names as a CSV header line after checking them with
// CheckNames.
func WriteHeader(w io.Writer, names []string) error {
	if col, err := CheckNames(names); err != nil {
		if col > 0 {
			return fmt.Errorf("column %d: %w", col, err)
		}
		return err
	}
	var b strings.Builder
	for j, h := range names {
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString(CSVField(h))
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// ReadRecord reads the next record of cr and the line it begins on. At the
// end of the input it returns io.EOF as it is; another error comes back as
// ReadError(prefix, name, err).
func ReadRecord(cr *csv.Reader, prefix, name string) ([]string, int, error) {
	rec, err := cr.Read()
	if err == io.EOF {
		return nil, 0, io.EOF
	}
	if err != nil {
		return nil, 0, ReadError(prefix, name, err)
	}
	line, _ := cr.FieldPos(0)
	return rec, line, nil
}

// ReadError formats an error of a reader made by NewCSVReader with the
// file's name, the line and the column: "PREFIXNAME:LINE: column C: ERR"
// for a parse error, "PREFIXNAME:LINE: REASON" for a record too long,
// "PREFIXNAME: ERR" otherwise. prefix is the package's ("gp: ") or "".
func ReadError(prefix, name string, err error) error {
	var pe *csv.ParseError
	var long *RecordTooLongError
	switch {
	case errors.As(err, &long):
		return fmt.Errorf("%s%s:%w", prefix, name, err)
	case errors.As(err, &pe):
		return fmt.Errorf("%s%s:%d: column %d: %w", prefix, name, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("%s%s: %w", prefix, name, err)
}

// QuoteList lists names quoted with Quote, separated by commas, for an
// error message: the first 10 of them, then how many there are in all.
func QuoteList(names []string) string {
	var b strings.Builder
	for j, h := range names {
		if j == 10 {
			fmt.Fprintf(&b, ", … (%d in all)", len(names))
			break
		}
		if j > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Quote(h))
	}
	return b.String()
}

// Checker is data that checks itself before it is written.
type Checker interface{ Check() error }

// WriteCSVFile checks v, then writes it with write to the file at path
// (created or truncated, through Write). Check's error comes back as it
// is, a writing error as "PKG: writing PATH: ERR".
func WriteCSVFile[T Checker](pkg, path string, v T, write func(io.Writer, T) error) error {
	if err := v.Check(); err != nil {
		return err
	}
	if err := Write(path, func(w *bufio.Writer) error { return write(w, v) }); err != nil {
		return fmt.Errorf("%s: writing %s: %w", pkg, path, err)
	}
	return nil
}

// WriteCSV checks v, then writes it with write to w through a buffer that
// it flushes. Check's error comes back as it is, a writing error as
// "PKG: write csv: ERR".
func WriteCSV[T Checker](pkg string, w io.Writer, v T, write func(io.Writer, T) error) error {
	if err := v.Check(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	err := write(bw, v)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("%s: write csv: %w", pkg, err)
	}
	return nil
}
