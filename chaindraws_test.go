package subtemper

import "testing"

// TestChainDraws: LOO takes the same number of draws from each chain,
// evenly spaced within it, so that relative efficiencies across chains
// are defined.
func TestChainDraws(t *testing.T) {
	f := &GPFit{Draws: [][][]float64{make([][]float64, 10), make([][]float64, 12), nil, make([][]float64, 11)}}
	for c, ch := range f.Draws {
		for i := range ch {
			ch[i] = []float64{float64(100*c + i)}
		}
	}
	for _, tc := range []struct{ k, per int }{{9, 3}, {0, 10}, {2, 1}, {1000, 10}} {
		d, chains := f.chainDraws(tc.k)
		if chains != 3 || len(d) != 3*tc.per {
			t.Errorf("k = %d: %d draws from %d chains, want %d from 3", tc.k, len(d), chains, 3*tc.per)
			continue
		}
		for j, c := range []int{0, 1, 3} {
			for i := range tc.per {
				if got, want := d[j*tc.per+i][0], float64(100*c+i*len(f.Draws[c])/tc.per); got != want {
					t.Errorf("k = %d: draw %d of chain %d is %v, want %v", tc.k, i, c, got, want)
				}
			}
		}
	}
}
