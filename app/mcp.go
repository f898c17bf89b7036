package app

import (
	"context"
	"errors"
)

// runMCP is `lets mcp`. Being written (issue #13).
func runMCP(ctx context.Context, env *Env, args []string) error {
	return errors.New("lets mcp is not finished yet")
}
