# Helpers shared by run_stan.R and check_logdens.R (source()d, not run).

# script_dir returns the directory of the running Rscript file.
script_dir <- function() {
  a <- commandArgs(trailingOnly = FALSE)
  f <- sub("^--file=", "", a[grep("^--file=", a)])
  if (length(f) == 0) return(getwd())
  dirname(normalizePath(f))
}

# parse_args turns --key value / --flag arguments into a named list over defaults.
parse_args <- function(defaults) {
  a <- commandArgs(trailingOnly = TRUE)
  out <- defaults
  i <- 1
  while (i <= length(a)) {
    k <- sub("^--", "", a[i])
    if (!(k %in% names(defaults))) stop("unknown argument ", a[i], "; known: ", paste(names(defaults), collapse = ", "))
    if (is.logical(defaults[[k]])) {
      out[[k]] <- TRUE
      i <- i + 1
    } else {
      if (i == length(a)) stop("argument ", a[i], " needs a value")
      v <- a[i + 1]
      out[[k]] <- if (is.numeric(defaults[[k]])) as.numeric(v) else v
      i <- i + 2
    }
  }
  out
}

# read_gp_data reads a CSV as subtemper gp --data does: a header row, the
# target column (named, or the last), every other column an input. With
# standardize, inputs and target are centred and divided by their sample
# standard deviation (n - 1), as gp.Standardize does.
read_gp_data <- function(path, target = "", standardize = FALSE) {
  df <- read.csv(path, check.names = FALSE)
  tcol <- if (target == "") ncol(df) else match(target, names(df))
  if (is.na(tcol)) stop("no target column ", target, " in ", path)
  X <- as.matrix(df[, -tcol, drop = FALSE])
  y <- as.numeric(df[[tcol]])
  std <- list(x_mean = rep(0, ncol(X)), x_sd = rep(1, ncol(X)), y_mean = 0, y_sd = 1)
  if (standardize) {
    std$x_mean <- colMeans(X)
    std$x_sd <- apply(X, 2, sd)
    std$y_mean <- mean(y)
    std$y_sd <- sd(y)
    X <- sweep(sweep(X, 2, std$x_mean), 2, std$x_sd, "/")
    y <- (y - std$y_mean) / std$y_sd
  }
  list(X = X, y = y, names = colnames(X), target = names(df)[tcol], std = std,
       standardized = standardize)
}

# stan_data builds the data list of gp.stan under the paper's prior, with
# the kernel "se" or "matern52".
stan_data <- function(d, jitter = 0, kernel = "se") {
  if (!(kernel %in% c("se", "matern52"))) stop("gp.stan has kernels se and matern52, not ", kernel)
  list(N = nrow(d$X), D = ncol(d$X), x = d$X, y = d$y,
       mu0 = 0.5, s0 = 1, af = 4, bf = 1, an = 2, bn = 2, jitter = jitter,
       matern52 = as.integer(kernel == "matern52"))
}

# compile_gp compiles gp.stan once (rstan caches gp.rds beside it).
compile_gp <- function() {
  suppressPackageStartupMessages(library(rstan))
  rstan_options(auto_write = TRUE)
  # Debian's r-cran-bh ships no include/ folder (the headers live in
  # /usr/include/boost, from libboost-dev), so rstan finds no Boost: point it there.
  if (!file.exists(rstan_options("boost_lib")) && file.exists("/usr/include/boost/version.hpp"))
    rstan_options(boost_lib = "/usr/include")
  stan_model(file.path(script_dir(), "gp.stan"))
}
