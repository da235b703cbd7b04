package subtemper_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/subtemper/subtemper/gp"
)

// libraryHeading matches the heading of README's library section.
var libraryHeading = regexp.MustCompile(`(?i)^##\s+(the\s+)?library\s*$`)

// libraryProgram returns the first ```go block after the "## Library"
// heading of the Markdown file at path (before the next "## " heading),
// if that block is a complete program (it starts with "package main").
func libraryProgram(path string) (string, bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false, err
	}
	var (
		in, code bool
		prog     strings.Builder
	)
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case code && strings.TrimSpace(line) == "```":
			p := prog.String()
			return p, strings.HasPrefix(strings.TrimSpace(p), "package main"), nil
		case code:
			prog.WriteString(line + "\n")
		case libraryHeading.MatchString(line):
			in = true
		case in && strings.HasPrefix(line, "## "):
			return "", false, nil
		case in && strings.TrimSpace(line) == "```go":
			code = true
		}
	}
	return "", false, nil
}

// TestLibraryProgram builds the README's library program from a separate
// module (module example, with a replace directive to this checkout) and
// runs it on a small CSV file, offline (GOPROXY=off, GOFLAGS=-mod=mod: the
// module cache must hold this module's dependencies, as after any build of
// it). The program is the first Go block of README.md's "## Library"
// section when that block is a complete program (package main), else that
// of docs/library-example.md, which holds the section's text until it
// moves into README.md.
func TestLibraryProgram(t *testing.T) {
	// The go command of the toolchain running the test, falling back on
	// PATH: what `go test` itself runs, which is what this test wants.
	//lint:ignore SA1019 the test runs where it was built, so the build's GOROOT is meaningful
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			t.Skip("the go command is not available: cannot build the README's program from another module")
		}
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	var prog, source string
	for _, f := range []string{"README.md", filepath.Join("docs", "library-example.md")} {
		p, ok, err := libraryProgram(filepath.Join(root, f))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if ok {
			prog, source = p, f
			break
		}
	}
	if prog == "" {
		t.Fatal("neither README.md nor docs/library-example.md has a `## Library` section whose first Go block is a package main program")
	}
	t.Logf("program from %s", source)

	dir := t.TempDir()
	gomod := fmt.Sprintf("module example\n\ngo 1.26\n\nrequire github.com/subtemper/subtemper v0.0.0-00010101000000-000000000000\n\nreplace github.com/subtemper/subtemper => %s\n", root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"go.mod": gomod, "go.sum": string(sum), "main.go": prog} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, _, err := gp.Synthetic(40, 2, 5, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	if err := gp.WriteCSVFile(filepath.Join(dir, "train.csv"), data); err != nil {
		t.Fatal(err)
	}
	// New inputs with the columns in another order: matched by name.
	newCSV := "x2,x1\n0.5,-1\n0,0\n2,1.5\n"
	if err := os.WriteFile(filepath.Join(dir, "new.csv"), []byte(newCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "run", ".", "train.csv", "new.csv")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the library program (%s) failed: %v\n%s", source, err, out)
	}
	got := string(out)
	if n := strings.Count(got, "y* ="); n != 3 {
		t.Errorf("%d predictions printed, want 3:\n%s", n, got)
	}
	for _, want := range []string{"converged (every R-hat < 1.01", "ell_x1", "ell_x2", "sf", "sn", "R-hat", "x = [-1 0.5]"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
