package main

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/internal/errmsg"
	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/plural"
	"gonum.org/v1/gonum/mat"
)

// Defaults of the mvn command's synthetic data, and the settings --paper
// restores (the paper's L = 10 for the MVN).
const (
	mvnDefaultN    = 1000
	mvnDefaultDims = 5
	mvnPaperWarmup = 500
	mvnPaperDraws  = 1000
	mvnPaperL      = 10
)

// mvnFlags are the flags of the mvn command.
type mvnFlags struct {
	samplerFlags
	data, sigma string
	priorSD     float64
	n, dims     int
	dataSeed    uint64
}

func mvnFlagSet(f *mvnFlags) *flagSet {
	fs := newFlagSet("subtemper mvn", "subtemper mvn [--data X.csv --sigma SIGMA.csv [--prior-sd S0] | --n N --dims D --data-seed S] [flags]",
		`Samples the mean θ of a multivariate normal with known covariance Σ,
x_n ~ N(θ, Σ), θ_d ~ N(0, σ0²): the paper's §4.1 model, whose posterior is Gaussian
and known, so a run can be checked against it.

Without --data it draws synthetic data (θ from the prior, Σ the AR(1) matrix
Σ_ij = 0.5^|i−j|, or --sigma), writes it to --out as data.csv and reports θ.
Prints a summary table; with --out writes draws.csv (.chain, .iteration,
.draw as R posterior reads them, theta_1..theta_D), the same draws in draws.nc
(netCDF, dimensions chain and draw, as ArviZ reads them), summary.json and, with --plots, figures. The sampler defaults are gp's (pt, hmc at the
target and mh above it, adapted during warm-up); with --paper HMC uses the paper's fixed
ε = 0.01, L = 10.`)
	fs.group("Data")
	fs.str(&f.data, "data", "", "CSV file of observations: header row, one column per dimension; \"\" uses synthetic data")
	fs.str(&f.sigma, "sigma", "", "CSV file of Σ (D rows of D numbers, optional header); required with --data; \"\" with synthetic data means AR(1), ρ = 0.5")
	fs.float(&f.priorSD, "prior-sd", subtemper.DefaultMVNSigma0, "prior standard deviation `σ0` of each θ_d (also used to draw synthetic θ)")
	fs.integer(&f.n, "n", mvnDefaultN, "synthetic data: number of observations N")
	fs.integer(&f.dims, "dims", mvnDefaultDims, "synthetic data: dimension D")
	fs.uint64(&f.dataSeed, "data-seed", 1, "synthetic data: seed of the generator")
	f.samplerFlags.define(fs, samplerDefaults{warmup: mvnPaperWarmup, draws: mvnPaperDraws, leapfrog: mvnPaperL})
	fs.notes = samplerNotes
	return fs
}

// cmdMVN is the mvn command: flags → subtemper.MVNOptions → FitMVN →
// the summary, the draws and the files.
func cmdMVN(ctx context.Context, args []string, io *stdio) error {
	f, fs, err := parseFlags(mvnFlagSet, args, io)
	if err != nil {
		return err
	}
	st, be, err := f.check()
	if err != nil {
		return err
	}
	if err := f.checkData(fs); err != nil {
		return err
	}
	// --out first, so that a bad one fails before the data are read (and
	// stale staging folders of killed runs are removed by any run).
	if err := f.prepareOut(); err != nil {
		return err
	}
	data, sigma, desc, line, err := f.loadData(ctx)
	if err != nil {
		return err
	}
	names := make([]string, data.D)
	for i := range names {
		names[i] = fmt.Sprintf("theta_%d", i+1)
	}
	j := &job{
		command: "mvn", fs: fs, flags: &f.samplerFlags, settings: st, nObs: data.N, backend: be.Name(),
		names: names, units: "θ itself: no transform", data: desc, dataLine: line,
		natural: func(dst, u []float64) { copy(dst, u) },
		priorU: func(_ int, x float64) (float64, bool) {
			z := x / f.priorSD
			return math.Exp(-0.5*z*z) / (f.priorSD * math.Sqrt(2*math.Pi)), true
		},
	}
	return fitMVNJob(ctx, io, j, data, sigma, f.priorSD)
}

// fitMVNJob is the mvn command's run: FitMVN with the flags' settings and
// the CLI's reporting hooks, then the summary, the files and the printed
// summary (finishJob). The exact posterior's mean and standard deviations
// go into the data's description.
func fitMVNJob(ctx context.Context, io *stdio, j *job, data *subtemper.MVNData, sigma *mat.SymDense, priorSD float64) error {
	fixStagedPaths(j)
	defer raiseProcs(j.settings.Chains)()
	rc, err := runControl(j, data.N)
	if err != nil {
		return err
	}
	opt := subtemper.MVNOptions{Backend: j.backend, Sigma0: priorSD, Settings: j.settings, WarmStart: rc.warm, WarmKeep: rc.keep, MaxTime: rc.maxTime}
	if opt.WarmStart == subtemper.WarmStartOn {
		announceWarmStart(io, j, data.N, false)
	}
	var pr *progress
	opt.BeforeSampling = func(fit *subtemper.MVNFit, st *subtemper.Settings) {
		if ctx.Err() != nil {
			return // the command may have given up on this run
		}
		if fit.PostMean != nil {
			j.data["posterior_mean"], j.data["posterior_sd"] = fit.PostMean, fit.PostSD
		}
		pr = startSampling(io, j, fit.Mode, st)
	}
	fit, phase, err := runFit(ctx, func(h fitHooks) (*subtemper.MVNFit, error) {
		opt.OnPhase = h.onPhase
		before := opt.BeforeSampling
		opt.BeforeSampling = func(fit *subtemper.MVNFit, st *subtemper.Settings) {
			before(fit, st)
			h.onSettings(st)
		}
		return subtemper.FitMVN(ctx, data, sigma, opt)
	})
	var sr sampled
	if fit != nil {
		defer closeUnlessInterrupted(ctx, fit)
		sr = sampled{res: fit.Result, wall: fit.Wall, procCPU: fit.SamplingCPU, timedOut: fit.StoppedByMaxTime}
	}
	if sr, err = settleFit(ctx, io, j, fit != nil, phase, err, sr, pr); err != nil {
		return err
	}
	return finishJob(ctx, io, j, sr)
}

// checkData checks the flags that choose the data: --prior-sd, and --n
// and --dims for synthetic data, or --sigma (and none of the synthetic
// data's flags) with --data.
func (f *mvnFlags) checkData(fs *flagSet) error {
	if err := checkPositive("prior-sd", f.priorSD); err != nil {
		return err
	}
	if f.data == "" {
		if err := checkPositiveInt("n", f.n); err != nil {
			return err
		}
		return checkPositiveInt("dims", f.dims)
	}
	for _, name := range []string{"n", "dims", "data-seed"} {
		if fs.isSet(name) {
			return usagef("--%s is for synthetic data and cannot be combined with --data", name)
		}
	}
	if f.sigma == "" {
		return usagef("--data needs --sigma SIGMA.csv, the known covariance of the observations")
	}
	return nil
}

// loadData reads the observations and Σ, or makes synthetic ones, and
// returns them with their description for the report (desc) and its line.
func (f *mvnFlags) loadData(ctx context.Context) (data *subtemper.MVNData, sigma *mat.SymDense, desc map[string]any, line string, err error) {
	synthetic := f.data == ""
	if !synthetic {
		data, err = readInput(ctx, "--data", f.data, f.maxMemory, 1, func(r *fileio.Reader) (*subtemper.MVNData, error) { return subtemper.ReadMVNData(r, f.data) })
		if errors.Is(err, errInterrupted) {
			return nil, nil, nil, "", err
		}
		if err != nil {
			return nil, nil, nil, "", inputErr(err)
		}
	}
	if err := f.checkMVNMemory(data); err != nil {
		return nil, nil, nil, "", err
	}
	desc = map[string]any{"prior_sd": f.priorSD}
	if synthetic {
		data, sigma, line, err = f.syntheticData(ctx, desc)
		if err != nil {
			return nil, nil, nil, "", err
		}
	} else {
		sigma, err = readInput(ctx, "--sigma", f.sigma, f.maxMemory, 1, func(r *fileio.Reader) (*mat.SymDense, error) { return subtemper.ReadMVNSigma(r, f.sigma, data.D) })
		if err != nil {
			return nil, nil, nil, "", usageError{fmt.Errorf("--sigma: %w", errmsg.Trim(err, "mvn: "))}
		}
		desc["source"] = "file"
		desc["file"] = f.data
		line = fmt.Sprintf("%s, N = %d %s of dimension D = %d", f.data, data.N, plural.Word(data.N, "observation", "observations"), data.D)
	}
	if f.sigma != "" {
		desc["sigma_file"] = f.sigma
		line += fmt.Sprintf("; Σ from %s", f.sigma)
	}
	desc["n"], desc["d"] = data.N, data.D
	line += fmt.Sprintf("; prior θ_d ~ N(0, %s²)", fmtNum(f.priorSD))
	return data, sigma, desc, line, nil
}

// syntheticData draws the synthetic observations (with Σ from --sigma,
// or AR(1)), writes them to --out's data.csv, and returns them with Σ and
// the data's line, recording them in desc.
func (f *mvnFlags) syntheticData(ctx context.Context, desc map[string]any) (*subtemper.MVNData, *mat.SymDense, string, error) {
	var given mat.Symmetric // nil: AR(1)
	if f.sigma != "" {
		s, err := readInput(ctx, "--sigma", f.sigma, f.maxMemory, 1, func(r *fileio.Reader) (*mat.SymDense, error) { return subtemper.ReadMVNSigma(r, f.sigma, f.dims) })
		if err != nil {
			return nil, nil, "", usageError{fmt.Errorf("--sigma: %w", errmsg.Trim(err, "mvn: "))}
		}
		given = s
	}
	data, sigma, theta, err := subtemper.SyntheticMVNData(ctx, f.n, f.dims, f.dataSeed, f.priorSD, given)
	if err := checkInterrupted(ctx, "synthetic-data generation", err); errors.Is(err, errInterrupted) {
		return nil, nil, "", err
	}
	if err != nil {
		return nil, nil, "", inputErr(err)
	}
	desc["source"] = "synthetic"
	desc["data_seed"] = f.dataSeed
	desc["true_theta"] = theta
	line := fmt.Sprintf("synthetic, N = %d, D = %d, data seed %d", data.N, data.D, f.dataSeed)
	if f.sigma == "" {
		line += ", Σ = AR(1) with ρ = 0.5"
	}
	if data.D <= 8 {
		line += ", drawn from θ = " + fmtVec(theta)
	}
	written, err := saveSynthetic(f.out, desc, func(p string) error { return errmsg.Trim(subtemper.WriteMVNData(p, data), "mvn: ") })
	if err != nil {
		return nil, nil, "", err
	}
	return data, sigma, line + written, nil
}
