package mvn

import (
	"testing"

	"github.com/subtemper/subtemper/linalg"
	_ "github.com/subtemper/subtemper/linalg/openblas" // registers "openblas" under -tags openblas
)

// forEachBackend runs f as a subtest on every compiled-in backend.
func forEachBackend(t *testing.T, f func(t *testing.T, be linalg.Backend)) {
	t.Helper()
	for _, be := range linalg.Backends() {
		t.Run(be.Name(), func(t *testing.T) { f(t, be) })
	}
}
