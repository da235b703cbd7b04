package subtemper

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/subtemper/subtemper/gp"
)

// TestLoadTamperedFit: a saved fit whose fit-data.csv was replaced by
// another file of the same shape is refused (fit.json records the data's
// SHA-256; such a fit used to predict silently from the wrong data), and
// so is a fit.json whose numbers do not hold together; every refusal wraps
// ErrIncompleteFit (the CLI's exit code 2), where some used to be accepted
// and others refused as run-time failures.
func TestLoadTamperedFit(t *testing.T) {
	fit := smallFit(t)
	defer fit.Close()
	// Without standardisation (which would catch other data by their
	// means and SDs), the data swapped are caught by the checksum alone.
	plain := &GPFit{Data: fit.Data, Prior: fit.Prior, Backend: "gonum", Draws: fit.Draws}
	dir := t.TempDir()
	for _, f := range []*GPFit{plain, fit} {
		if err := f.Save(dir); err != nil {
			t.Fatal(err)
		}
		back, err := LoadGPFit(dir, "gonum")
		if err != nil {
			t.Fatal(err)
		}
		back.Close()
		dataPath := filepath.Join(dir, FitDataFile)
		orig, err := os.ReadFile(dataPath)
		if err != nil {
			t.Fatal(err)
		}
		// Same shape, one digit changed in the last row.
		i := strings.LastIndexAny(string(orig[:len(orig)-2]), "123456789")
		swapped := []byte(string(orig))
		swapped[i] = '1' + (swapped[i]-'0')%9
		if err := os.WriteFile(dataPath, swapped, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadGPFit(dir, "gonum"); !errors.Is(err, ErrIncompleteFit) || !strings.Contains(err.Error(), "SHA-256") {
			t.Errorf("standardised %v: fit-data.csv swapped for another of the same shape: %v", f.standardized(), err)
		}
		if err := os.WriteFile(dataPath, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	fitPath := filepath.Join(dir, FitFile)
	good, err := os.ReadFile(fitPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		change func(m map[string]any)
	}{
		{"negative jitter", func(m map[string]any) { m["jitter"] = -1 }},
		{"a draw beyond exp's range", func(m map[string]any) { m["draws_u"].([]any)[0].([]any)[0].([]any)[0] = 1e300 }},
		{"a standardisation SD of 0", func(m map[string]any) { m["standardization"].(map[string]any)["y_sd"] = 0 }},
		{"too few standardisation SDs", func(m map[string]any) { m["standardization"].(map[string]any)["x_sd"] = []any{1} }},
		{"an input name too many", func(m map[string]any) { m["inputs"] = append(m["inputs"].([]any), "extra") }},
		{"an empty chain", func(m map[string]any) { m["draws_u"] = append(m["draws_u"].([]any), []any{}) }},
		{"a checksum that is not one", func(m map[string]any) { m["data_sha256"] = "abc" }},
		{"a negative prior scale", func(m map[string]any) { m["prior"].(map[string]any)["SignalRate"] = -1 }},
	} {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		c.change(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fitPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := LoadGPFit(dir, "gonum")
		if err == nil {
			f.Close()
		}
		if !errors.Is(err, ErrIncompleteFit) {
			t.Errorf("%s: error %v, want one wrapping ErrIncompleteFit", c.name, err)
		}
	}
}

// FuzzLoadGPFit: LoadGPFit never panics on any fit.json beside a valid
// fit-data.csv, and what it accepts has draws of D+2 finite values.
func FuzzLoadGPFit(f *testing.F) {
	data, _, err := gp.Synthetic(8, 2, 3, gp.Prior{})
	if err != nil {
		f.Fatal(err)
	}
	seedDir := f.TempDir()
	fit := &GPFit{Data: data, Backend: "gonum", Draws: [][][]float64{{{0, 0.1, 0.2, -0.3}, {0.1, 0, 0, 0}}}}
	if err := fit.SaveFlags(seedDir, map[string]any{"seed": 1}); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(seedDir, FitFile))
	if err != nil {
		f.Fatal(err)
	}
	csv, err := os.ReadFile(filepath.Join(seedDir, FitDataFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(strings.Replace(string(good), `"jitter": 0`, `"jitter": -1`, 1)))
	f.Add([]byte(`{"format":"subtemper-gp-fit","version":1,"data_file":"fit-data.csv","n":8,"d":2,"draws_u":[[[0,0,0,0]]]}`))
	f.Add([]byte(`{}`))
	// One folder for every input (fuzz inputs run one at a time per
	// process): fit-data.csv written once, fit.json rewritten each time.
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FitDataFile), csv, 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, FitFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		fit, err := LoadGPFit(dir, "gonum")
		if err != nil {
			return
		}
		defer fit.Close()
		for _, ch := range fit.Draws {
			for _, u := range ch {
				if len(u) != fit.Data.D+2 {
					t.Fatalf("draw of %d values for D = %d", len(u), fit.Data.D)
				}
				for _, v := range u {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("non-finite draw %v accepted", v)
					}
				}
			}
		}
	})
}
