package main

import (
	"strings"
	"testing"

	"github.com/subtemper/subtemper/diag"
)

// TestEBFMIWarning: a chain whose E-BFMI is below Stan's 0.3 is named in
// a warning that points at the energy figure; the printed line gives
// every chain's value and the threshold. Chains at or above it, and runs
// without energies (mh at the target level), get no warning.
func TestEBFMIWarning(t *testing.T) {
	j := &job{command: "mvn", data: map[string]any{}}
	s := &runSummary{Inner: "nuts", Converged: true, EBFMI: []num{0.95, 0.21, diag.EBFMIMin}}
	s.Draws.Summarized = 100
	w := strings.Join(runWarnings(j, s), "\n")
	if !strings.Contains(w, "E-BFMI below 0.3 in chain (2)") || !strings.Contains(w, "energy figure") {
		t.Errorf("warnings lack chain 2's E-BFMI:\n%s", w)
	}
	if line := ebfmiLine(s); !strings.Contains(line, "0.950, 0.210, 0.300") || !strings.Contains(line, "below 0.3") {
		t.Errorf("printed line %q", line)
	}
	for _, b := range [][]num{{0.95, 0.5}, nil} {
		s.EBFMI = b
		if w := strings.Join(runWarnings(j, s), "\n"); strings.Contains(w, "E-BFMI") {
			t.Errorf("E-BFMI %v: warned:\n%s", b, w)
		}
	}
}
