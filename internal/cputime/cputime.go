// Package cputime reads the CPU time the process has used, all its
// threads together (a multithreaded BLAS's included), for run timings and
// for benchmarks that report it beside the wall-clock time.
package cputime
