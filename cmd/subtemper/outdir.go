package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/subtemper/subtemper/internal/fileio"
)

// One run folder holds one run. A sampling command writes every file
// (data.csv, draws.csv, summary.json, figures) into a fresh staging folder
// beside --out, named .<out>.staging-<pid>-<random>, and only when all are
// written puts it in place of --out in one step (fileio.SwapDir), then
// removes the previous content. So --out holds the earlier complete result
// or the new complete one: a run that fails, or is killed, leaves --out as
// it was; its staging folder is removed on the way out, or, after a kill,
// by the next run with the same --out. A run interrupted before it kept
// any draw does not replace an earlier result (one with a summary.json):
// it writes nothing and says so. Files in --out that subtemper does not
// write are carried over into the new folder: hard-linked into the
// staging folder before the swap (linkForeign), so that a kill at any
// instant leaves them in --out, and what could not be linked moved after
// it (carryForeign).

var (
	stagingMu   sync.Mutex
	stagingDirs []string
)

// removeStaging removes the staging folders that were not put in place.
func removeStaging() {
	stagingMu.Lock()
	defer stagingMu.Unlock()
	for _, d := range stagingDirs {
		os.RemoveAll(d)
	}
	stagingDirs = nil
}

// stageOut creates the staging folder for --out s.out after checking that
// the output can be written, removes stale staging folders of runs that no
// longer exist, and points s.out at the staging folder (s.finalOut keeps
// --out).
func (s *samplerFlags) stageOut() error {
	final := filepath.Clean(s.out)
	if fi, err := os.Lstat(final); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		// The folder the link points to is the one replaced (swapping
		// the link itself would turn it into a folder and leave its
		// target to be emptied).
		target, err := filepath.EvalSymlinks(final)
		if err != nil {
			return usagef("--out %s: a symbolic link that cannot be followed: %v", s.out, err)
		}
		final = target
	}
	if err := checkSwappable(s.out, final); err != nil {
		return err
	}
	parent, base := filepath.Split(final)
	if parent == "" {
		parent = "."
	}
	if fi, err := os.Stat(final); err == nil {
		if !fi.IsDir() {
			return usagef("--out %s: mkdir %s: not a directory", s.out, s.out)
		}
		// The old content is removed after the swap, and foreign files are
		// moved: the folder itself must be writable.
		f, err := os.CreateTemp(final, ".subtemper-probe-*")
		if err != nil {
			return usagef("--out %s: cannot write into it: %v", s.out, err)
		}
		f.Close()
		os.Remove(f.Name())
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return usagef("--out %s: %v", s.out, err)
	}
	prefix := "." + base + ".staging-"
	if stale, err := filepath.Glob(filepath.Join(parent, prefix+"*")); err == nil {
		for _, d := range stale {
			pid, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), prefix), "-")
			if p, err := strconv.Atoi(pid); err == nil && !alive(p) {
				os.RemoveAll(d)
			}
		}
	}
	dir, err := os.MkdirTemp(parent, prefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return usagef("--out %s: cannot write beside it: %v", s.out, err)
	}
	// MkdirTemp(".", …) gives "./.out.staging-…", which the paths joined
	// to it ("…/draws.csv", cleaned) no longer begin with: finalPath maps
	// only paths that do.
	dir = filepath.Clean(dir)
	os.Chmod(dir, 0o755&^umaskBits())
	stagingMu.Lock()
	stagingDirs = append(stagingDirs, dir)
	stagingMu.Unlock()
	s.finalOut, s.out = final, dir
	return nil
}

// checkSwappable refuses, before any work, an --out (given as given,
// resolved to final) that cannot be replaced in one step at the end of
// the run: the root folder, the current folder or one that holds it (".",
// "..") and a mount point.
func checkSwappable(given, final string) error {
	abs, err := filepath.Abs(final)
	if err != nil {
		return usagef("--out %s: %v", given, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	suggest := filepath.Join(given, "run")
	if filepath.Dir(abs) == abs {
		return usagef("--out %s is the root folder, which a run cannot replace: give a folder for the run's files, e.g. --out %s", given, suggest)
	}
	if wd, err := os.Getwd(); err == nil {
		if real, err := filepath.EvalSymlinks(wd); err == nil {
			wd = real
		}
		if rel, err := filepath.Rel(abs, wd); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
			return usagef("--out %s is the current folder or holds it, which a run cannot replace (the run's folder is swapped in whole): give a folder for the run's files, e.g. --out %s", given, suggest)
		}
	}
	var st, pst syscall.Stat_t
	if syscall.Stat(abs, &st) == nil && syscall.Stat(filepath.Dir(abs), &pst) == nil && st.Dev != pst.Dev {
		return usagef("--out %s is a mount point, which a run cannot replace (the run's folder is swapped in whole): give a folder inside it, e.g. --out %s", given, suggest)
	}
	return nil
}

// alive reports whether process pid exists.
func alive(pid int) bool {
	if pid == os.Getpid() {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// umaskBits returns the process's umask.
func umaskBits() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}

// finalPath maps a path inside the staging folder to its place in --out.
func (s *samplerFlags) finalPath(p string) string {
	if s.finalOut == "" {
		return p
	}
	if rest, ok := strings.CutPrefix(p, s.out); ok {
		return s.finalOut + rest
	}
	return p
}

// fixStagedPaths rewrites the staging folder's name into --out's in what
// summary.json and the tables say about the data.
func fixStagedPaths(j *job) {
	f := j.flags
	if f.finalOut == "" {
		return
	}
	if p, ok := j.data["file"].(string); ok {
		j.data["file"] = f.finalPath(p)
	}
	j.dataLine = strings.ReplaceAll(j.dataLine, f.out, f.finalOut)
}

// commitOut puts the staging folder in place of --out, unless the run kept
// no draw and --out holds an earlier result (keep reports that). It
// returns the written paths in --out.
func commitOut(f *samplerFlags, written []string, noDraws bool) (paths []string, kept bool, err error) {
	if f.finalOut == "" {
		return written, false, nil
	}
	if noDraws {
		if _, err := os.Stat(filepath.Join(f.finalOut, "summary.json")); err == nil {
			return nil, true, nil
		}
	}
	// The user's files are linked into the new folder before the swap,
	// so that they are in --out whatever instant the process is killed
	// at (moved after the swap only, a kill between the two left them in
	// the old folder, which the next run removes as a stale staging
	// folder).
	linkForeign(f.finalOut, f.out)
	old, err := fileio.SwapDir(f.out, f.finalOut)
	if err != nil {
		return nil, false, fmt.Errorf("putting the results in place of %s: %w", f.finalOut, err)
	}
	stagingMu.Lock()
	stagingDirs = append(stagingDirs, old) // removed on the way out
	stagingMu.Unlock()
	if afterSwap != nil {
		afterSwap()
	}
	if old != "" {
		carryForeign(old, f.finalOut)
	}
	for _, p := range written {
		paths = append(paths, f.finalPath(p))
	}
	return paths, false, nil
}

// afterSwap, when set (by tests), runs between the swap and carryForeign:
// what --out holds then is what a kill at that instant would leave.
var afterSwap func()

// linkForeign mirrors into staged the entries of dir (if it exists) that
// subtemper does not write: files as hard links, folders as folders of
// the same, symbolic links as links to the same target. An entry that
// cannot be mirrored whole (another file system inside --out, a file
// system without hard links) is left out, for carryForeign to move after
// the swap.
func linkForeign(dir, staged string) {
	eachForeign(dir, staged, func(src, dst string) {
		if err := linkTree(src, dst); err != nil {
			os.RemoveAll(dst) // links only: the originals stay in dir
		}
	})
}

// eachForeign calls f(src, dst) for each entry of from that subtemper
// does not write and that to has no entry of the same name for, with
// their paths in from and to.
func eachForeign(from, to string, f func(src, dst string)) {
	ents, err := os.ReadDir(from)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if ours(n) {
			continue
		}
		dst := filepath.Join(to, n)
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		f(filepath.Join(from, n), dst)
	}
}

// linkTree mirrors src at dst; see linkForeign.
func linkTree(src, dst string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	case fi.IsDir():
		if err := os.Mkdir(dst, 0o700); err != nil {
			return err
		}
		ents, err := os.ReadDir(src)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if err := linkTree(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				return err
			}
		}
		return os.Chmod(dst, fi.Mode().Perm())
	}
	return os.Link(src, dst)
}

// carryForeign moves the entries of old that subtemper does not write into
// dir, unless dir has an entry of that name.
func carryForeign(old, dir string) {
	eachForeign(old, dir, func(src, dst string) { os.Rename(src, dst) })
}

// ours reports whether a file name is one that subtemper writes into --out.
func ours(n string) bool {
	switch n {
	case "draws.csv", "draws.nc", "summary.json", "data.csv", "fit.json", "fit-data.csv", "predictions.csv", "predictions.json":
		return true
	}
	if strings.HasPrefix(n, ".") && strings.Contains(n, ".tmp") {
		return true
	}
	if (strings.HasPrefix(n, "predictions") || strings.HasPrefix(n, "ppc")) && (strings.HasSuffix(n, ".png") || strings.HasSuffix(n, ".svg")) {
		return true // the prediction figures
	}
	for _, fig := range figureNames {
		if n == fig+".png" || n == fig+".svg" {
			return true
		}
	}
	return false
}
