package subtemper_test

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/internal/modrun"
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

	data, _, err := gp.Synthetic(40, 2, 5, gp.Prior{})
	if err != nil {
		t.Fatal(err)
	}
	var train strings.Builder
	if err := gp.WriteCSV(&train, data); err != nil {
		t.Fatal(err)
	}
	got := modrun.GoRun(t, root, map[string]string{
		"main.go":   prog,
		"train.csv": train.String(),
		// New inputs with the columns in another order: matched by name.
		"new.csv": "x2,x1\n0.5,-1\n0,0\n2,1.5\n",
	}, "train.csv", "new.csv")
	if n := strings.Count(got, "y* ="); n != 3 {
		t.Errorf("%d predictions printed, want 3:\n%s", n, got)
	}
	for _, want := range []string{"converged (every R-hat < 1.01", "ell_x1", "ell_x2", "sf", "sn", "R-hat", "x = [-1 0.5]"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
