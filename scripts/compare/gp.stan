// Gaussian-process regression with an ARD squared-exponential or Matern 5/2
// kernel: the model subtemper samples (gp.Model, gp/doc.go), written for
// Stan 2.21 (Debian's r-cran-rstan; old array syntax, cov_exp_quad).
//
//   k(x, x') = sf^2 exp(-r^2 / 2)                          (matern52 = 0)
//   k(x, x') = sf^2 (1 + sqrt(5) r + 5 r^2 / 3) exp(-sqrt(5) r)   (matern52 = 1)
//   with r^2 = sum_d (x_d - x'_d)^2 / ell_d^2
//   y ~ N(0, K + (sn^2 + jitter) I)
//   ell_d ~ LogNormal(mu0, s0)      (paper: mu0 = 0.5, s0 = 1)
//   sf    ~ Gamma(af, rate bf)      (paper: 4, 1)
//   sn    ~ Gamma(an, rate bn)      (paper: 2, 2)
//
// Every parameter is declared <lower=0>, so Stan samples u = log(theta) and
// adds the log-Jacobian sum(u): the same space and density as subtemper's
// gp.Model (LogPrior + LogLik). The densities are written with target +=
// *_lpdf, which keeps every normalising constant, so that log_prob with
// adjust_transform = TRUE equals subtemper's LogPrior(u) + LogLik(u) itself,
// not only up to a constant. Standardisation (subtemper gp --standardize)
// is done by the caller (run_stan.R), as the CLI does it before the model
// sees the data.
data {
  int<lower=1> N;
  int<lower=1> D;
  vector[D] x[N];
  vector[N] y;
  real mu0;
  real<lower=0> s0;
  real<lower=0> af;
  real<lower=0> bf;
  real<lower=0> an;
  real<lower=0> bn;
  real<lower=0> jitter;
  int<lower=0, upper=1> matern52;
}
parameters {
  vector<lower=0>[D] ell;
  real<lower=0> sf;
  real<lower=0> sn;
}
model {
  vector[D] xs[N];
  matrix[N, N] L;
  {
    matrix[N, N] K;
    vector[D] inv_ell = inv(ell);
    for (i in 1:N)
      xs[i] = x[i] .* inv_ell;
    if (matern52) {
      for (i in 1:N) {
        K[i, i] = square(sf);
        for (j in (i + 1):N) {
          real r = sqrt(5) * distance(xs[i], xs[j]);
          K[i, j] = square(sf) * (1 + r + square(r) / 3) * exp(-r);
          K[j, i] = K[i, j];
        }
      }
    } else {
      K = cov_exp_quad(xs, sf, 1.0);
    }
    for (i in 1:N)
      K[i, i] = K[i, i] + square(sn) + jitter;
    L = cholesky_decompose(K);
  }
  target += lognormal_lpdf(ell | mu0, s0);
  target += gamma_lpdf(sf | af, bf);
  target += gamma_lpdf(sn | an, bn);
  target += multi_normal_cholesky_lpdf(y | rep_vector(0, N), L);
}
