package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLevelBarsSkipIdleLevel fails if the acceptance figure draws a bar
// for a level that made no transitions (level 0 of stt in Neal's form).
func TestLevelBarsSkipIdleLevel(t *testing.T) {
	levels := []levelJSON{
		{Level: 0, Transitions: 0, AcceptRate: 0},
		{Level: 1, Transitions: 100, Accepted: 70, AcceptRate: 0.7},
		{Level: 2, Transitions: 100, Accepted: 80, AcceptRate: 0.8},
	}
	labels, vals := levelBars(levels)
	if strings.Join(labels, ",") != "1,2" || len(vals) != 2 || vals[0] != 0.7 || vals[1] != 0.8 {
		t.Errorf("levelBars = %v %v, want levels 1,2 only (level 0 made no transitions)", labels, vals)
	}
	levels[0].Transitions, levels[0].AcceptRate = 50, 0.5
	if labels, _ := levelBars(levels); strings.Join(labels, ",") != "0,1,2" {
		t.Errorf("levelBars = %v, want every level that made transitions", labels)
	}
}

// TestRankAll: every draw gets its own rank, and two chains that do not
// overlap take the lowest and highest ranks respectively.
func TestRankAll(t *testing.T) {
	r := rankAll([][]float64{{11, 12, 13, 14, 15}, {1, 2, 3, 4, 5}})
	want := [][]float64{{5, 6, 7, 8, 9}, {0, 1, 2, 3, 4}}
	for c := range want {
		for s := range want[c] {
			if r[c][s] != want[c][s] {
				t.Fatalf("ranks %v, want %v", r, want)
			}
		}
	}
}

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
