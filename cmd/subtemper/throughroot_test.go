package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// belowRoot are the module's public packages below the root package (the
// layers under it in the root's layers_test.go), each with the packages
// under it. The internal utilities (files, messages, memory, the
// interrupt) are leaves that the CLI uses for its input and output, and
// are not counted.
var belowRoot = []string{"model", "linalg", "diag", "gp", "mvn", "tempering", "cuda"}

// throughFlagsOrOutput are the files of the CLI that may refer to a
// package below the root: each turns flags into the library's option
// values, or writes or prints what the library returned. Every other file
// goes through the root package (subtemper.FitGP, FitMVN, EvalGP, the
// data readers and writers).
var throughFlagsOrOutput = map[string]string{
	"backend.go":      "flags: --backend's names and check",
	"samplerflags.go": "flags: the sampler flags → tempering.Settings; the backends compiled in",
	"gpmodel.go":      "flags: --kernel, --prior-*, --inputs, --exclude → the GP's kernel, prior and columns; their description",
	"warm.go":         "flags and output: --warm-start, --max-time; what summary.json and the messages say of the warm start",
	"modelchoice.go":  "flags and output: --evidence → tempering.EvidenceSettings; loo.csv and the printed model choice",
	"output.go":       "output: the printed summary",
	"progress.go":     "output: the start line, its warnings and the progress bar",
	"summarycut.go":   "output: the summary's diagnostics, cut short after Ctrl-C",
	"predict.go":      "flags and output: --backend; predictions.csv, predictions.json and the held-out metrics",
	"predict_plot.go": "output: the prediction figures",
	"importance.go":   "flags and output: --importance; the importance sampling's messages and printed summary",
}

// TestThroughRoot reads the CLI's own sources (not its tests) and fails
// when a file outside throughFlagsOrOutput imports a package below the
// root, and when a file in it no longer needs to (the list stays short).
func TestThroughRoot(t *testing.T) {
	const module = "github.com/subtemper/subtemper/"
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	below := func(path string) bool {
		rel, ok := strings.CutPrefix(path, module)
		if !ok {
			return false
		}
		top, _, _ := strings.Cut(rel, "/")
		return slices.Contains(belowRoot, top)
	}
	fset := token.NewFileSet()
	seen := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		var refs []string
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if below(p) {
				refs = append(refs, strings.TrimPrefix(p, module))
			}
		}
		_, listed := throughFlagsOrOutput[name]
		switch {
		case len(refs) > 0 && !listed:
			t.Errorf("%s imports %s, below the root package: go through the root (subtemper), or, if the file only parses flags or writes output, list it in throughFlagsOrOutput", name, strings.Join(refs, ", "))
		case len(refs) == 0 && listed:
			t.Errorf("%s is listed in throughFlagsOrOutput but imports no package below the root: remove it", name)
		}
		if listed {
			seen++
		}
	}
	if seen != len(throughFlagsOrOutput) {
		for name := range throughFlagsOrOutput {
			if _, err := os.Stat(name); err != nil {
				t.Errorf("throughFlagsOrOutput lists %s, which is not a file of the CLI", name)
			}
		}
	}
}
