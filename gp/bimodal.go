package gp

// BimodalExample returns a one-input dataset of 60 observations whose
// hyperparameter posterior under the paper's prior (Prior{}, no jitter, no
// standardisation) has two well separated modes of comparable mass, as in
// Rasmussen & Williams (2006), GPML §5.4.1 and Fig. 5.5:
//
//   - a short length scale with low noise (highest point near ℓ = 0.38,
//     σf = 0.78, σn = 0.10): the targets' small wiggles are signal;
//   - a long length scale with high noise (near ℓ = 2.5, σf = 2.6,
//     σn = 0.16): the wiggles are noise around a smooth trend.
//
// The inputs x_i are 60 draws from Uniform(−3, 3), sorted, and the targets
// are y_i = sin(x_i) + 0.15·sin(8·x_i) + 0.1·ε_i with ε_i standard normal
// (both from math/rand/v2's PCG(8, 7) stream; x rounded to 5 decimals, y to
// 4, and kept here as literals so that the data never depend on a
// generator's implementation). The wiggle sin(8x), of amplitude 0.15 and
// period 0.79, is barely larger than the noise and sampled only a few
// times per period, so a smooth curve with noise (σn ≈ 0.16 absorbs the
// wiggle's sd 0.15/√2 ≈ 0.11 on top of the noise's 0.1) explains the data
// almost as well as a wiggly curve without: each explanation is a mode, and
// intermediate length scales, which neither follow the wiggles nor average
// them out, are much less probable. The setting (N, wiggle amplitude and
// frequency, noise, seed) was chosen by scripts/compare/bimodalsearch among
// those giving each mode a mass between 0.25 and 0.75, for its deep
// barrier. By quadrature with LogPosteriorGrid (gp's TestBimodalExample) the
// short-length-scale mode (log ℓ < −0.60, the minimum of the log ℓ
// marginal between its peaks) holds 0.535 of the mass and the long one
// 0.465, and the marginal's minimum lies 9.2 nats below the lower peak.
//
// Each call returns a fresh copy; Names is ["x"] and Target "y".
func BimodalExample() *Data {
	x := []float64{-2.98296, -2.92458, -2.41117, -2.36493, -2.03102, -1.76327, -1.72443, -1.57019, -1.38319, -1.37469, -1.30076, -1.17116, -1.15870, -1.05121, -1.03296, -0.99833, -0.98898, -0.88113, -0.85255, -0.71395, -0.61419, -0.58120, -0.54943, -0.54196, -0.50268, -0.49674, -0.44107, -0.37153, -0.26690, -0.24735, -0.22112, -0.19807, -0.04838, 0.05350, 0.15107, 0.17808, 0.34597, 0.43924, 0.58894, 0.68161, 0.78490, 0.81213, 1.11632, 1.28103, 1.32042, 1.36055, 1.40684, 1.50756, 1.62008, 1.80787, 1.81538, 2.04186, 2.06302, 2.19668, 2.20567, 2.22796, 2.33206, 2.44570, 2.50136, 2.83438}
	y := []float64{-0.0549, -0.0984, -0.7182, -0.7707, -0.8998, -1.2232, -1.1344, -1.0565, -1.0266, -0.7595, -0.6956, -0.9386, -1.0311, -0.8227, -1.1756, -0.9442, -1.0795, -0.9389, -0.9599, -0.5346, -0.6464, -0.3787, -0.3222, -0.3619, -0.3989, -0.3143, -0.4189, -0.5100, -0.5380, -0.3901, -0.4327, -0.1854, -0.1410, 0.1526, 0.3957, 0.4428, 0.3149, 0.4931, 0.4848, 0.6067, 0.7203, 0.8420, 0.9057, 0.7918, 0.7989, 0.7717, 0.7212, 1.0020, 1.0376, 1.2528, 1.0918, 0.8561, 0.8397, 0.7216, 0.7064, 0.6219, 0.7497, 0.7837, 0.7321, 0.1072}
	return &Data{N: len(x), D: 1, X: x, Y: y, Names: []string{"x"}, Target: "y"}
}
