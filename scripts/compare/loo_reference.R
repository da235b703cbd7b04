#!/usr/bin/env Rscript
# Reference values for diag's PSIS-LOO with relative efficiencies, from the
# R package loo (Debian's r-cran-loo):
#
#   Rscript scripts/compare/loo_reference.R diag/testdata/loo
#
# Draws 4 autocorrelated chains of 250 draws of a normal mean μ (AR(1)
# around its posterior, so that r_eff < 1), the pointwise log-likelihoods
# log N(y_i | μ_s, 1) of 20 points, one of them an outlier (a large Pareto
# k), and writes ll.csv (one row per draw, chains one after another, one
# column per point) and loo.csv (per point: r_eff from
# loo::relative_eff(exp(ll), chain_id), elpd_loo, p_loo and pareto_k from
# loo::loo(ll, r_eff = r_eff)).
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) > 0) args[1] else "."
suppressMessages(library(loo))
set.seed(20261126)
n <- 20
y <- c(rnorm(n - 1), 6)
post_mean <- mean(y) * n / (n + 1)
post_sd <- sqrt(1 / (n + 1))
chains <- 4
S <- 250
phi <- 0.7
mu <- matrix(0, S, chains)
for (c in 1:chains) {
  m <- post_mean + post_sd * rnorm(1)
  for (s in 1:S) {
    m <- post_mean + phi * (m - post_mean) + post_sd * sqrt(1 - phi^2) * rnorm(1)
    mu[s, c] <- m
  }
}
mu <- as.vector(mu) # chain 1's draws, then chain 2's, ...
ll <- sapply(y, function(yi) dnorm(yi, mu, 1, log = TRUE))
chain_id <- rep(1:chains, each = S)
r_eff <- relative_eff(exp(ll), chain_id = chain_id)
l <- loo(ll, r_eff = r_eff)
write.table(format(ll, digits = 17), file.path(out, "ll.csv"), sep = ",", row.names = FALSE, col.names = FALSE, quote = FALSE)
pw <- l$pointwise
write.csv(data.frame(r_eff = format(r_eff, digits = 17), elpd_loo = format(pw[, "elpd_loo"], digits = 17),
                     p_loo = format(pw[, "p_loo"], digits = 17), pareto_k = format(pw[, "influence_pareto_k"], digits = 17)),
          file.path(out, "loo.csv"), row.names = FALSE, quote = FALSE)
cat(sprintf("loo %s: elpd_loo %.6f, p_loo %.6f, max k %.4f, r_eff %.3f..%.3f\n", packageVersion("loo"),
            l$estimates["elpd_loo", "Estimate"], l$estimates["p_loo", "Estimate"], max(pw[, "influence_pareto_k"]), min(r_eff), max(r_eff)))
