package temperingtest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/subtemper/subtemper/internal/modrun"
)

// exampleProgram turns the whole-file example example_logistic_test.go
// into a main program, and returns it with the output its // Output:
// comment promises.
func exampleProgram(t *testing.T) (prog, want string) {
	t.Helper()
	b, err := os.ReadFile("example_logistic_test.go")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	for old, repl := range map[string]string{
		"package temperingtest_test\n":          "package main\n",
		"func Example_logisticRegression() {\n": "func main() {\n",
	} {
		if !strings.Contains(src, old) {
			t.Fatalf("example_logistic_test.go lacks %q", old)
		}
		src = strings.Replace(src, old, repl, 1)
	}
	_, out, ok := strings.Cut(src, "\t// Output:\n")
	if !ok {
		t.Fatal("example_logistic_test.go has no // Output: comment")
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		l, ok := strings.CutPrefix(l, "\t// ")
		if !ok {
			break
		}
		lines = append(lines, l)
	}
	return src, strings.Join(lines, "\n")
}

// TestExampleFromOutsideModule builds the logistic-regression example
// (Example_logisticRegression, turned into a main program) in a separate
// module and runs it: a user's model, the kit, SPT and diag, through the
// exported API only. Its output must be the example's.
func TestExampleFromOutsideModule(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	prog, want := exampleProgram(t)
	got := modrun.GoRun(t, root, map[string]string{"main.go": prog})
	if strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("the example built from another module printed\n%s\nwant\n%s", got, want)
	}
}
