package diag

import "math"

// keyed is a draw's sort key and its position.
type keyed struct {
	key uint64
	pos uint32
}

// sortKey maps a non-NaN float64 to a uint64 with the same order, −0 and
// +0 to the same key.
func sortKey(v float64) uint64 {
	b := math.Float64bits(v + 0) // + 0 turns −0 into +0
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// argsort returns the positions of x (which must hold no NaN) in ascending
// order of value, ties in order of position, by an LSD radix sort on the
// order-preserving keys: O(n), where a comparison sort of the ranks was
// half the cost of the rank-normalized diagnostics.
func argsort(x []float64) []keyed {
	a := make([]keyed, len(x))
	for i, v := range x {
		a[i] = keyed{sortKey(v), uint32(i)}
	}
	b := make([]keyed, len(x))
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		count = [256]int{}
		for _, e := range a {
			count[byte(e.key>>shift)]++
		}
		if len(a) == 0 || count[byte(a[0].key>>shift)] == len(a) {
			continue // every key has this digit: the pass changes nothing
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, e := range a {
			d := byte(e.key >> shift)
			b[count[d]] = e
			count[d]++
		}
		a, b = b, a
	}
	return a
}
