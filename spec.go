package subtemper

import (
	"io"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/mvn"
	"github.com/subtemper/subtemper/tempering"
	"gonum.org/v1/gonum/mat"
)

// The types that a program going through this package's front doors
// passes along: the data of the built-in models and the choices that
// shape the GP model, named here so that such a program needs no import
// of the packages below (the CLI is one).
type (
	// GPData is a regression dataset: N observations of D inputs and a
	// target (gp.Data).
	GPData = gp.Data
	// GPPrior is the prior on the GP's θ = (ℓ_1..ℓ_D, σf, σn) (gp.Prior;
	// the zero value is the paper's).
	GPPrior = gp.Prior
	// GPKernel is the GP's covariance family (gp.Kernel; the zero value
	// is the squared exponential).
	GPKernel = gp.Kernel
	// GPDataOptions says which columns of a CSV file are the target and
	// the inputs, and whether rows with missing values are dropped
	// (gp.CSVOptions).
	GPDataOptions = gp.CSVOptions
	// GPDataInfo says what reading a CSV file with GPDataOptions dropped
	// (gp.CSVInfo).
	GPDataInfo = gp.CSVInfo
	// MVNData is a set of N observations of dimension D of the
	// multivariate normal model (mvn.Data).
	MVNData = mvn.Data
	// Settings are a sampler's settings (tempering.Settings), as
	// GPOptions and MVNOptions take them.
	Settings = tempering.Settings
	// Result is a sampler's result (tempering.Result), as GPFit and
	// MVNFit hold it.
	Result = tempering.Result
	// WarmStart is the posterior mode a fit started from and the Laplace
	// approximation there (tempering.WarmStart).
	WarmStart = tempering.WarmStart
)

// ReadGPData reads a regression dataset from comma-separated values, as
// gp.ReadCSVInfo does: the columns opt chooses, name in error messages.
func ReadGPData(r io.Reader, name string, opt GPDataOptions) (*GPData, GPDataInfo, error) {
	return gp.ReadCSVInfo(r, name, opt)
}

// ReadMVNData reads the observations of the multivariate normal model
// from comma-separated values (mvn.ReadCSV), name in error messages.
func ReadMVNData(r io.Reader, name string) (*MVNData, error) {
	return mvn.ReadCSV(r, name)
}

// ReadMVNSigma reads the d×d covariance Σ of the observations from
// comma-separated values (mvn.ReadSigmaCSV), name in error messages.
func ReadMVNSigma(r io.Reader, name string, d int) (*mat.SymDense, error) {
	return mvn.ReadSigmaCSV(r, name, d)
}
