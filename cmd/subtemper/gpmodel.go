package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/internal/plural"
)

// gpModelFlags are the flags that shape the GP model itself, shared by gp
// and eval: the kernel family, the prior of each hyperparameter family and
// the choice of input columns.
type gpModelFlags struct {
	kernel                     string
	priorEll, priorSF, priorSN string
	inputs, exclude            string
	dropNA                     bool
}

// Help of the prior flags; the defaults are the paper's (§4.2).
const (
	priorEllHelp = "prior of every length scale ℓ_d: lognormal:MU,SIGMA (log ℓ_d ~ N(MU, SIGMA²); SIGMA > 0) or invhalft:NU,S (1/ℓ_d ~ half-Student-t with NU degrees of freedom and scale S, both > 0, which lets an unused input's ℓ_d grow without bound)"
	priorSFHelp  = "prior of the signal sd σf: gamma:SHAPE,RATE (mean SHAPE/RATE; both > 0)"
	priorSNHelp  = "prior of the noise sd σn: gamma:SHAPE,RATE (mean SHAPE/RATE; both > 0)"
)

func (f *gpModelFlags) define(fs *flagSet) {
	fs.group("Model")
	fs.str(&f.kernel, "kernel", gp.SE.String(), "covariance family, with ARD length scales: se (squared exponential), matern12, matern32 or matern52 (Matérn ν = 1/2, 3/2, 5/2)")
	fs.str(&f.priorEll, "prior-ell", fmt.Sprintf("lognormal:%g,%g", gp.PaperLengthMu, gp.PaperLengthSigma), priorEllHelp)
	fs.str(&f.priorSF, "prior-sf", fmt.Sprintf("gamma:%g,%g", gp.PaperSignalShape, gp.PaperSignalRate), priorSFHelp)
	fs.str(&f.priorSN, "prior-sn", fmt.Sprintf("gamma:%g,%g", gp.PaperNoiseShape, gp.PaperNoiseRate), priorSNHelp)
	fs.str(&f.inputs, "inputs", "", "comma-separated input columns of --data to use, in this order (default: every column but the target)")
	fs.str(&f.exclude, "exclude", "", "comma-separated input columns of --data to leave out (the others are used in file order); they may hold anything, text included")
	fs.boolean(&f.dropNA, "drop-na", false, "drop the rows of --data (and of the --predict file) whose target or inputs are missing (NA as R writes it, an empty cell or NaN), and say how many; without it a missing value is an error")
}

// kernelFamily parses --kernel.
func (f *gpModelFlags) kernelFamily() (gp.Kernel, error) {
	k, err := gp.ParseKernel(strings.TrimSpace(strings.ToLower(f.kernel)))
	if err != nil {
		return 0, usagef("--kernel %q: want se, matern12, matern32 or matern52", f.kernel)
	}
	return k, nil
}

// prior parses the prior flags.
func (f *gpModelFlags) prior() (gp.Prior, error) {
	var ell gp.Prior
	fam, _, _ := strings.Cut(strings.TrimSpace(f.priorEll), ":")
	switch fam = strings.TrimSpace(fam); {
	case strings.Contains(f.priorEll, ":") && !strings.EqualFold(fam, string(gp.LengthLogNormal)) && !strings.EqualFold(fam, string(gp.LengthInvHalfT)):
		return gp.Prior{}, usagef("--prior-ell %q: the family must be lognormal or invhalft (e.g. --prior-ell lognormal:0.5,1 or --prior-ell invhalft:3,1)", f.priorEll)
	case strings.EqualFold(fam, string(gp.LengthInvHalfT)):
		nu, s, err := parsePriorFlag("prior-ell", f.priorEll, string(gp.LengthInvHalfT), "NU,S", true)
		if err != nil {
			return gp.Prior{}, err
		}
		ell = gp.Prior{LengthFamily: gp.LengthInvHalfT, LengthDF: nu, LengthScale: s}
	default:
		mu, sigma, err := parsePriorFlag("prior-ell", f.priorEll, string(gp.LengthLogNormal), "MU,SIGMA", false)
		if err != nil {
			return gp.Prior{}, err
		}
		if med := math.Exp(mu); !(med > 0) || math.IsInf(med, 0) {
			return gp.Prior{}, usagef("--prior-ell: MU = %v puts the median length scale e^MU outside the floating-point range", mu)
		}
		ell = gp.Prior{LengthMedian: math.Exp(mu), LengthSigma: sigma}
	}
	af, bf, err := parsePriorFlag("prior-sf", f.priorSF, "gamma", "SHAPE,RATE", true)
	if err != nil {
		return gp.Prior{}, err
	}
	an, bn, err := parsePriorFlag("prior-sn", f.priorSN, "gamma", "SHAPE,RATE", true)
	if err != nil {
		return gp.Prior{}, err
	}
	ell.SignalShape, ell.SignalRate, ell.NoiseShape, ell.NoiseRate = af, bf, an, bn
	return ell, nil
}

// parsePriorFlag parses FAMILY:A,B. Both must be finite; B must be
// positive, and A too when bothPositive.
func parsePriorFlag(flag, s, family, params string, bothPositive bool) (a, b float64, err error) {
	bad := func(format string, args ...any) error {
		return usagef("--%s %q: %s (want %s:%s, e.g. --%s %s:2,1)", flag, s, fmt.Sprintf(format, args...), family, params, flag, family)
	}
	fam, rest, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return 0, 0, bad("no family")
	}
	if !strings.EqualFold(strings.TrimSpace(fam), family) {
		return 0, 0, bad("the family must be %s", family)
	}
	parts := strings.Split(rest, ",")
	if len(parts) != 2 {
		return 0, 0, bad("%s, want 2", plural.Count(len(parts), "parameter", "parameters"))
	}
	var v [2]float64
	names := strings.Split(params, ",")
	for i, p := range parts {
		x, perr := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if perr != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, 0, bad("%s = %q is not a finite number", names[i], strings.TrimSpace(p))
		}
		if (i == 1 || bothPositive) && !(x > 0) {
			return 0, 0, bad("%s must be positive", names[i])
		}
		v[i] = x
	}
	return v[0], v[1], nil
}

// csvOptions returns the options that read --data with the chosen inputs.
func (f *gpModelFlags) csvOptions(target string) (gp.CSVOptions, error) {
	opt := gp.CSVOptions{Target: target, DropNA: f.dropNA}
	var err error
	if opt.Inputs, err = nameList("inputs", f.inputs); err != nil {
		return opt, err
	}
	if opt.Exclude, err = nameList("exclude", f.exclude); err != nil {
		return opt, err
	}
	if len(opt.Inputs) > 0 && len(opt.Exclude) > 0 {
		return opt, usagef("--inputs and --exclude cannot be combined: name the inputs to use, or those to leave out")
	}
	return opt, nil
}

// nameList splits a comma-separated list of column names; "" is an empty
// list, an empty name is an error.
func nameList(flag, s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	for i, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, usagef("--%s %q: name %d is empty", flag, s, i+1)
		}
		out = append(out, p)
	}
	return out, nil
}

// priorLine describes a prior in one line.
func priorLine(p gp.Prior) string {
	ell := fmt.Sprintf("ℓ_d ~ LogNormal(%s, %s)", fmtNum(p.Mu0()), fmtNum(p.LengthSigma))
	if p.LengthFamily == gp.LengthInvHalfT {
		ell = fmt.Sprintf("1/ℓ_d ~ half-t(%s, scale %s)", fmtNum(p.LengthDF), fmtNum(p.LengthScale))
	}
	return fmt.Sprintf("%s, σf ~ Gamma(%s, rate %s), σn ~ Gamma(%s, rate %s)",
		ell, fmtNum(p.SignalShape), fmtNum(p.SignalRate), fmtNum(p.NoiseShape), fmtNum(p.NoiseRate))
}

// modelLine describes a kernel and prior that are not the defaults, for
// the data's line ("" for the defaults).
func modelLine(kern gp.Kernel, prior gp.Prior) string {
	line := ""
	if kern != gp.SE {
		line += "; kernel " + kern.String()
	}
	if paper, _ := (gp.Prior{}).WithDefaults(); prior != paper {
		line += "; prior " + priorLine(prior)
	}
	return line
}
