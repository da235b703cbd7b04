package subtemper

import (
	"fmt"

	"github.com/subtemper/subtemper/cuda"
	"github.com/subtemper/subtemper/internal/memlimit"
	"github.com/subtemper/subtemper/model"
)

// CheckDeviceMemory returns an error, wrapping model.ErrOutOfMemory, that
// says what is needed and what is free when a GP fit of n observations in
// d inputs with the given number of chains cannot fit the memory of the
// GPU behind backend "cuda": it holds one copy of the model per chain and
// one for the fit, each of cuda.GPMemory(n, d) bytes (the n×n kernel
// matrix and workspaces). It returns nil for other backends, and where the
// device cannot be asked (the backend then reports why when it starts).
// The warm start's parallel evaluations need more copies at once, and run
// fewer at once where the memory runs out.
func CheckDeviceMemory(backend string, n, d, chains int) error {
	if backend != "cuda" {
		return nil
	}
	free, total, err := cuda.MemInfo()
	if err != nil {
		return nil
	}
	return deviceMemoryError(n, d, chains, cuda.GPMemory(n, d), free, total)
}

// deviceMemoryError is CheckDeviceMemory's verdict for copies of per bytes
// on a device with free of total bytes free.
func deviceMemoryError(n, d, chains int, per, free, total int64) error {
	need := per * int64(chains+1)
	if need <= free {
		return nil
	}
	return fmt.Errorf("a GP fit of N = %d observations in %d inputs with %d chains needs %s of GPU memory (%d copies of %s: the %d×%d kernel matrix and its workspaces, one per chain and one for the fit), but %s of the device's %s are free: %w",
		n, d, chains, memlimit.Format(float64(need)), chains+1, memlimit.Format(float64(per)), n, n, memlimit.Format(float64(free)), memlimit.Format(float64(total)), model.ErrOutOfMemory)
}
