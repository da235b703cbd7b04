package subtemper

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestReadTestCSVCaps: the test-file reader has the other readers' caps.
// A cell of 8 MiB is refused as a record too long, with a short message
// (it used to be read whole, and quoted whole in the message: 314 MB for a
// 300 MB cell); a 100 kB cell that is not a number is quoted cut to 64
// bytes; a header of more than 100 000 columns is refused.
func TestReadTestCSVCaps(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	in := []string{"a", "b"}
	for _, c := range []struct {
		name, content, want string
	}{
		{"huge.csv", "a,b\n1," + strings.Repeat("x", 8<<20) + "\n", "record longer than"},
		{"long.csv", "a,b\n1," + strings.Repeat("x", 100_000) + "\n", "(100000 bytes)"},
		{"wide.csv", strings.Repeat("c,", 200_000) + "a,b\n", "more than 100000 fields"},
		{"quoted.csv", "a,b\n1,\"" + strings.Repeat("y", 8<<20) + "\"\n", "record longer than"},
	} {
		_, err := ReadTestCSV(write(c.name, c.content), in, "y")
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := err.Error()
		if len(msg) > 1000 {
			t.Errorf("%s: error message of %d bytes: %.200s…", c.name, len(msg), msg)
		}
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: error %.300q does not say %q", c.name, msg, c.want)
		}
	}
}

// FuzzReadTestCSV: ReadTestCSVFrom never panics; what it accepts has N
// rows of finite inputs (and targets, when the target column is there);
// its errors are short whatever the input.
func FuzzReadTestCSV(f *testing.F) {
	for _, s := range []string{
		"a,b,y\n1,2,3\n4,5,6\n",
		"b,a\n2,1\n",
		"\ufeffa, b ,extra\n1,2,x\n",
		"a,b\n1\n",
		"a,b\n\"1\",\"2\"\n",
		"a,a,b\n1,2,3\n",
		"a,b,y\n1,NaN,3\n",
		"a,b\n1,\"2\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		td, err := ReadTestCSVFrom(strings.NewReader(string(b)), "t.csv", []string{"a", "b"}, "y")
		if err != nil {
			if n := len(err.Error()); n > 2000 {
				t.Fatalf("error message of %d bytes", n)
			}
			if !utf8.ValidString(err.Error()) {
				t.Fatalf("error message is not valid UTF-8: %q", err.Error())
			}
			return
		}
		if td.N < 1 || len(td.X) != 2*td.N || (td.Y != nil && len(td.Y) != td.N) {
			t.Fatalf("N = %d, %d inputs, %d targets", td.N, len(td.X), len(td.Y))
		}
		for _, v := range append(append([]float64(nil), td.X...), td.Y...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite value %v accepted", v)
			}
		}
	})
}
