// Package memlimit estimates the memory that a run will need, from
// per-size formulas measured against peak resident memory, and compares
// it with the memory available (the cgroup's limit or the kernel's
// MemAvailable, whichever is smaller), so that a run too large for the
// machine is refused before anything large is allocated rather than
// killed out of memory hours later.
//
// The formulas, in bytes, for C chains (each with its own copy of the
// model's workspaces, plus the model the chains are cloned from):
//
//	base        32 MiB (runtime, binary, small tables)
//	GP          8·(C+1)·(2N² + N·D + 5N·ld + 9N) + 8N² + 24·N·(D+1)
//	            (two N×N kernel workspaces, X, the gradient's row blocks of
//	            width ld = (D+4) rounded down to a multiple of 4, vectors;
//	            the synthetic generator's N×N factor; the data as read and
//	            standardised). With the cuda backend the workspaces live on
//	            the device: only the data are counted.
//	MVN         8·(4D² + (C+1)·N·(2D + L + 6)) + 16·N·D
//	            (Σ, its factor and inverse; per handle the whitened data, a
//	            gathered copy and N×(L+1) batch products; the data)
//	ladder      C·(L+1)·4 KiB, and C·12·(L+1)² more for spt (per-level state
//	            and statistics; spt's grows with the square of the levels)
//	draws       C·K·(192 + 50·P), and 16·C·I for the iterations
//	            (K kept draws of P parameters per chain, held in the sampling
//	            space and in natural units, one slice each, the summary's
//	            per-variable copies, with the garbage collector's headroom;
//	            I iterations' timings)
//	predictions 24·S·N*  (S draws × N* test points: mean, variance, draw)
//
// The draws' figure was fitted to the peak RSS of runs with 1 to 3 chains,
// 1 to 12 parameters and 3·10⁵ to 10⁶ draws each (within 8%; see
// TestDrawsFormula's comment for the commands).
package memlimit

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Base is the memory of a small run.
const Base = 32 << 20

// GP is the memory of C chains of the GP model on N observations of D
// inputs (C = 0: the model alone, as eval uses it); synthetic adds the
// generator's N×N factor; device reports a GPU backend, whose workspaces
// are not in host memory.
func GP(n, d, chains int, synthetic, device bool) float64 {
	N, D, C := float64(n), float64(d), float64(chains)
	ld := float64((d + 4) &^ 3)
	b := 24 * N * (D + 1)
	if synthetic {
		b += 8 * N * N
	}
	if device {
		return b
	}
	return b + 8*(C+1)*(2*N*N+N*D+5*N*ld+9*N)
}

// MVN is the memory of C chains of the MVN model on N observations of
// dimension D with L levels above the target.
func MVN(n, d, chains, levels int) float64 {
	N, D, C, L := float64(n), float64(d), float64(chains), float64(levels)
	return 8*(4*D*D+(C+1)*N*(2*D+L+6)) + 16*N*D
}

// Ladder is the memory of C chains' per-level state for L levels above the
// target; spt reports the subsampled PT driver.
func Ladder(levels, chains int, spt bool) float64 {
	L, C := float64(levels)+1, float64(chains)
	b := C * L * 4096
	if spt {
		b += C * 12 * L * L
	}
	return b
}

// Draws is the memory of C chains keeping K draws of P parameters over I
// iterations each: Kept plus Iterations.
func Draws(chains, kept, params, iters int) float64 {
	return Kept(chains, kept, params) + Iterations(chains, float64(iters))
}

// Kept is the memory of C chains' K kept draws of P parameters.
func Kept(chains, kept, params int) float64 {
	C, K, P := float64(chains), float64(kept), float64(params)
	return C * K * (192 + 50*P)
}

// Iterations is the memory of C chains' per-iteration records (timings)
// over I iterations each (a float, so that warm-up + draws × thin cannot
// overflow).
func Iterations(chains int, iters float64) float64 { return 16 * float64(chains) * iters }

// Predictions is the memory of predictions from S draws at N* points.
func Predictions(s, nstar int) float64 { return 24 * float64(s) * float64(nstar) }

// Item is one part of an estimate.
type Item struct {
	What  string  // what it is, e.g. "the GP model (--n 200000)"
	Bytes float64 // its memory
	Fix   string  // what to change to shrink it
}

// Available returns the memory this process may use, in bytes, and where
// the figure comes from; 0 when it cannot be told.
func Available() (int64, string) {
	var best int64
	var src string
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 {
			best, src = v, "the cgroup limit (/sys/fs/cgroup/memory.max)"
			if c, err := os.ReadFile("/sys/fs/cgroup/memory.current"); err == nil {
				if u, err := strconv.ParseInt(strings.TrimSpace(string(c)), 10, 64); err == nil && u < v {
					best = v - u
				}
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
				var kb int64
				if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil && (best == 0 || kb<<10 < best) {
					best, src = kb<<10, "MemAvailable in /proc/meminfo"
				}
			}
		}
	}
	return best, src
}

// ParseSize parses a size such as 512MiB, 8GiB, 2G, 1.5GB or 1000000 (bytes);
// k, M, G, T are powers of 1024 whether or not an i follows.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "i")
	mult := 1.0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || !(v > 0) || v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q: want a positive number of bytes with an optional unit (k, M, G, T, as in 8G or 512MiB)", s)
	}
	return int64(v * mult), nil
}

// Format formats a byte count in bytes, KiB, MiB, GiB or TiB.
func Format(b float64) string {
	switch {
	case b < 1<<10:
		return fmt.Sprintf("%.0f bytes", b)
	case b < 1<<20:
		return fmt.Sprintf("%.0f KiB", b/(1<<10))
	case b < 1<<30:
		return fmt.Sprintf("%.0f MiB", b/(1<<20))
	case b < 1<<40:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	}
	return fmt.Sprintf("%.1f TiB", b/(1<<40))
}

// ErrTooLarge is wrapped by Check's error.
var ErrTooLarge = errors.New("not enough memory")

// Check returns nil when Base and the items fit in limit bytes (limit ≤ 0:
// unknown, nothing is checked), else an error wrapping ErrTooLarge that
// says how much is needed, for what, against what, and what to change.
// source says where limit comes from.
func Check(items []Item, limit int64, source string) error {
	total := float64(Base)
	for _, it := range items {
		total += it.Bytes
	}
	if limit <= 0 || total <= float64(limit) {
		return nil
	}
	var parts, fixes []string
	if Base >= 0.05*total {
		parts = append(parts, fmt.Sprintf("the program itself %s", Format(Base)))
	}
	for _, it := range items {
		if it.Bytes >= 0.05*total {
			parts = append(parts, fmt.Sprintf("%s %s", it.What, Format(it.Bytes)))
			if it.Fix != "" {
				fixes = append(fixes, it.Fix)
			}
		}
	}
	fix := "set --max-memory if the estimate is wrong"
	if len(fixes) == 0 || Base > limit {
		// The program itself does not fit, or nothing else is worth
		// shrinking: the allowance is what is too small.
		fix = fmt.Sprintf("set --max-memory to at least %s", Format(total))
	} else {
		fix = strings.Join(fixes, "; ") + ", or " + fix
	}
	return fmt.Errorf("%w: this run needs about %s (%s), more than the %s available (%s); %s",
		ErrTooLarge, Format(total), strings.Join(parts, ", "), Format(float64(limit)), source, fix)
}
