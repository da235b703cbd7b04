package subtemper

// Natural maps a draw u = log θ of the fit, in the sampling units, to θ
// in the data's units: θ = exp(u), the standardisation undone. It is
// what Theta does to every draw, and what the stop rule judges when
// GPOptions.Settings' rule has no transform of its own.
func (f *GPFit) Natural(dst, u []float64) { f.natural(dst, u) }
