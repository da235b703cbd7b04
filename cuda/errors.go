package cuda

import "errors"

// ErrNoDevice is wrapped by the errors of Available and of the backend's
// constructors when the CUDA driver finds no usable device (cuInit or
// cuDeviceGetCount fails, or there are no devices).
var ErrNoDevice = errors.New("cuda: no CUDA device present")

// ErrNotCompiled is returned by Available in a build without the cuda tag.
var ErrNotCompiled = errors.New("cuda: the CUDA backend is not compiled in (build with -tags cuda)")
