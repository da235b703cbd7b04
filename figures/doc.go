// Package figures draws the diagnostic figures of a sampling run, each
// as PNG and SVG, as the CLI's --plots does: traces, rank plots,
// marginal densities with the prior, a pair plot with the divergent
// transitions marked, R-hat per parameter and against draws and seconds,
// the smallest ESS against draws, the energy plot with the E-BFMI (HMC or
// NUTS at the target level), acceptance
// per level, swap or tempered-transition rates and, with the evidence,
// the learning curve. The draws are drawn in the sampling space (log θ
// for the GP's positive parameters) with natural values on the axes, as
// ArviZ and bayesplot draw them.
//
//	rep, err := fit.Report(subtemper.ReportOptions{})
//	paths, err := figures.WriteGP("out", fit, rep)
//
// It is a package of its own so that the library's root package does not
// depend on the plotting code.
package figures
