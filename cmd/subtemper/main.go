// Command subtemper samples Gaussian-process hyperparameters and
// multivariate-normal means with tempering by subsampling, computes
// convergence diagnostics of any chains, and reproduces the paper's
// experiments. Run `subtemper help` for the commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal, restore the default handling: commands stop
	// cleanly and write what they have, and a second Ctrl-C kills at once.
	go func() { <-ctx.Done(); stop() }()
	code := run(ctx, os.Args[1:], &stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr, errIsTerminal: isTerminal(os.Stderr)})
	stop()
	os.Exit(code)
}
