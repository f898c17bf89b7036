package cli

import (
	"context"

	"github.com/lets-app/lets/app/hookcmd"
)

// runHook is `lets hook <event>` in the full program; the `lets` front
// program runs the same hookcmd.Run without starting this one.
func runHook(ctx context.Context, env *Env, args []string) error {
	hookcmd.Run(ctx, hookcmd.IO{Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr, Getenv: env.Getenv}, args)
	return nil
}

// claudePID is the Claude Code process this command runs under (its
// parent, skipping a shell), or 0 off Linux.
func claudePID() int { return hookcmd.ClaudePID() }
