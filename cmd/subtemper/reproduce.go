package main

import (
	"context"
	"errors"
)

// cmdReproduce runs the paper's experiment grid. (Placeholder: implemented
// with the bench package.)
func cmdReproduce(ctx context.Context, args []string, io *stdio) error {
	return errors.New("not implemented yet")
}

// cmdMerge merges the shards of a sharded reproduce run. (Placeholder.)
func cmdMerge(ctx context.Context, args []string, io *stdio) error {
	return errors.New("not implemented yet")
}
