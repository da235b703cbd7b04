//go:build !linux

package tempering

import "time"

// threadClock: without a per-thread CPU clock, chains report no CPU time.
type threadClock struct{}

func startThreadClock() threadClock { return threadClock{} }

func (threadClock) stop() (time.Duration, bool) { return 0, false }

// ThreadCPU returns ok = false: a thread's CPU time is read on Linux only.
func ThreadCPU() (time.Duration, bool) { return 0, false }
