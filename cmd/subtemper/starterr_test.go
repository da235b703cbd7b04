package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelErrorReachesUser: GP data on a scale of 1e300 and --prior-sd
// 1e-300 used to end in "starting point … has log density −∞"; the model's
// own message now says what is wrong (the model's, evaluated while it is
// open, not "model is closed"). A ladder that collapses to one
// observation is warned about (it used to pass without a word).
func TestModelErrorReachesUser(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.csv")
	os.WriteFile(p, []byte("a,y\n1e300,1\n2e300,2\n3e300,0\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gp", "--data", p, "--draws", "5", "--warmup", "none", "--quiet"}, "standardize"},
		{[]string{"mvn", "--prior-sd", "1e-300", "--draws", "5", "--warmup", "none", "--quiet"}, "--prior-sd"},
	} {
		r := runBin(t, "", c.args...)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "log density −∞") || strings.Contains(r.stderr, "is closed") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	r := runBin(t, "", "gp", "--sampler", "spt", "--n", "12", "--dims", "1", "--draws", "5", "--warmup", "none", "--beta-min", "1e-300")
	if !strings.Contains(r.stderr, "ladder degenerates") {
		t.Errorf("no ladder warning: %s", r.stderr)
	}
}

// TestScaleHint: GP data on a scale of 1e150 (whose model evaluates to
// −∞, or to a NaN gradient, without any error of its own) are refused with
// the cause and the fix: gp names --standardize, eval says to rescale.
// They used to say only "starting point … has log density −∞" and
// "gradient component 0 is NaN".
func TestScaleHint(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,y\n")
	for i := range 30 {
		fmt.Fprintf(&b, "%g,%g\n", float64(i%7-3)*1e150, float64((i*5)%11-5)*1e150)
	}
	p := writeFile(t, t.TempDir(), "big150.csv", b.String())
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"gp", "--data", p, "--draws", "10", "--warmup", "5", "--quiet"}, []string{"the data's scale is far from 1", "--standardize"}},
		{[]string{"eval", "gp", "--data", p, "--lengthscales", "1", "--sf", "1", "--sn", "1"}, []string{"the data's scale is far from 1", "rescale the data"}},
	} {
		r := runBin(t, "", c.args...)
		if r.code == 0 {
			t.Errorf("%v: exit code 0", c.args)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: stderr lacks %q: %s", c.args, w, r.stderr)
			}
		}
	}
	args := []string{"gp", "--data", p, "--draws", "10", "--warmup", "5", "--quiet", "--standardize"}
	mustCode(t, runBin(t, "", args...), 0, args...)
}

// TestSavedFitSaidAfterWrite: "saved the fit to OUT" is said once the
// folder is in place, after "wrote …" (it used to come first, while the
// fit was still in the staging folder).
func TestSavedFitSaidAfterWrite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"gp", "--n", "12", "--dims", "1", "--draws", "10", "--warmup", "5", "--out", out}
	r := runBin(t, "", args...)
	mustCode(t, r, 0, args...)
	w, s := strings.Index(r.stderr, "subtemper gp: wrote "), strings.Index(r.stderr, "subtemper gp: saved the fit to "+out)
	if w < 0 || s < 0 || s < w {
		t.Errorf("stderr does not say \"wrote\" and then \"saved the fit\":\n%s", r.stderr)
	}
}
