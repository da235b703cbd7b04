package gp

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/subtemper/subtemper/internal/fileio"
)

// FuzzReadCSV: ReadCSV never panics, its errors are short, and what it
// reads WriteCSV writes back to a file that ReadCSV reads as the same data.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"a,b,y\n1,2,3\n4,5,6\n",
		"\uFEFFa, y\n1, 2\n\n3,4.5e-3\n",
		"\"\uFEFFa\",y\n1,2\n3,4\n",
		"\"a,b\",\"c\"\"d\",y\n1,2,3\n4,5,7\n",
		"x1,y\n1e308,-1e-308\n-1.7976931348623157e308,5e-324\n",
		"1,2\n3,4\n5,6\n",
		"a,b\n1,NaN\n2,3\n",
		"a\xff,y\n1,2\n3,4\n",
		"\"a\r\nb\",y\n1,2\n3,4\n",
		"#a,y\n1,2\n3,4\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := ReadCSV(bytes.NewReader(in), "f.csv", CSVOptions{})
		if err != nil {
			if n := len(err.Error()); n > 2048 {
				t.Fatalf("error message of %d bytes", n)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, d); err != nil {
			t.Fatalf("WriteCSV of what ReadCSV read: %v", err)
		}
		e, err := ReadCSV(&buf, "g.csv", CSVOptions{})
		if err != nil {
			t.Fatalf("ReadCSV of WriteCSV's output %q: %v", buf.String(), err)
		}
		if e.N != d.N || e.D != d.D || !slices.Equal(e.X, d.X) || !slices.Equal(e.Y, d.Y) ||
			!slices.Equal(e.Names, d.Names) || e.Target != d.Target {
			t.Fatalf("round trip changed the data: %+v became %+v", d, e)
		}
	})
}

// TestReadCSVNamesRoundTrip: names that the writer accepts read back the
// same; names that cannot are refused by the writer, not changed. A first
// name beginning with U+FEFF used to be stripped as a byte-order mark and
// a name holding CR LF came back with LF.
func TestReadCSVNamesRoundTrip(t *testing.T) {
	for _, name := range []string{"\uFEFFa", "a\r\nb", "a\nb", "#a", "é,ü"} {
		d := &Data{N: 2, D: 1, X: []float64{1, 2}, Y: []float64{3, 5}, Names: []string{name}}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, d); err != nil {
			if fileio.CheckName(name) == nil {
				t.Errorf("%q: WriteCSV: %v", name, err)
			}
			continue
		}
		e, err := ReadCSV(&buf, "f.csv", CSVOptions{})
		if err != nil {
			t.Errorf("%q: %v", name, err)
			continue
		}
		if e.Names[0] != name {
			t.Errorf("name %q written and read back as %q", name, e.Names[0])
		}
	}
}

// TestReadCSVRefusesBadHeaders: a header that is not valid UTF-8 (which
// draws.csv and summary.json used to spell differently) and a header whose
// cells are all numbers (a file without a header, whose first row became
// the names) are errors.
func TestReadCSVRefusesBadHeaders(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a\xff,y\n1,2\n3,4\n", `column 1: column name "a\xff" is not valid UTF-8`},
		{"1,2\n3,4\n5,6\n", "no header row"},
		{"a\x01,y\n1,2\n3,4\n", "control character"},
	} {
		_, err := ReadCSV(strings.NewReader(c.in), "f.csv", CSVOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

// TestReadCSVCaps: an enormous cell is quoted in part, and an enormous line
// is refused without allocating much more than the cap (a 200 MB line of
// 100 M fields used to take 8.8 GB; an error quoted a 200 MB cell whole).
func TestReadCSVCaps(t *testing.T) {
	cell := strings.Repeat("z", 1<<20)
	_, err := ReadCSV(strings.NewReader("a,y\n1,2\n3,"+cell+"\n"), "f.csv", CSVOptions{})
	if err == nil || len(err.Error()) > 300 {
		t.Errorf("error of %d bytes for a 1 MiB cell", len(err.Error()))
	}
	line := strings.Repeat(",", 16<<20)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	_, err = ReadCSV(strings.NewReader("a,y\n1,2\n"+line+"\n"), "f.csv", CSVOptions{})
	runtime.ReadMemStats(&m1)
	var long *fileio.RecordTooLongError
	if !errors.As(err, &long) {
		t.Errorf("16 MiB line: error %v, want a RecordTooLongError", err)
	}
	if a := m1.TotalAlloc - m0.TotalAlloc; a > 64<<20 {
		t.Errorf("16 MiB line: the reader allocated %d MiB", a>>20)
	}
}
