//go:build !openblas

package openblas

// Threads returns 0: OpenBLAS is not compiled in (build with -tags openblas).
func Threads() int { return 0 }

// SetThreads does nothing: OpenBLAS is not compiled in.
func SetThreads(n int) {}
