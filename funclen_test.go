package subtemper_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function outside tests and test kits may
// be, from its func line to its closing brace, unless a line of its doc
// comment begins "Long:" and says why it is clearer whole.
const maxFuncLines = 80

// testKits are the folders whose code exists to test other code.
var testKits = []string{"linalg/linalgtest", "tempering/temperingtest"}

// TestFunctionLength: no function of the module outside tests and test
// kits is longer than maxFuncLines lines without a "Long:" line in its doc
// comment.
func TestFunctionLength(t *testing.T) {
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			for _, k := range testKits {
				if filepath.ToSlash(path) == k {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		n++
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if lines <= maxFuncLines || longSaysWhy(fd.Doc) {
				continue
			}
			t.Errorf("%s: %s is %d lines (at most %d, or a doc line beginning \"Long:\" that says why)", fset.Position(fd.Pos()), fd.Name.Name, lines, maxFuncLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Errorf("read %d Go files: too few to be the module", n)
	}
}

// longSaysWhy reports whether a line of doc begins "Long:" followed by a
// reason.
func longSaysWhy(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for line := range strings.Lines(doc.Text()) {
		if r, ok := strings.CutPrefix(strings.TrimSpace(line), "Long:"); ok && strings.TrimSpace(r) != "" {
			return true
		}
	}
	return false
}
