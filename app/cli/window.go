package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/lets-app/lets/app/window"
	"github.com/lets-app/lets/backend/logging"
)

// runWindow is `lets window`, the process of one native window. Lets starts
// it itself (one per window) with what to show on stdin; run by hand it
// explains that.
func runWindow(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("window")
	if err := parseFlags(env, "window", fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	level, _ := logging.ParseLevel(env.Getenv(logging.LevelEnv))
	return windowExit(env, window.Main(ctx, window.Env{Stdin: env.Input(), Getenv: env.Getenv, Log: logging.New(env.Stderr, nil, level)}))
}

// windowExit gives a window that could not start GTK its own exit status,
// window.ExitNoGTK: the app starts the window once more for that (the
// display may have been busy) and for nothing else.
func windowExit(env *Env, err error) error {
	if errors.Is(err, window.ErrNoGTK) {
		fmt.Fprintf(env.Stderr, "lets window: %v\n", err)
		return exitError{code: window.ExitNoGTK}
	}
	return err
}
