package subtemper

import "github.com/subtemper/subtemper/diag"

// ELPDDiff returns the difference Σ_i (a_i − b_i) of two fits' pointwise
// PSIS-LOO elpd on the same points (GPFit.LOO's Pointwise, or loo.csv as
// the CLI writes it) and its standard error √(N·Var_i(a_i − b_i)), paired
// as the R package loo's loo_compare does (diag.ELPDDiff).
func ELPDDiff(a, b []float64) (diff, se float64, err error) { return diag.ELPDDiff(a, b) }
