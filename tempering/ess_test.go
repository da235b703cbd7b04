package tempering

import "math"

// batchMeans returns the mean of the pooled series (one slice per chain)
// and its Monte-Carlo standard error and effective sample size, from
// non-overlapping batch means within each chain (⌊√n⌋ batches of ⌊n/a⌋
// draws; a remainder at the start of a chain is dropped).
func batchMeans(series [][]float64) (mean, mcse, ess float64) {
	total, sum := 0, 0.0
	for _, s := range series {
		total += len(s)
		for _, v := range s {
			sum += v
		}
	}
	mean = sum / float64(total)
	varMean, sq := 0.0, 0.0
	for _, s := range series {
		n := len(s)
		for _, v := range s {
			sq += (v - mean) * (v - mean)
		}
		a := int(math.Sqrt(float64(n)))
		B := n / a
		s = s[n-a*B:]
		// Long-run variance of this chain: B·Var(batch means) about the
		// pooled mean.
		lr := 0.0
		for k := range a {
			bm := 0.0
			for _, v := range s[k*B : (k+1)*B] {
				bm += v
			}
			bm /= float64(B)
			lr += (bm - mean) * (bm - mean)
		}
		lr *= float64(B) / float64(a-1)
		varMean += float64(n) * lr
	}
	varMean /= float64(total) * float64(total)
	mcse = math.Sqrt(varMean)
	v := sq / float64(total-1)
	ess = v / varMean
	return mean, mcse, ess
}
