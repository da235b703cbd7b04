# Reference values for diag/reference_test.go, from the R package posterior.
#
# Run from the repository root:
#
#   Rscript diag/testdata/reference.R > /tmp/reference.txt
#
# and paste its output into the table in diag/reference_test.go. The draws in
# draws_even.csv (4 chains x 1000 draws) and draws_odd.csv (4 chains x 501
# draws) were written by diag/gen_test.go (go test ./diag -run
# TestGenerateTestdata -update) with fixed seeds. The edge cases below are
# built from those files in the same way as reference_test.go builds them.
#
# Output: one Go composite literal per line, {case, variable, measure, value},
# with values printed to 15 significant digits and NA as math.NaN().
suppressMessages(library(posterior))
cat(sprintf("// %s, posterior %s\n", R.version.string, packageVersion("posterior")))

dir <- "diag/testdata"
if (!dir.exists(dir)) dir <- "."

# as_matrix turns one variable of a long data frame into an iterations x
# chains matrix, posterior's layout for a single variable.
as_matrix <- function(df, var) {
  chains <- sort(unique(df$chain))
  sapply(chains, function(c) {
    d <- df[df$chain == c, ]
    d[[var]][order(d$draw)]
  })
}

# The paper's ESS (eq. 9): C*S*min(1, Var/B), Var and B as in rhat_basic
# without splitting. NA where posterior's rhat would be NA.
ess_paper <- function(x) {
  if (posterior:::should_return_NA(x) || ncol(x) < 2 || nrow(x) < 2) return(NA_real_)
  S <- nrow(x); C <- ncol(x)
  B <- S * var(colMeans(x))
  W <- mean(apply(x, 2, var))
  V <- (S - 1) / S * W + B / S
  C * S * min(1, V / B)
}

measures <- function(x) {
  q <- quantile2(x, c(0.05, 0.95))
  c(
    mean = mean(x),
    median = median(x),
    sd = sd(x),
    mad = mad(x),
    q5 = unname(q[1]),
    q95 = unname(q[2]),
    rhat = rhat(x),
    rhat_bulk = posterior:::.rhat(posterior:::z_scale(posterior:::.split_chains(x))),
    rhat_tail = posterior:::.rhat(posterior:::z_scale(posterior:::.split_chains(posterior:::fold_draws(x)))),
    rhat_basic = rhat_basic(x),
    rhat_paper = rhat_basic(x, split = FALSE),
    ess_bulk = ess_bulk(x),
    ess_tail = ess_tail(x),
    ess_q5 = unname(ess_quantile(x, 0.05)),
    ess_q95 = unname(ess_quantile(x, 0.95)),
    ess_median = unname(ess_quantile(x, 0.5)),
    ess_mean = ess_mean(x),
    ess_basic = ess_basic(x),
    ess_paper = ess_paper(x),
    mcse_mean = mcse_mean(x)
  )
}

fmt <- function(v) {
  if (is.na(v)) return("math.NaN()")
  if (is.infinite(v)) return(if (v > 0) "math.Inf(1)" else "math.Inf(-1)")
  sprintf("%.15g", v)
}

emit <- function(case, var, x) {
  m <- suppressWarnings(measures(x))
  for (k in names(m)) {
    cat(sprintf("\t{%s, %s, %s, %s},\n", deparse(case), deparse(var), deparse(k), fmt(m[[k]])))
  }
}

for (f in c("even", "odd")) {
  df <- read.csv(file.path(dir, sprintf("draws_%s.csv", f)))
  for (v in setdiff(names(df), c("chain", "draw"))) {
    emit(f, v, as_matrix(df, v))
  }
}

even <- read.csv(file.path(dir, "draws_even.csv"))
# A single chain: chain 1 only.
for (v in c("iid", "ar1")) emit("single", v, as_matrix(even, v)[, 1, drop = FALSE])
# Short chains: the first 6 and the first 7 draws of each chain.
for (n in c(6, 7)) emit(sprintf("short%d", n), "ar1", as_matrix(even, "ar1")[1:n, , drop = FALSE])
# Infinite draws: iid with draw 1 of chain 1 set to +Inf and draw 10 of chain 2 to -Inf.
x <- as_matrix(even, "iid"); x[1, 1] <- Inf; x[10, 2] <- -Inf
emit("inf", "iid", x)
# Chains that are each constant: chain c is c repeated 10 times.
emit("steps", "x", matrix(rep(1:4, each = 10), 10, 4))
# Constant draws and a NaN.
emit("constant", "x", matrix(2.5, 10, 4))
x <- as_matrix(even, "iid"); x[5, 3] <- NA
emit("nan", "iid", x)
