package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestFiguresSTTAndPT: --plots writes the rank plots, marginal densities,
// R-hat per parameter and the acceptance that governs mixing
// (tempered-transition outcomes for stt, swap acceptance per pair for
// spt), as valid PNG and SVG files; stt's level-0 makes no transitions,
// so it draws no tt-irrelevant swap figure and its level bars skip level 0.
func TestFiguresSTTAndPT(t *testing.T) {
	for _, c := range []struct {
		sampler string
		want    []string
		notWant []string
	}{
		{"stt", []string{"ranks", "densities", "rhat_params", "tt_acceptance", "accept_levels", "traces"}, []string{"swap_acceptance"}},
		{"spt", []string{"ranks", "densities", "rhat_params", "swap_acceptance", "accept_levels"}, []string{"tt_acceptance"}},
	} {
		out := t.TempDir()
		args := []string{"gp", "--n", "24", "--dims", "2", "--warmup", "10", "--draws", "30", "--levels", "2", "--inner", "mh",
			"--sampler", c.sampler, "--out", out, "--plots", "--quiet"}
		r := runBin(t, "", args...)
		mustCode(t, r, 0, args...)
		for _, name := range c.want {
			b, err := os.ReadFile(filepath.Join(out, name+".png"))
			if err != nil {
				t.Errorf("%s: %v", c.sampler, err)
				continue
			}
			if _, err := png.Decode(bytes.NewReader(b)); err != nil {
				t.Errorf("%s: %s.png is not a valid PNG: %v", c.sampler, name, err)
			}
			s, err := os.ReadFile(filepath.Join(out, name+".svg"))
			if err != nil || !bytes.Contains(s, []byte("<svg")) || !bytes.HasSuffix(bytes.TrimSpace(s), []byte("</svg>")) {
				t.Errorf("%s: %s.svg is not an SVG document (%v)", c.sampler, name, err)
			}
		}
		for _, name := range c.notWant {
			if _, err := os.Stat(filepath.Join(out, name+".png")); err == nil {
				t.Errorf("%s: drew %s.png", c.sampler, name)
			}
		}
	}
}
