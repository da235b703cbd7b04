package linalg

// speedOrder lists the backends from the fastest: CUDA, then OpenBLAS,
// then the pure-Go gonum backend (which is always compiled in).
var speedOrder = []string{"cuda", "openblas", DefaultName}

// Availabler is implemented by backends that can be compiled in (and
// registered) yet unusable on this machine, such as the CUDA backend on a
// machine without a GPU: Available returns nil when the backend can be
// used, else an error saying why not.
type Availabler interface {
	Available() error
}

// FastestName returns the name of the fastest backend compiled in and
// usable: "cuda" if built with -tags cuda and a device is found, else
// "openblas" if built with -tags openblas, else "gonum". It is the CLI's
// default --backend.
func FastestName() string {
	for _, n := range speedOrder {
		b, err := Get(n)
		if err != nil {
			continue
		}
		if a, ok := b.(Availabler); ok && a.Available() != nil {
			continue
		}
		return n
	}
	return DefaultName
}

// Fastest returns the backend named by FastestName.
func Fastest() Backend {
	b, err := Get(FastestName())
	if err != nil {
		return Default()
	}
	return b
}
