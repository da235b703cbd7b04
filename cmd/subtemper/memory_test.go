package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMemoryRefused: runs too large for memory are refused before anything
// large is allocated, within a second, with exit code 2 and a message that
// says how much is needed and what to change. These used to die of Go's
// "fatal error: runtime: out of memory" (exit 2 with a goroutine dump) or
// grow without bound (--levels 100000000: 15 GB in 60 s).
func TestMemoryRefused(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.csv")
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range 60000 {
		b.WriteString("1.5,2.5,")
		b.WriteString(strings.Repeat("3", 1+i%3))
		b.WriteString("\n")
	}
	if err := os.WriteFile(big, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"gp", "--n", "200000"}, []string{"--n 200000", "use a smaller --n"}},
		{[]string{"gp", "--levels", "100000000"}, []string{"--levels 100000000", "fewer --levels"}},
		{[]string{"mvn", "--dims", "100000"}, []string{"--dims 100000"}},
		{[]string{"gp", "--data", big}, []string{"60000 rows", "fewer rows"}},
		{[]string{"eval", "gp", "--data", big, "--lengthscales", "1,1", "--sf", "1", "--sn", "1"}, []string{"60000 rows"}},
		{[]string{"gp", "--draws", "3000000", "--dims", "1", "--chains", "1", "--max-memory", "500M"}, []string{"the draws", "500 MiB available (--max-memory)"}},
		{[]string{"gp", "--warmup", "1000000000000", "--max-memory", "8G"}, []string{"1000000000000 warm-up", "use fewer --warmup iterations"}},
		{[]string{"gp", "--thin", "1000000000000", "--max-memory", "8G"}, []string{"2000 × 1000000000000 thinned", "use a smaller --thin"}},
		{[]string{"gp", "--max-memory", "1K"}, []string{"the program itself 32 MiB", "1 KiB available", "set --max-memory to at least"}},
	} {
		args := append(c.args, "--max-memory", "16G")
		if strings.Contains(strings.Join(c.args, " "), "--max-memory") {
			args = c.args
		}
		start := time.Now()
		r := runBin(t, "", args...)
		el := time.Since(start)
		mustCode(t, r, 2, args...)
		for _, w := range append(c.want, "needs about") {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: stderr lacks %q: %s", c.args, w, r.stderr)
			}
		}
		for _, bad := range []string{"()", "; ,"} {
			if strings.Contains(r.stderr, bad) {
				t.Errorf("%v: stderr holds %q: %s", c.args, bad, r.stderr)
			}
		}
		if strings.Contains(strings.Join(c.args, " "), "--warmup") || strings.Contains(strings.Join(c.args, " "), "--thin") {
			if strings.Contains(r.stderr, "fewer --draws") {
				t.Errorf("%v: the fix offered is fewer --draws: %s", c.args, r.stderr)
			}
		}
		if el > 2*time.Second {
			t.Errorf("%v: refused after %v", c.args, el)
		}
	}
	// The same draws fit in a larger allowance.
	r := runBin(t, "", "gp", "--n", "20", "--draws", "10", "--warmup", "none", "--quiet", "--max-memory", "1G")
	mustCode(t, r, 0)
}
