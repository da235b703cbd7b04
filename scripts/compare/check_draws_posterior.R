#!/usr/bin/env Rscript
# Checks that a draws.csv written by `subtemper gp|mvn --out DIR` reads into
# R posterior's as_draws_df without renaming, with the run's chains, and that
# posterior's rhat and ess_bulk equal those in DIR/summary.json.
#
#   Rscript scripts/compare/check_draws_posterior.R DIR [TOL]
#
# Reads DIR/draws.csv with read.csv() as a user would (check.names = TRUE,
# the default: the meta-columns .chain, .iteration and .draw are
# syntactic names and survive it; variable names that are not syntactic
# R names would be mangled, so the script compares by column position),
# converts it with posterior::as_draws_df, and checks
#   nchains = the number of chains and niterations = the draws per chain
#   recorded in summary.json (draws.per_chain), and
#   summarise_draws' rhat and ess_bulk of each variable equal summary.json's
#   rhat and ess_bulk within TOL relative (default 1e-6).
# Exits 1 with a message on any mismatch. Needs r-cran-posterior and
# r-cran-jsonlite (Debian).
suppressPackageStartupMessages({
  library(posterior)
  library(jsonlite)
})
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: check_draws_posterior.R DIR [TOL]")
dir <- args[1]
tol <- if (length(args) > 1) as.numeric(args[2]) else 1e-6

raw <- read.csv(file.path(dir, "draws.csv"))
sm <- fromJSON(file.path(dir, "summary.json"), simplifyVector = TRUE)
x <- as_draws_df(raw)
per_chain <- sm$draws$per_chain
ok <- TRUE
fail <- function(...) {
  cat("FAIL:", ..., "\n")
  ok <<- FALSE
}
cat(sprintf("posterior %s: %s: %d chains x %d iterations = %d draws, %d variables\n",
            packageVersion("posterior"), file.path(dir, "draws.csv"),
            nchains(x), niterations(x), ndraws(x), nvariables(x)))
if (nchains(x) != length(per_chain)) fail("nchains", nchains(x), "!= summary.json's", length(per_chain))
if (any(per_chain != per_chain[1])) {
  cat("note: chains of unequal length (interrupted run); skipping the diagnostics check\n")
} else {
  if (niterations(x) != per_chain[1]) fail("niterations", niterations(x), "!= summary.json's", per_chain[1])
  if (ndraws(x) != sum(per_chain)) fail("ndraws", ndraws(x), "!=", sum(per_chain))
  if (!is.null(sm$draws$summarized_per_chain) && sm$draws$summarized_per_chain != per_chain[1]) {
    cat("note: summary.json summarises", sm$draws$summarized_per_chain, "draws per chain\n")
  }
  s <- summarise_draws(x, "rhat", "ess_bulk")
  v <- sm$variables
  if (nrow(s) != nrow(v)) fail("variables:", nrow(s), "in draws.csv,", nrow(v), "in summary.json")
  rel <- function(a, b) ifelse(a == b, 0, abs(a - b) / pmax(abs(a), abs(b)))
  for (i in seq_len(min(nrow(s), nrow(v)))) {
    r <- rel(s$rhat[i], v$rhat[i])
    e <- rel(s$ess_bulk[i], v$ess_bulk[i])
    cat(sprintf("%-20s rhat %.10g (subtemper %.10g, rel %.1e)  ess_bulk %.10g (subtemper %.10g, rel %.1e)\n",
                v$name[i], s$rhat[i], v$rhat[i], r, s$ess_bulk[i], v$ess_bulk[i], e))
    if (!(r <= tol)) fail(v$name[i], "rhat differs by", r, "relative")
    if (!(e <= tol)) fail(v$name[i], "ess_bulk differs by", e, "relative")
  }
}
if (!ok) quit(status = 1)
cat("OK: posterior sees the chains, and its rhat and ess_bulk match summary.json within", tol, "relative\n")
