package tempering

// A chain's bookkeeping, kept apart from the drivers' arithmetic: the
// drivers say what happened (a transition, a swap offered and its
// outcome, a tempered transition's outcome, an iteration's end), and these
// methods count it in the run's counters and, after warm-up, in the
// sampling phase's, feed the ladder's adaptation (during its rounds) and
// the evidence's record (after warm-up). None of them draws a random
// number or changes a state.

// ttOutcome is how a tempered transition ended.
type ttOutcome int

const (
	ttRejected ttOutcome = iota
	ttAccepted
	ttAborted // an evaluation on the path gave −∞: rejected at once
)

// countTransition counts a transition of level st with info after
// warm-up (Density.record counts it in the run's counters).
func (c *Chain) countTransition(st *LevelStats, info StepInfo) {
	if c.warm {
		return
	}
	st.SamplingTransitions++
	st.SamplingAcceptProb += info.AcceptProb
	if info.Divergent {
		st.SamplingDivergent++
	}
}

// observeSwap records the swap offered between levels m−1 and m with log
// acceptance ratio logA, whose two terms for the evidence are fwd =
// log h_{m−1}(θ_m) − log h_m(θ_m) and bwd = log h_m(θ_{m−1}) −
// log h_{m−1}(θ_{m−1}), before its outcome is drawn.
func (c *Chain) observeSwap(m int, logA, fwd, bwd float64) {
	c.stats.SwapProposed[m-1]++
	if c.lad != nil && c.lad.active {
		c.lad.addSwap(m, logA)
	}
	if c.warm {
		return
	}
	if c.ev != nil {
		c.ev.fwd[m-1] = append(c.ev.fwd[m-1], fwd)
		c.ev.bwd[m-1] = append(c.ev.bwd[m-1], bwd)
		c.ev.it[m-1] = append(c.ev.it[m-1], int32(c.ev.n))
	}
	c.stats.Sampling.SwapProposed[m-1]++
}

// countSwapAccepted counts an accepted swap between levels m−1 and m.
func (c *Chain) countSwapAccepted(m int) {
	c.stats.SwapAccepted[m-1]++
	if !c.warm {
		c.stats.Sampling.SwapAccepted[m-1]++
	}
}

// afterSwaps records, after the swaps of a PT or SPT iteration, the
// hottest level's state for the evidence and the replicas' round trips:
// one is complete when the replica now at level 0 last visited the top.
func (c *Chain) afterSwaps() {
	M := len(c.states) - 1
	if c.ev != nil && !c.warm {
		c.ev.addHot(c.states[M].U)
	}
	if r := c.states[0].Replica; c.phase[r] == rtTop {
		c.stats.RoundTrips++
		if !c.warm {
			c.stats.Sampling.RoundTrips++
		}
	}
	c.phase[c.states[0].Replica] = rtBottom
	if r := c.states[M].Replica; c.phase[r] == rtBottom {
		c.phase[r] = rtTop
	}
}

// countTT counts a tempered transition that ended with o; terms are its
// log ratio's terms t_m, for the ladder's adaptation when it was not
// aborted.
func (c *Chain) countTT(o ttOutcome, terms []float64) {
	c.stats.TTProposed++
	if !c.warm {
		c.stats.Sampling.TTProposed++
	}
	switch o {
	case ttAborted:
		c.stats.TTAborted++
		return
	case ttAccepted:
		c.stats.TTAccepted++
		if !c.warm {
			c.stats.Sampling.TTAccepted++
		}
	}
	if c.lad != nil && c.lad.active {
		c.lad.addTT(terms)
	}
}

// countReorder counts a reordering of the target's observations to the
// path's new subsets.
func (c *Chain) countReorder() { c.stats.Reorders++ }

// endIteration counts a completed iteration, in warm-up or after it, and
// ends a round of the ladder's adaptation when one is due.
func (c *Chain) endIteration() {
	c.iter++
	if !c.warm {
		c.stats.Iterations++
		return
	}
	c.stats.WarmupIterations++
	if c.lad != nil && c.lad.active && int(c.stats.WarmupIterations-c.lad.start) == c.lad.ends[c.lad.round] {
		c.endRound()
	}
}
