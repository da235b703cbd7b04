#!/usr/bin/env Rscript
# Check that gp.stan and subtemper's GP model have the same log density in
# the sampling space u = log(theta), up to a constant (with every constant
# kept, the constant should be 0):
#
#   Rscript scripts/compare/check_logdens.R --data FILE.csv [--target COL] [--standardize]
#       [--kernel se|matern52] [--subtemper PATH] [--points 8] [--seed 1] [--out FILE.json]
#
# At --points random points u (log ell_d ~ N(0.5, 1), log sf ~ N(log 4, 0.5),
# log sn ~ N(log 1, 0.5)), it evaluates Stan's log_prob(fit, u,
# adjust_transform = TRUE) (the density of the unconstrained u, Jacobian
# included) and subtemper's LogPrior(u) + LogLik(u) from `subtemper eval gp
# --json` (log_prior, which includes the log-Jacobian, plus
# log_marginal_likelihood), on the same data: with --standardize the
# standardised data are written to a temporary CSV that both evaluate. It
# also compares Stan's gradient (grad_log_prob) with subtemper's: `subtemper
# eval` prints the gradient of the log marginal likelihood only, so the log
# prior's gradient (closed form, gp.Prior.LogDensity) is added here. Prints
# the differences Delta = stan - subtemper, max |Delta - mean(Delta)| and the
# largest gradient difference. --subtemper names a built binary (default:
# `go run ./cmd/subtemper`, run from the repository root).
suppressPackageStartupMessages(library(jsonlite))
source(file.path(local({
  a <- commandArgs(trailingOnly = FALSE)
  dirname(normalizePath(sub("^--file=", "", a[grep("^--file=", a)])))
}), "common.R"))

args <- parse_args(list(data = "", target = "", standardize = FALSE, kernel = "se", subtemper = "",
                        points = 8, seed = 1, out = ""))
if (args$data == "") stop("--data FILE.csv is required")
d <- read_gp_data(args$data, args$target, args$standardize)
mod <- compile_gp()
sd_list <- stan_data(d, kernel = args$kernel)
# A fit object with no draws gives log_prob and grad_log_prob.
fit <- sampling(mod, data = sd_list, chains = 1, iter = 1, refresh = 0, algorithm = "Fixed_param")

tmp <- tempfile(fileext = ".csv")
df <- as.data.frame(d$X)
df[[d$target]] <- d$y
write.csv(df, tmp, row.names = FALSE)
cmd <- if (args$subtemper != "") args$subtemper else "go run ./cmd/subtemper"

set.seed(args$seed)
D <- ncol(d$X)
rows <- list()
for (p in seq_len(args$points)) {
  u <- c(rnorm(D, 0.5, 1), rnorm(1, log(4), 0.5), rnorm(1, 0, 0.5))
  th <- exp(u)
  lp_stan <- log_prob(fit, u, adjust_transform = TRUE)
  g_stan <- grad_log_prob(fit, u, adjust_transform = TRUE)
  line <- sprintf("%s eval gp --data %s --kernel %s --lengthscales %s --sf %.17g --sn %.17g --json",
                  cmd, shQuote(tmp), args$kernel, paste(sprintf("%.17g", th[1:D]), collapse = ","), th[D + 1], th[D + 2])
  r <- fromJSON(paste(system(line, intern = TRUE), collapse = "\n"))
  lp_st <- r$log_prior + r$log_marginal_likelihood
  # Gradient of the log prior in u (gp.Prior.LogDensity): -(u_d - mu0)/s0^2, a - b e^u.
  gp_prior <- c(-(u[1:D] - 0.5), 4 - exp(u[D + 1]), 2 - 2 * exp(u[D + 2]))
  g_st <- r$gradient + gp_prior
  rows[[p]] <- list(u = u, stan = lp_stan, subtemper = lp_st, delta = lp_stan - lp_st,
                    grad_max_abs_diff = max(abs(as.numeric(g_stan) - g_st)),
                    grad_max_abs = max(abs(g_st)))
}
delta <- sapply(rows, `[[`, "delta")
res <- list(data = normalizePath(args$data), kernel = args$kernel, standardized = d$standardized, n = nrow(d$X), d = D,
            points = rows, mean_delta = mean(delta), max_abs_delta = max(abs(delta)),
            max_abs_delta_minus_mean = max(abs(delta - mean(delta))),
            max_grad_abs_diff = max(sapply(rows, `[[`, "grad_max_abs_diff")))
js <- toJSON(res, auto_unbox = TRUE, digits = NA, pretty = TRUE)
if (args$out != "") writeLines(js, args$out)
for (r in rows) cat(sprintf("stan %.10f  subtemper %.10f  delta %.3e  |grad diff| %.2e\n", r$stan, r$subtemper, r$delta, r$grad_max_abs_diff))
cat(sprintf("mean delta %.3e, max |delta - mean delta| %.3e, max |delta| %.3e, max |grad diff| %.3e\n",
            res$mean_delta, res$max_abs_delta_minus_mean, res$max_abs_delta, res$max_grad_abs_diff))
