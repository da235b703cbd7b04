package gp

// BimodalExample returns a one-input dataset of 40 observations whose
// hyperparameter posterior under the paper's prior (Prior{}, no jitter, no
// standardisation) has two well separated modes of comparable mass, as in
// Rasmussen & Williams (2006), GPML §5.4.1 and Fig. 5.5:
//
//   - a short length scale with low noise (highest point near ℓ = 0.43,
//     σf = 0.74, σn = 0.10): the targets' small wiggles are signal;
//   - a long length scale with high noise (near ℓ = 2.5, σf = 2.5,
//     σn = 0.18): the wiggles are noise around a smooth trend.
//
// The inputs x_i are 40 draws from Uniform(−3, 3), sorted, and the targets
// are y_i = sin(x_i) + 0.2·sin(6·x_i) + 0.1·ε_i with ε_i standard normal
// (both from math/rand/v2's PCG(9, 7) stream; x rounded to 5 decimals, y to
// 4, and kept here as literals so that the data never depend on a
// generator's implementation). The wiggle sin(6x) has a period of about 1,
// comparable to the gaps between inputs, so a smooth curve with noise
// explains it almost as well as a wiggly curve without: each explanation is
// a mode, and the posterior between them, at intermediate length scales
// (which neither fit the wiggles nor average them out), is several nats
// lower. The setting (N, wiggle amplitude and frequency, noise, seed) was
// chosen by scripts/compare/bimodalsearch among those giving each mode a
// mass between 0.25 and 0.75. By quadrature with LogPosteriorGrid (gp's
// TestBimodalExample) the short-length-scale mode (log ℓ < −0.30, the
// minimum of the log ℓ marginal between its peaks) holds 0.566 of the
// mass and the long one 0.434, and the marginal's minimum lies 4.5 nats
// below the lower peak.
// Two inputs (−0.79772, −0.79766) nearly coincide with targets 0.14 apart,
// which bounds σn away from 0 in both modes.
//
// Each call returns a fresh copy; Names is ["x"] and Target "y".
func BimodalExample() *Data {
	x := []float64{-2.99652, -2.91809, -2.85946, -2.32426, -2.10061, -1.72780, -1.68077, -1.65875, -1.45805, -1.33342, -1.18165, -1.14063, -0.79772, -0.79766, -0.74138, -0.73964, -0.61907, -0.39449, -0.19424, -0.17560, 0.04698, 0.95133, 1.03771, 1.09451, 1.11293, 1.47637, 1.67808, 1.87328, 1.93282, 2.02236, 2.07597, 2.10124, 2.22223, 2.24938, 2.53845, 2.65997, 2.67427, 2.76414, 2.92377, 2.96450}
	y := []float64{0.1410, -0.0673, -0.1080, -0.7774, -0.9040, -0.8660, -0.6501, -0.8214, -1.1283, -1.3499, -1.2402, -0.9722, -0.4577, -0.5954, -0.4830, -0.6065, -0.5189, -0.6951, -0.3244, -0.3818, 0.0343, 0.8700, 0.6461, 0.9829, 0.9620, 1.1379, 0.8976, 0.7050, 0.7495, 0.7636, 0.9042, 0.9700, 0.8454, 1.0334, 0.6265, 0.4419, 0.4162, 0.1387, -0.0851, 0.1304}
	return &Data{N: len(x), D: 1, X: x, Y: y, Names: []string{"x"}, Target: "y"}
}
