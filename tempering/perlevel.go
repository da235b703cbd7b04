package tempering

import "fmt"

// PerLevel runs one kernel at the target level (β = 1, level 0) and another
// at the levels above it. The hotter levels only have to carry states
// between the target and the hottest level, so a cheap kernel there — MH,
// which needs no gradient — makes tempering cost little more than the
// target level's kernel alone, without touching the target level's
// transitions. Each level's kernel leaves its level's density invariant,
// so every driver stays exact. DefaultKernel is a PerLevel.
type PerLevel struct {
	// Target is the kernel of level 0; it must be set.
	Target Kernel
	// Hot is the kernel of the levels above the target. Nil means Target.
	Hot Kernel
}

var _ Kernel = PerLevel{}

func (k PerLevel) hot() Kernel {
	if k.Hot == nil {
		return k.Target
	}
	return k.Hot
}

// NeedsGrad reports whether either kernel uses gradients.
func (k PerLevel) NeedsGrad() bool {
	return k.Target != nil && (k.Target.NeedsGrad() || k.hot().NeedsGrad())
}

// NewLevel returns Target's transition at β = 1 and Hot's below.
func (k PerLevel) NewLevel(dim int, beta float64) (LevelKernel, error) {
	if k.Target == nil {
		return nil, fmt.Errorf("tempering: PerLevel needs a Target kernel")
	}
	if beta == 1 {
		return k.Target.NewLevel(dim, beta)
	}
	return k.hot().NewLevel(dim, beta)
}
