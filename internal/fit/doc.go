// Package fit holds small numerical helpers shared by the benchmarks: the
// fit of a cost exponent α to timings, t(N) ≈ c·N^α (FitExponent), as in
// the paper's cost model where one likelihood evaluation on N observations
// costs ∝ N^α (α = 1 for the MVN model, 3 for the GP at large N).
package fit
