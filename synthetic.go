package subtemper

import (
	"context"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/mvn"
	"gonum.org/v1/gonum/mat"
)

// SyntheticGPData draws n observations of d inputs from GP regression
// under the paper's prior, as its §4.2 does (gp.SyntheticContext: θ from
// the prior, inputs uniform, the target from the GP with noise), and
// returns them with the θ they were drawn from. The same seed gives the
// same data. It stops, returning the context's error, when ctx is
// cancelled.
func SyntheticGPData(ctx context.Context, n, d int, seed uint64) (*GPData, []float64, error) {
	return gp.SyntheticContext(ctx, n, d, seed, gp.Prior{})
}

// WriteGPData writes data to the file at path (created or truncated) as
// comma-separated values that ReadGPData reads back exactly
// (gp.WriteCSVFile).
func WriteGPData(path string, data *GPData) error {
	return gp.WriteCSVFile(path, data)
}

// SyntheticMVNData draws n observations of dimension d from the
// multivariate normal model (mvn.SyntheticContext): θ_d ~ N(0, sigma0²)
// (sigma0 = 0 means mvn.DefaultSigma0), then x_i ~ N(θ, Σ) with Σ = sigma,
// or the AR(1) matrix Σ_ij = 0.5^|i−j| when sigma is nil. It returns the
// data, Σ and the θ drawn; the same seed gives the same data. It stops,
// returning the context's error, when ctx is cancelled.
func SyntheticMVNData(ctx context.Context, n, d int, seed uint64, sigma0 float64, sigma mat.Symmetric) (*MVNData, *mat.SymDense, []float64, error) {
	return mvn.SyntheticContext(ctx, n, d, seed, mvn.SynthOptions{Sigma: sigma, Sigma0: sigma0})
}

// WriteMVNData writes data to the file at path (created or truncated) as
// comma-separated values that ReadMVNData reads back exactly
// (mvn.WriteCSVFile).
func WriteMVNData(path string, data *MVNData) error {
	return mvn.WriteCSVFile(path, data)
}
