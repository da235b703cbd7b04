package tempering

// drawRecord keeps what Run records of level 0 with each draw besides
// the point: the Hamiltonian of the last level-0 transition (when level
// 0's kernel reports one) and the divergent level-0 transitions since the
// previous draw. Recording consumes no randomness.
type drawRecord struct {
	energy  []float64 // nil unless level 0's kernel is HMC or NUTS
	div     []int
	lastDiv int64
}

func newDrawRecord(ch *Chain, draws int) *drawRecord {
	r := &drawRecord{div: make([]int, draws)}
	if _, ok := ch.kern[0].(energyKernel); ok {
		r.energy = make([]float64, draws)
	}
	return r
}

// keep records draw n of ch.
func (r *drawRecord) keep(ch *Chain, n int) {
	if r.energy != nil {
		r.energy[n] = ch.energy
	}
	d := ch.stats.Levels[0].SamplingDivergent
	r.div[n] = int(d - r.lastDiv)
	r.lastDiv = d
}

// store puts the first n records of chain c into res.
func (r *drawRecord) store(res *Result, c, n int) {
	if r.energy != nil {
		res.Energy[c] = r.energy[:n]
	}
	res.Divergent[c] = r.div[:n]
}
