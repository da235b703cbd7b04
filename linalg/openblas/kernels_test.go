//go:build openblas

package openblas

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/subtemper/subtemper/linalg"
)

// forEachPath runs f at each level of the C loops the CPU has: AVX-512
// (the cross-kernel and sums of squares only; the other kernels run their
// AVX2 loops there), AVX2 with FMA, and the baseline.
func forEachPath(t *testing.T, f func(t *testing.T)) {
	had := setMaxISA(isaAVX512)
	defer setMaxISA(isaAVX512)
	for _, p := range []struct {
		name string
		isa  int
	}{{"avx512", isaAVX512}, {"avx2", isaAVX2}, {"base", isaBase}} {
		if p.isa > had {
			t.Logf("the CPU lacks %s: those loops are not run", p.name)
			continue
		}
		setMaxISA(p.isa)
		t.Run(p.name, f)
	}
}

// TestSERows: the C kernel rows agree with sf2·math.Exp(−½·max(0, d2)) to
// 4 ulp over squared distances from 0 to beyond underflow, negative
// rounding residue included; the diagonal and the Kf copy are set, and
// rows outside lo..hi are left alone.
func TestSERows(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		const m = 203
		rng := rand.New(rand.NewPCG(1, 2))
		sq := make([]float64, m)
		for i := range sq {
			sq[i] = 800 * rng.Float64()
		}
		a := make([]float64, m*m)
		for i := range m {
			for j := 0; j < i; j++ {
				// d2 = sq_i + sq_j − 2g: spread over [−1e-12, 1600].
				var d2 float64
				switch rng.IntN(4) {
				case 0:
					d2 = -1e-12 * rng.Float64()
				case 1:
					d2 = rng.Float64()
				case 2:
					d2 = 50 * rng.Float64()
				default:
					d2 = 1600 * rng.Float64()
				}
				a[i*m+j] = (sq[i] + sq[j] - d2) / 2
			}
		}
		orig := append([]float64(nil), a...)
		const sf2, diag = 1.7, 2.5
		lo, hi := 17, 190
		for _, withKf := range []bool{true, false} {
			copy(a, orig)
			var kf []float64
			if withKf {
				kf = make([]float64, m*m)
				for i := range kf {
					kf[i] = -1
				}
			}
			Kernels{}.SERows(a, kf, sq, m, lo, hi, sf2, diag)
			for i := range m {
				for j := 0; j <= i; j++ {
					got := a[i*m+j]
					if i < lo || i >= hi {
						if got != orig[i*m+j] || (kf != nil && kf[i*m+j] != -1) {
							t.Fatalf("row %d outside %d..%d was written", i, lo, hi)
						}
						continue
					}
					want := diag
					if j < i {
						d2 := sq[i] + sq[j] - 2*orig[i*m+j]
						want = sf2 * math.Exp(-0.5*max(d2, 0))
						if d2 > 1416 {
							// e^(−d2/2) subnormal or 0: flushed to 0.
							if got != 0 && math.Abs(got-want) > 1e-300 {
								t.Fatalf("a[%d,%d] = %g for d2 = %g, want 0 or %g", i, j, got, d2, want)
							}
							continue
						}
					}
					if ulps := math.Abs(got-want) / (math.Nextafter(want, math.Inf(1)) - want); !(ulps <= 4) {
						t.Fatalf("a[%d,%d] = %.17g, want %.17g (%g ulp)", i, j, got, want, ulps)
					}
					if kf != nil {
						kw := got
						if j == i {
							kw = sf2
						}
						if kf[i*m+j] != kw {
							t.Fatalf("kf[%d,%d] = %g, want %g", i, j, kf[i*m+j], kw)
						}
					}
				}
			}
		}
	})
}

// TestSECross: the C cross-kernel agrees with sf2·math.Exp(−½·d2), d2 the
// squared distance summed in Go, to 4 ulp plus the rounding of d2 where it
// is not subnormal, at
// widths that leave remainders after the vector loops, for test inputs at,
// near and far from the observations; and ColSumSquares agrees with a Go
// sum to rounding.
func TestSECross(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, n := range []int{1, 7, 16, 17, 33, 442} {
			for _, d := range []int{1, 3, 10} {
				const b, sf2 = 5, 1.7
				zT := make([]float64, d*n)
				for i := range zT {
					zT[i] = rng.NormFloat64()
				}
				zt := make([]float64, b*d)
				for k := range b {
					for j := range d {
						switch k {
						case 0: // at observation 0
							zt[k*d+j] = zT[j*n]
						case 1: // near it
							zt[k*d+j] = zT[j*n] + 1e-9*rng.NormFloat64()
						case 4: // far: kernel values 0 or subnormal
							zt[k*d+j] = 60 + rng.NormFloat64()
						default:
							zt[k*d+j] = 2 * rng.NormFloat64()
						}
					}
				}
				c := make([]float64, b*n)
				Kernels{}.SECross(c, zt, zT, b, n, d, sf2)
				for k := range b {
					for i := range n {
						var d2 float64
						for j := range d {
							r := zt[k*d+j] - zT[j*n+i]
							d2 += r * r
						}
						got, want := c[k*n+i], sf2*math.Exp(-0.5*d2)
						if d2 > 1416 {
							if got != 0 && math.Abs(got-want) > 1e-300 {
								t.Fatalf("n=%d d=%d: c[%d,%d] = %g for d2 = %g, want 0 or %g", n, d, k, i, got, d2, want)
							}
							continue
						}
						// The two sums of squares may round differently (C may
						// fuse the multiply-adds), by up to d·ε·d2, which
						// the exponential scales by d2/2.
						if ulps := math.Abs(got-want) / (math.Nextafter(want, math.Inf(1)) - want); !(ulps <= 4+float64(d)*d2) {
							t.Fatalf("n=%d d=%d: c[%d,%d] = %.17g, want %.17g (%g ulp for d2 = %g)", n, d, k, i, got, want, ulps, d2)
						}
					}
				}
				if c[0] != sf2 {
					t.Errorf("n=%d d=%d: kernel at an observation %v, want σf² = %v", n, d, c[0], sf2)
				}
				ss := make([]float64, n)
				Kernels{}.ColSumSquares(ss, zT, d, n)
				for col := range n {
					var want float64
					for r := range d {
						want += zT[r*n+col] * zT[r*n+col]
					}
					if math.Abs(ss[col]-want) > float64(d)*0x1p-52*want {
						t.Errorf("n=%d d=%d: sum of squares of column %d = %.17g, want %.17g", n, d, col, ss[col], want)
					}
				}
			}
		}
	})
}

// TestGradRows: the fused pass, split into parts as the GP evaluation
// splits it, gives P·z for the full symmetric P to rounding.
func TestGradRows(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		for _, m := range []int{1, 2, 3, 4, 37, 300} {
			for _, ld := range []int{4, 8, 12, 20, 28} {
				t.Run("m="+strconv.Itoa(m)+"/ld="+strconv.Itoa(ld), func(t *testing.T) {
					a := make([]float64, m*m)
					kf := make([]float64, m*m)
					for i := range a {
						a[i] = rng.NormFloat64()
						kf[i] = rng.Float64()
					}
					alpha := make([]float64, m)
					for i := range alpha {
						alpha[i] = rng.NormFloat64()
					}
					z := make([]float64, m*ld)
					for i := range z {
						z[i] = rng.NormFloat64()
					}
					P := func(i, j int) float64 {
						if j > i {
							i, j = j, i
						}
						return (alpha[i]*alpha[j] - a[i*m+j]) * kf[i*m+j]
					}
					want := make([]float64, m*ld)
					scale := make([]float64, m*ld)
					for i := range m {
						for j := range m {
							for c := range ld {
								want[i*ld+c] += P(i, j) * z[j*ld+c]
								scale[i*ld+c] += math.Abs(P(i, j) * z[j*ld+c])
							}
						}
					}
					got := make([]float64, m*ld)
					part := make([]float64, m*ld)
					w := make([]float64, m)
					bounds := []int{0, m / 3, m / 3, m/3 + 1, m}
					for k := 0; k+1 < len(bounds); k++ {
						clear(part)
						Kernels{}.GradRows(a, kf, alpha, z, part, w, m, ld, bounds[k], bounds[k+1])
						for i := range got {
							got[i] += part[i]
						}
					}
					for i := range got {
						if d := math.Abs(got[i] - want[i]); !(d <= 1e-14*scale[i]) {
							t.Fatalf("q[%d,%d] = %.17g, want %.17g", i/ld, i%ld, got[i], want[i])
						}
					}
				})
			}
		}
	})
}

// TestKernelsPanicOnBadArguments: short buffers and an ld that is not a
// multiple of 4 panic instead of reaching C.
func TestKernelsPanicOnBadArguments(t *testing.T) {
	for name, f := range map[string]func(){
		"se short a":   func() { Kernels{}.SERows(make([]float64, 3), nil, make([]float64, 2), 2, 0, 2, 1, 1) },
		"se bad rows":  func() { Kernels{}.SERows(make([]float64, 4), nil, make([]float64, 2), 2, 0, 3, 1, 1) },
		"grad ld":      func() { b := make([]float64, 64); Kernels{}.GradRows(b, b, b, b, b, b, 2, 6, 0, 2) },
		"grad short q": func() { b := make([]float64, 8); Kernels{}.GradRows(b, b, b, b, b[:7], b, 2, 4, 0, 2) },
		"grad short w": func() { b := make([]float64, 8); Kernels{}.GradRows(b, b, b, b, b, b[:1], 2, 4, 0, 2) },
		"cross short zT": func() {
			b := make([]float64, 12)
			Kernels{}.SECross(b, b, b[:5], 2, 3, 2, 1)
		},
		"sum sq short x": func() { b := make([]float64, 5); Kernels{}.ColSumSquares(b, b, 2, 3) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// BenchmarkSECross times the prediction's cross-kernel at N = 442, D = 10
// against a block of 593 test inputs (Predict's block at that N) at each
// level of the C loops the CPU has, in ns per kernel entry.
func BenchmarkSECross(b *testing.B) {
	const n, bt, d = 442, 593, 10
	rng := rand.New(rand.NewPCG(7, 8))
	zo, ztT := make([]float64, n*d), make([]float64, d*bt)
	for i := range zo {
		zo[i] = 0.5 * rng.NormFloat64()
	}
	for i := range ztT {
		ztT[i] = 0.5 * rng.NormFloat64()
	}
	c := make([]float64, n*bt)
	had := setMaxISA(isaAVX512)
	defer setMaxISA(isaAVX512)
	for _, p := range []struct {
		name string
		isa  int
	}{{"avx512", isaAVX512}, {"avx2", isaAVX2}, {"base", isaBase}} {
		if p.isa > had {
			continue
		}
		b.Run(p.name, func(b *testing.B) {
			setMaxISA(p.isa)
			for range b.N {
				Kernels{}.SECross(c, zo, ztT, n, bt, d, 1)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*bt*n), "ns/entry")
		})
	}
}

// BenchmarkKernelRows times the kernel rows of all 1024 observations
// (D = 18) for each family: SERows from a Gram matrix, MaternRows from the
// scaled inputs (the squared distances included).
func BenchmarkKernelRows(b *testing.B) {
	const m, d = 1024, 18
	rng := rand.New(rand.NewPCG(1, 1))
	zt := make([]float64, d*m)
	for i := range zt {
		zt[i] = rng.NormFloat64() / 4
	}
	a, w, sq := make([]float64, m*m), make([]float64, m*m), make([]float64, m)
	for _, k := range linalg.Kernels() {
		b.Run(k.String(), func(b *testing.B) {
			for b.Loop() {
				if k == linalg.KernelSE {
					Kernels{}.SERows(a, w, sq, m, 0, m, 1, 1.1)
				} else {
					Kernels{}.MaternRows(k, a, w, zt, m, d, 0, m, 1, 1.1)
				}
			}
		})
	}
}
