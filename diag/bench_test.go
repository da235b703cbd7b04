package diag

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// normalChains returns c chains of n iid standard normal draws.
func normalChains(rng *rand.Rand, c, n int) [][]float64 {
	return full(c, n, func(_, i int) float64 { return rng.NormFloat64() })
}

func BenchmarkSummarizeChains(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run("draws="+strconv.Itoa(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			x := normalChains(rng, 3, n)
			for _, ch := range x {
				for i := 1; i < len(ch); i++ {
					ch[i] = 0.9*ch[i-1] + math.Sqrt(0.19)*ch[i]
				}
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := SummarizeChains("x", x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSummarize is the load the CLI sees: 20 variables of 3 chains of
// 100,000 draws.
func BenchmarkSummarize(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	d := &Draws{}
	for v := range 20 {
		d.Names = append(d.Names, "v"+strconv.Itoa(v))
		d.Values = append(d.Values, normalChains(rng, 3, 100000))
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Summarize(d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkESSBulk(b *testing.B) {
	for _, n := range []int{1000, 100000, 100003} {
		b.Run("draws="+strconv.Itoa(n), func(b *testing.B) {
			x := normalChains(rand.New(rand.NewPCG(1, 1)), 3, n)
			b.ResetTimer()
			for b.Loop() {
				ESSBulk(x)
			}
		})
	}
}
