//go:build linux

package tempering

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// threadClock measures the CPU time of the calling goroutine, which it
// locks to its OS thread until stop: user + system time of that thread.
type threadClock struct {
	start time.Duration
	ok    bool
}

func startThreadClock() threadClock {
	runtime.LockOSThread()
	t, ok := threadCPU()
	return threadClock{start: t, ok: ok}
}

// stop returns the thread's CPU time since startThreadClock (ok false if
// the kernel would not tell) and unlocks the thread.
func (c threadClock) stop() (time.Duration, bool) {
	defer runtime.UnlockOSThread()
	t, ok := threadCPU()
	if !ok || !c.ok {
		return 0, false
	}
	return t - c.start, true
}

// ThreadCPU returns the CPU time (user + system) the calling OS thread
// has used so far, and whether it could be read (Linux only). Lock the
// goroutine to its thread (runtime.LockOSThread) across the interval
// measured, as Run's chains do for Result.ChainCPU.
func ThreadCPU() (time.Duration, bool) { return threadCPU() }

// threadCPU reads CLOCK_THREAD_CPUTIME_ID, which the kernel brings up to
// date when asked (getrusage(RUSAGE_THREAD) moves in steps of tens of
// microseconds, too coarse to time one evaluation).
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
