// Package modrun builds and runs a Go program as a module outside this one
// would, for the tests that show that the library's documented programs
// work from another module (the README's, the kit's example).
package modrun

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// GoRun writes files (name → contents, a main package and any data files)
// into a temporary module "example" that requires
// github.com/subtemper/subtemper, replaced by the checkout at root (whose
// go.sum it copies), and runs `go run . args...` there, offline
// (GOPROXY=off, GOFLAGS=-mod=mod: the module cache must hold this
// module's dependencies, as after any build of it), with the go command of
// the toolchain running the test. It returns the combined output; it skips
// t when no go command is available and fails it when the program does
// not build or exits with an error, or runs longer than 5 minutes.
func GoRun(t testing.TB, root string, files map[string]string, args ...string) string {
	t.Helper()
	// The go command of the toolchain running the test, falling back on
	// PATH: what `go test` itself runs, which is what this test wants.
	//lint:ignore SA1019 the test runs where it was built, so the build's GOROOT is meaningful
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			t.Skip("the go command is not available: cannot build a program from another module")
		}
	}
	dir := t.TempDir()
	gomod := fmt.Sprintf("module example\n\ngo 1.26\n\nrequire github.com/subtemper/subtemper v0.0.0-00010101000000-000000000000\n\nreplace github.com/subtemper/subtemper => %s\n", root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{"go.mod": gomod, "go.sum": string(sum)}
	for name, body := range files {
		all[name] = body
	}
	for name, body := range all {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, append([]string{"run", "."}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the program from another module failed: %v\n%s", err, out)
	}
	return string(out)
}
