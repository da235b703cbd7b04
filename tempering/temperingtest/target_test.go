package temperingtest_test

import (
	"strings"
	"testing"

	"github.com/subtemper/subtemper/tempering/temperingtest"
)

// TestTargetKitPassesToy: the test-only target without a flaw passes, so
// that the failures below come from the flaws.
func TestTargetKitPassesToy(t *testing.T) {
	temperingtest.TargetTest(t, newToy(30, ""), temperingtest.TargetOptions{})
}

// TestTargetKitCatchesFlaws plants one defect at a time in the toy target
// and checks that CheckTarget reports it, with a message that names what
// failed.
func TestTargetKitCatchesFlaws(t *testing.T) {
	for _, tc := range []struct{ flaw, want string }{
		{"grad-prior", "LogPrior's gradient"},
		{"grad-lik", "LogLik's gradient"},
		{"grad-ignores-subset", "LogLik's gradient on a subset"},
		{"cache-by-u", "fresh clone"},
		{"nil-drops-last", "listed as a subset"},
		{"order-matters", "in reverse order"},
		{"shared-layout", "after the clone was used"},
		{"prefix-off-by-one", "LogLikPrefixes"},
		{"resume-any-point", "LogLikResume after another point"},
		{"reorder-breaks", "Reorder: after reordering"},
		{"panic", "panicked"},
	} {
		err := temperingtest.CheckTarget(newToy(30, tc.flaw), temperingtest.TargetOptions{})
		if err == nil {
			t.Errorf("flaw %q: the check passed a wrong target", tc.flaw)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) {
			t.Errorf("flaw %q: caught, but no message mentions %q:\n%s", tc.flaw, tc.want, msg)
		}
		if i := strings.IndexByte(msg, '\n'); i > 0 {
			msg = msg[:i] + " …"
		}
		t.Logf("flaw %q caught: %s", tc.flaw, msg)
	}
}
