//go:build !linux

package cputime

import "time"

// Process returns ok = false: the process's CPU time is read on Linux
// only.
func Process() (time.Duration, bool) { return 0, false }
