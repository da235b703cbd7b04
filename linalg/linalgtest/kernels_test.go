package linalgtest

import (
	"strings"
	"testing"

	"github.com/subtemper/subtemper/linalg"
)

// wrongKernelBackend is gonum's backend as a linalg.KernelBackend whose
// Matérn handles are spoilt by flaw.
type wrongKernelBackend struct {
	linalg.Backend
	flaw string
}

func (w wrongKernelBackend) Name() string { return "wrong-" + w.flaw }

func (w wrongKernelBackend) NewGPKernel(k linalg.Kernel, x []float64, n, d int, y []float64) (linalg.GP, error) {
	if w.flaw == "matern-family" && k == linalg.KernelMatern52 {
		k = linalg.KernelMatern32 // the wrong ν
	}
	g, err := linalg.NewGPKernel(w.Backend, k, x, n, d, y)
	if err != nil {
		return nil, err
	}
	return &wrongMatern{GP: g, flaw: w.flaw}, nil
}

type wrongMatern struct {
	linalg.GP
	flaw string
}

func (g *wrongMatern) LogLik(subset []int, u, grad []float64) (float64, error) {
	ll, err := g.GP.LogLik(subset, u, grad)
	if err == nil && grad != nil {
		d := len(u) - 2
		switch g.flaw {
		case "matern-grad-sf": // ∂/∂log σf off by 1e-8 relative
			grad[d] *= 1 + 1e-8
		case "matern-grad-length": // one length-scale component off by 1e-8 relative
			grad[0] *= 1 + 1e-8
		}
	}
	return ll, err
}

func (g *wrongMatern) Kernel(dst []float64, subset []int, u []float64) error {
	err := g.GP.Kernel(dst, subset, u)
	if g.flaw == "matern-kernel" && len(dst) > 1 {
		dst[1] *= 1 + 1e-9
	}
	return err
}

// TestKernelChecksCatchWrongBackends: the reference and Matérn checks
// pass gonum's backend behind the wrapper without a flaw, and fail each
// flaw: the wrong ν, a kernel entry off by 1e-9, gradient components off
// by 1e-8.
func TestKernelChecksCatchWrongBackends(t *testing.T) {
	nolog := func(string, ...any) {}
	if err := checkKernelReference(wrongKernelBackend{linalg.Default(), "none"}, nolog); err != nil {
		t.Fatalf("no flaw: reference check: %v", err)
	}
	if err := checkMatern(wrongKernelBackend{linalg.Default(), "none"}, linalg.KernelMatern52); err != nil {
		t.Fatalf("no flaw: Matérn check: %v", err)
	}
	for _, flaw := range []string{"matern-family", "matern-kernel", "matern-grad-sf", "matern-grad-length"} {
		b := wrongKernelBackend{linalg.Default(), flaw}
		for name, check := range map[string]func() error{
			"reference": func() error { return checkKernelReference(b, nolog) },
			"matern":    func() error { return checkMatern(b, linalg.KernelMatern52) },
		} {
			err := check()
			if err == nil {
				t.Errorf("flaw %q: the %s check passed a wrong backend", flaw, name)
				continue
			}
			msg := err.Error()
			if len(msg) > 160 {
				msg = msg[:160] + "…"
			}
			t.Logf("flaw %q caught by the %s check: %s", flaw, name, strings.ReplaceAll(msg, "\n", " | "))
		}
	}
	// A backend without KernelBackend refuses the families.
	if _, err := linalg.NewGPKernel(wrongBackend{linalg.Default(), "none"}, linalg.KernelMatern12, []float64{0, 1}, 2, 1, []float64{0, 1}); err == nil || !strings.Contains(err.Error(), "matern12") {
		t.Errorf("backend without KernelBackend: %v", err)
	}
}
