package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelErrorReachesUser: GP data on a scale of 1e300 and --prior-sd
// 1e-300 used to end in "starting point … has log density −∞"; the model's
// own message now says what is wrong. A ladder that collapses to one
// observation is warned about (it used to pass without a word).
func TestModelErrorReachesUser(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.csv")
	os.WriteFile(p, []byte("a,y\n1e300,1\n2e300,2\n3e300,0\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gp", "--data", p, "--draws", "5", "--warmup", "0", "--quiet"}, "standardize"},
		{[]string{"mvn", "--prior-sd", "1e-300", "--draws", "5", "--warmup", "0", "--quiet"}, "--prior-sd"},
	} {
		r := runBin(t, "", c.args...)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "log density −∞") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	r := runBin(t, "", "gp", "--sampler", "spt", "--n", "12", "--dims", "1", "--draws", "5", "--warmup", "0", "--beta-min", "1e-300")
	if !strings.Contains(r.stderr, "ladder degenerates") {
		t.Errorf("no ladder warning: %s", r.stderr)
	}
}
