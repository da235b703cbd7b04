#!/usr/bin/env Rscript
# Export R's real data sets for the k-fold comparison as CSV files with a
# header row, the target in the last column and only complete rows:
#
#   Rscript scripts/compare/export_r.R OUTDIR
#
# writes OUTDIR/mtcars.csv (mpg ~ the 10 other columns, 32 rows),
# OUTDIR/swiss.csv (Fertility ~ 5 columns, 47 rows), OUTDIR/airquality.csv
# (Ozone ~ Solar.R, Wind, Temp, Month, Day; the 111 complete rows) and
# OUTDIR/boston.csv (MASS::Boston, medv ~ 13 columns, 506 rows).
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) > 0) args[1] else "."
dir.create(out, showWarnings = FALSE, recursive = TRUE)
last <- function(d, target) d[, c(setdiff(names(d), target), target)]
put <- function(d, name) {
  d <- d[complete.cases(d), ]
  write.csv(d, file.path(out, paste0(name, ".csv")), row.names = FALSE, quote = FALSE)
}
put(last(mtcars, "mpg"), "mtcars")
put(last(swiss, "Fertility"), "swiss")
put(last(airquality, "Ozone"), "airquality")
put(last(MASS::Boston, "medv"), "boston")
