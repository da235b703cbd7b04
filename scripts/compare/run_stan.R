#!/usr/bin/env Rscript
# Fit gp.stan (subtemper's GP model) with rstan's NUTS and report the
# diagnostics that subtemper reports, computed by R posterior:
#
#   Rscript scripts/compare/run_stan.R --data FILE.csv [--target COL] [--standardize]
#       [--chains 4] [--warmup 1000] [--draws 1000] [--seed 1] [--cores 1]
#       [--out DIR]
#
# Prints a JSON object (and writes DIR/stan.json and DIR/draws.csv with --out):
# settings, per-chain CPU seconds (rstan's get_elapsed_time: Stan 2.21 times
# warm-up and sampling with clock(), the CPU time of the process running the
# chain), the R process's proc.time() (user + system, children included),
# per parameter (natural units, mapped back to the data's units with
# --standardize as subtemper does): mean, MCSE of the mean, sd, bulk-ESS,
# tail-ESS, rank-normalised R-hat; and min/median bulk- and tail-ESS with
# min/median bulk-ESS per CPU second (the all-chain ESS divided by the summed
# CPU time of all chains, warm-up included; subtemper's own summary divides
# by the mean chain time instead, see README.md). Chains run one after another by default (--cores 1),
# so that no chain's CPU clock is inflated by another competing for a core.
suppressPackageStartupMessages({
  library(posterior)
  library(jsonlite)
})
source(file.path(local({
  a <- commandArgs(trailingOnly = FALSE)
  dirname(normalizePath(sub("^--file=", "", a[grep("^--file=", a)])))
}), "common.R"))

args <- parse_args(list(data = "", target = "", standardize = FALSE, chains = 4,
                        warmup = 1000, draws = 1000, seed = 1, cores = 1, out = "",
                        jitter = 0, adapt_delta = 0.8, max_treedepth = 10))
if (args$data == "") stop("--data FILE.csv is required")
d <- read_gp_data(args$data, args$target, args$standardize)
mod <- compile_gp()

t0 <- proc.time()
fit <- sampling(mod, data = stan_data(d, args$jitter), chains = args$chains,
                warmup = args$warmup, iter = args$warmup + args$draws,
                seed = args$seed, cores = args$cores, refresh = 0,
                control = list(adapt_delta = args$adapt_delta, max_treedepth = args$max_treedepth))
t1 <- proc.time() - t0

el <- get_elapsed_time(fit)
sp <- get_sampler_params(fit, inc_warmup = FALSE)
D <- ncol(d$X)
# Natural units of the data: ell_j * sd(x_j), sf * sd(y), sn * sd(y).
arr <- as.array(fit, pars = c("ell", "sf", "sn"))
scale <- c(d$std$x_sd, d$std$y_sd, d$std$y_sd)
for (j in seq_len(dim(arr)[3])) arr[, , j] <- arr[, , j] * scale[j]
names_out <- c(paste0("ell_", d$names), "sf", "sn")
dimnames(arr)[[3]] <- names_out
dr <- as_draws_array(arr)
s <- summarise_draws(dr, mean, sd, mcse_mean, ess_bulk, ess_tail, rhat)
s <- as.data.frame(lapply(as.data.frame(s), function(c) if (is.numeric(c)) as.numeric(unclass(c)) else as.character(c)),
                   stringsAsFactors = FALSE)
cpu <- el[, "warmup"] + el[, "sample"]
total_cpu <- sum(cpu)

res <- list(
  tool = "rstan", stan_version = as.character(packageVersion("rstan")),
  data = normalizePath(args$data), n = nrow(d$X), d = D, standardized = d$standardized,
  chains = args$chains, warmup = args$warmup, draws = args$draws, seed = args$seed,
  cores = args$cores, chains_run = if (args$cores > 1) "parallel" else "sequential",
  adapt_delta = args$adapt_delta, max_treedepth = args$max_treedepth,
  chain_cpu_seconds = unname(cpu), chain_warmup_seconds = unname(el[, "warmup"]),
  chain_sample_seconds = unname(el[, "sample"]), total_chain_cpu_seconds = total_cpu,
  process_user_seconds = unname(t1["user.self"] + t1["user.child"]),
  process_system_seconds = unname(t1["sys.self"] + t1["sys.child"]),
  process_elapsed_seconds = unname(t1["elapsed"]),
  divergent = sum(sapply(sp, function(x) sum(x[, "divergent__"]))),
  max_treedepth_hits = sum(sapply(sp, function(x) sum(x[, "treedepth__"] >= args$max_treedepth))),
  mean_leapfrog_per_draw = mean(sapply(sp, function(x) mean(x[, "n_leapfrog__"]))),
  step_size = unname(sapply(sp, function(x) x[1, "stepsize__"])),
  min_bulk_ess = min(s$ess_bulk), median_bulk_ess = median(s$ess_bulk),
  min_tail_ess = min(s$ess_tail), median_tail_ess = median(s$ess_tail),
  max_rhat = max(s$rhat),
  min_bulk_ess_per_cpu_s = min(s$ess_bulk) / total_cpu,
  median_bulk_ess_per_cpu_s = median(s$ess_bulk) / total_cpu,
  parameters = lapply(seq_len(nrow(s)), function(i) as.list(s[i, ]))
)
js <- toJSON(res, auto_unbox = TRUE, digits = NA, pretty = TRUE)
cat(js, "\n")
if (args$out != "") {
  dir.create(args$out, showWarnings = FALSE, recursive = TRUE)
  writeLines(js, file.path(args$out, "stan.json"))
  df <- as_draws_df(dr)
  write.csv(as.data.frame(df), file.path(args$out, "draws.csv"), row.names = FALSE)
  print(s, digits = 4)
}
