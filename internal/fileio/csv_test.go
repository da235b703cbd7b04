package fileio

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestQuoteCaps(t *testing.T) {
	long := strings.Repeat("é", 1000)
	q := Quote(long)
	if len(q) > MaxQuote+40 || !strings.Contains(q, "(2000 bytes)") {
		t.Errorf("Quote of a 2000-byte cell is %d bytes: %s", len(q), q)
	}
	if got := Quote("a\xffb"); got != `"a\xffb"` {
		t.Errorf("Quote of invalid UTF-8 = %s", got)
	}
}

func TestRecordLimit(t *testing.T) {
	in := "a,b\n1,2\n" + strings.Repeat("x", MaxRecordBytes+10) + "\n"
	cr := NewCSVReader(strings.NewReader(in), 0)
	var err error
	for err == nil {
		_, err = cr.Read()
	}
	var long *RecordTooLongError
	if !errors.As(err, &long) || long.Line != 3 {
		t.Fatalf("error %v, want a RecordTooLongError at line 3", err)
	}
	// A quoted cell with line breaks counts as one record; a comment line
	// with an odd number of quotes does not open a quoted cell.
	in = "# it's \"odd\n" + "a,b\n\"" + strings.Repeat("x\n", MaxRecordBytes/2+10) + "\",1\n"
	cr = NewCSVReader(strings.NewReader(in), '#')
	err = nil
	for err == nil {
		_, err = cr.Read()
	}
	if !errors.As(err, &long) || long.Line != 3 {
		t.Fatalf("error %v, want a RecordTooLongError at line 3", err)
	}
	// Just under the cap reads.
	in = "a\n" + strings.Repeat("1", MaxRecordBytes) + "\n"
	cr = NewCSVReader(strings.NewReader(in), 0)
	for {
		_, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestCheckNames(t *testing.T) {
	for _, c := range []struct {
		names []string
		col   int
		bad   bool
	}{
		{[]string{"a", "b"}, 0, false},
		{[]string{"\uFEFFa", "b"}, 0, false},
		{[]string{"a", "a"}, 2, true},
		{[]string{"a", "b\r\nc"}, 2, true},
		{[]string{"a\xff"}, 1, true},
		{[]string{" a"}, 1, true},
		{[]string{""}, 1, true},
		{[]string{"1", "2.5", "-3e4"}, 0, true},
		{[]string{"1", "x"}, 0, false},
	} {
		col, err := CheckNames(c.names)
		if (err != nil) != c.bad || col != c.col {
			t.Errorf("CheckNames(%q) = %d, %v", c.names, col, err)
		}
	}
}

func TestCSVFieldRoundTrip(t *testing.T) {
	for _, s := range []string{"a", "\uFEFFa", "#a", "a,b", `a"b`, "a\nb", `\.`, "é"} {
		var b strings.Builder
		if err := WriteHeader(&b, []string{s, "z"}); err != nil {
			if CheckName(s) == nil {
				t.Errorf("%q: %v", s, err)
			}
			continue
		}
		rec, err := NewCSVReader(strings.NewReader(b.String()), '#').Read()
		if err != nil || len(rec) != 2 || rec[0] != s {
			t.Errorf("%q written as %q reads back as %q, %v", s, b.String(), rec, err)
		}
	}
}

func TestReadRecordAndReadError(t *testing.T) {
	cr := NewCSVReader(strings.NewReader("a,b\n\n1,2\n3,\"x\n"), 0)
	rec, line, err := ReadRecord(cr, "pkg: ", "f.csv")
	if err != nil || line != 1 || strings.Join(rec, ",") != "a,b" {
		t.Fatalf("header: %q line %d, %v", rec, line, err)
	}
	rec, line, err = ReadRecord(cr, "pkg: ", "f.csv")
	if err != nil || line != 3 || strings.Join(rec, ",") != "1,2" {
		t.Fatalf("row after a blank line: %q line %d, %v", rec, line, err)
	}
	_, _, err = ReadRecord(cr, "pkg: ", "f.csv")
	if !errors.Is(err, csv.ErrQuote) || !strings.HasPrefix(err.Error(), "pkg: f.csv:4: column ") {
		t.Fatalf("unterminated quote: %v", err)
	}
	if _, _, err = ReadRecord(cr, "pkg: ", "f.csv"); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
	long := &RecordTooLongError{Line: 7}
	if got, want := ReadError("", "g.csv", long).Error(), "g.csv:7: "+long.Reason(); got != want {
		t.Errorf("ReadError of a long record = %q, want %q", got, want)
	}
	if got := ReadError("pkg: ", "g.csv", io.ErrUnexpectedEOF); got.Error() != "pkg: g.csv: unexpected EOF" || !errors.Is(got, io.ErrUnexpectedEOF) {
		t.Errorf("ReadError of another error = %v", got)
	}
}

func TestQuoteList(t *testing.T) {
	if got := QuoteList([]string{"a", "b c"}); got != `"a", "b c"` {
		t.Errorf("QuoteList of 2 names = %s", got)
	}
	names := make([]string, 12)
	for i := range names {
		names[i] = string(rune('a' + i))
	}
	got := QuoteList(names)
	if !strings.HasSuffix(got, `"j", … (12 in all)`) || strings.Contains(got, `"k"`) {
		t.Errorf("QuoteList of 12 names = %s", got)
	}
}
