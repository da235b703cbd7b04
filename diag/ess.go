package diag

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/dsp/fourier"
)

// nextGoodSize returns the smallest integer ≥ n whose only prime factors
// are 2, 3 and 5 (R's nextn), a fast size for the FFT.
func nextGoodSize(n int) int {
	if n <= 1 {
		return 1
	}
	for m := n; ; m++ {
		k := m
		for _, f := range [...]int{2, 3, 5} {
			for k%f == 0 {
				k /= f
			}
		}
		if k == 1 {
			return m
		}
	}
}

// meanAcov returns the autocovariances at lags 0..n−1 averaged over the
// chains, and the chain means. Per chain they are posterior's
// autocovariance: the biased estimates
//
//	γ_t = (1/n) Σ_{i<n−t} (x_i − x̄)(x_{i+t} − x̄),
//
// the inverse FFT of the power spectrum of the centred series, zero-padded
// to twice R's nextn(n) so the circular sums are the linear ones. Since
// the average of the γ's is the inverse FFT of the average power spectrum,
// one inverse transform serves all chains. A constant chain contributes
// zeros, as in posterior.
func meanAcov(chains [][]float64) (acov, means []float64) {
	n := len(chains[0])
	m := 2 * nextGoodSize(n)
	fft := fourier.NewFFT(m)
	pad := make([]float64, m)
	power := make([]complex128, m/2+1)
	var coef []complex128
	means = make([]float64, len(chains))
	for c, x := range chains {
		means[c] = Mean(x)
		if !slices.ContainsFunc(x, func(v float64) bool { return v != x[0] }) {
			continue // R: var(x) == 0 gives zero autocovariances
		}
		for i, v := range x {
			pad[i] = v - means[c]
		}
		coef = fft.Coefficients(coef, pad)
		for k, z := range coef {
			re, im := real(z), imag(z)
			power[k] += complex(re*re+im*im, 0)
		}
	}
	seq := fft.Sequence(nil, power) // unnormalized: m times the inverse
	scale := 1 / (float64(m) * float64(n) * float64(len(chains)))
	acov = seq[:n:n]
	for t := range acov {
		acov[t] *= scale
	}
	return acov, means
}

// essCore is posterior's .ess: the effective sample size of the chains
// (already split and transformed as the caller wants) from Geyer's initial
// monotone sequence of the multi-chain autocorrelations
// ρ̂_t = 1 − (W − γ̄_t)/Var⁺. It is NaN for fewer than 3 draws per chain and
// for draws that posterior's should_return_NA rejects.
func essCore(chains [][]float64) float64 {
	c, n := len(chains), len(chains[0])
	if n < 3 || returnsNaN(chains) {
		return math.NaN()
	}
	// The ESS does not change when the draws are scaled; scaling by a power
	// of two keeps the squares of the autocovariances in range.
	chains = scaledChains(chains, scaleExp(chains...))
	acovMeans, means := meanAcov(chains)
	fn := float64(n)
	meanVar := acovMeans[0] * fn / (fn - 1)
	varPlus := meanVar * (fn - 1) / fn
	if c > 1 {
		varPlus += variance(means)
	}

	// Geyer's initial positive sequence: sums of adjacent pairs of
	// autocorrelations, kept while positive. The indices are posterior's,
	// shifted to start at 0.
	rho := make([]float64, n)
	rho[0] = 1
	even := 1.0
	odd := 1 - (meanVar-acovMeans[1])/varPlus
	rho[1] = odd
	t := 0
	for t < n-5 && !math.IsNaN(even+odd) && even+odd > 0 {
		t += 2
		even = 1 - (meanVar-acovMeans[t])/varPlus
		odd = 1 - (meanVar-acovMeans[t+1])/varPlus
		if even+odd >= 0 {
			rho[t] = even
			rho[t+1] = odd
		}
	}
	maxT := t
	if even > 0 {
		rho[maxT] = even
	}
	// Geyer's initial monotone sequence: make the pair sums non-increasing.
	for t = 0; t <= maxT-4; {
		t += 2
		if rho[t]+rho[t+1] > rho[t-2]+rho[t-1] {
			rho[t] = (rho[t-2] + rho[t-1]) / 2
			rho[t+1] = rho[t]
		}
	}
	// τ = −1 + 2·Σ_{t<maxT} ρ_t + ρ_maxT. For maxT = 0 posterior's
	// sum(rho_hat_t[1:max_t]) is over 1:0, that is ρ_0 alone; so is this.
	sum := rho[0]
	for t := 1; t < maxT; t++ {
		sum += rho[t]
	}
	tau := -1 + 2*sum + rho[maxT]
	ess := float64(c) * fn
	// posterior bounds τ below by 1/log10(C·n) "to avoid unstable estimates".
	tau = max(tau, 1/math.Log10(ess))
	return ess / tau
}

// ESSBulk returns the bulk effective sample size of Vehtari et al. (2021):
// the ESS of the rank-normalized split chains (posterior's ess_bulk).
//
// It is NaN for input that Validate rejects, for fewer than 6 draws per
// chain (3 per half), for draws that hold a NaN and for constant draws.
// ±Inf draws are ranked like any other.
func ESSBulk(chains [][]float64) float64 {
	if _, _, ok := shape(chains); !ok || hasNaN(chains) {
		return math.NaN()
	}
	return essCore(zScale(SplitChains(chains)))
}

// ESSQuantile returns the effective sample size for the p-quantile
// (posterior's ess_quantile): the ESS of the split chains of the indicator
// draws I(x ≤ q), q the type-7 p-quantile of all draws (see Quantile). For
// p = 1 it uses (S − 1/2)/S instead, S the number of draws, as posterior
// does.
//
// It is NaN for input that Validate rejects, for p outside [0, 1], for fewer
// than 6 draws per chain, for draws that hold NaN or ±Inf or are constant,
// and when the indicator is constant (no draw on one side of q).
func ESSQuantile(chains [][]float64, p float64) float64 {
	if _, _, ok := shape(chains); !ok || !(p >= 0 && p <= 1) || returnsNaN(chains) {
		return math.NaN()
	}
	s := Pool(chains)
	slices.Sort(s)
	if p == 1 {
		p = (float64(len(s)) - 0.5) / float64(len(s))
	}
	return essIndicator(chains, quantileSorted(s, p))
}

// essIndicator is the ESS of the split chains of I(x ≤ q).
func essIndicator(chains [][]float64, q float64) float64 {
	ind := make([][]float64, len(chains))
	for c, x := range chains {
		y := make([]float64, len(x))
		for i, v := range x {
			if v <= q {
				y[i] = 1
			}
		}
		ind[c] = y
	}
	return essCore(SplitChains(ind))
}

// ESSTail returns the tail effective sample size of Vehtari et al. (2021),
// the smaller of the ESS for the 5% and the 95% quantiles (see ESSQuantile;
// posterior's ess_tail). It is NaN when either of them is.
func ESSTail(chains [][]float64) float64 {
	return nanMin(ESSQuantile(chains, 0.05), ESSQuantile(chains, 0.95))
}

// ESSMean returns the effective sample size for the mean: the ESS of the
// split raw draws, without rank normalization (posterior's ess_mean, equal
// to ess_basic). It is NaN for input that Validate rejects, for fewer than 6
// draws per chain and for draws that hold NaN or ±Inf or are constant.
func ESSMean(chains [][]float64) float64 {
	if _, _, ok := shape(chains); !ok {
		return math.NaN()
	}
	return essCore(SplitChains(chains))
}

// MCSEMean returns the Monte Carlo standard error of the mean,
// SD/sqrt(ESSMean), SD over all draws (posterior's mcse_mean). Its NaN
// cases are those of ESSMean.
func MCSEMean(chains [][]float64) float64 {
	if _, _, ok := shape(chains); !ok {
		return math.NaN()
	}
	return SD(Pool(chains)) / math.Sqrt(ESSMean(chains))
}
