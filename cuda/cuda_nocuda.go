//go:build !cuda

package cuda

// Compiled reports whether the package was built with the cuda tag.
const Compiled = false

// Available reports whether a CUDA device can be used. Without the cuda
// build tag it always returns ErrNotCompiled, and no backend is registered.
func Available() error { return ErrNotCompiled }

// DeviceName returns the name of the device in use; without the cuda build
// tag it always returns ErrNotCompiled.
func DeviceName() (string, error) { return "", ErrNotCompiled }

// MemInfo returns the device's free and total memory in bytes; without
// the cuda build tag it always returns ErrNotCompiled.
func MemInfo() (free, total int64, err error) { return 0, 0, ErrNotCompiled }
