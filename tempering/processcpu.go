package tempering

import (
	"time"

	"github.com/subtemper/subtemper/internal/cputime"
)

// ProcessCPU returns the CPU time (user + system) the process has used so
// far, all threads together, and whether it could be read (Linux only).
func ProcessCPU() (time.Duration, bool) { return cputime.Process() }
