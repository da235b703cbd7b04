// Command subtemper samples Gaussian-process hyperparameters and
// multivariate-normal means with tempering by subsampling, computes
// convergence diagnostics of any chains, and reproduces the paper's
// experiments. Run `subtemper help` for the commands.
package main

import (
	"context"
	"os"

	"github.com/subtemper/subtemper/internal/interrupt"
)

func main() {
	// SIGINT and SIGTERM are caught from the packages' initialisation on
	// (package interrupt), so that one sent while the program starts
	// stops the command as any other does. After the first signal the
	// default handling is restored: commands stop cleanly and write what
	// they have, and a second Ctrl-C kills at once.
	ctx, stop := interrupt.Context(context.Background())
	code := run(ctx, os.Args[1:], &stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr, errIsTerminal: isTerminal(os.Stderr)})
	stop()
	os.Exit(code)
}
