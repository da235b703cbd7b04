// Package interrupt catches SIGINT and SIGTERM from the start of the
// program: its initialisation, which the Go runtime runs right after
// os/signal's and before most other packages' (and long before main),
// asks for them, so that a signal sent while the program starts is held
// for the command instead of killing the process by the signal's default
// action. Only a command's main package imports it, and calls Context
// once.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// caught holds the first SIGINT or SIGTERM, from the program's start.
var caught = make(chan os.Signal, 1)

func init() { signal.Notify(caught, os.Interrupt, syscall.SIGTERM) }

// Context returns a context that the first SIGINT or SIGTERM cancels,
// one received before Context was called included (the context is then
// cancelled at once). After that signal the default handling is
// restored: a second one kills the process. stop stops catching the
// signals and cancels the context, as signal.NotifyContext's stop does.
func Context(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	quit := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { signal.Stop(caught); close(quit) }) }
	go func() {
		select {
		case <-caught:
			signal.Stop(caught)
			cancel()
		case <-quit:
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		release()
		cancel()
	}
}
