package cli

import (
	"context"
	"flag"
	"fmt"
	"runtime"
)

// newFlags makes a command's flag set; parseFlags turns its errors into
// usage errors.
func newFlags(name string) *flag.FlagSet {
	return flag.NewFlagSet("lets "+name, flag.ContinueOnError)
}

func runVersion(_ context.Context, env *Env, args []string) error {
	fs := newFlags("version")
	if err := parseFlags(env, "version", fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "lets %s (%s, %s/%s)\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

func runHelp(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("help")
	if err := parseFlags(env, "help", fs, args); err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
		printTopUsage(env.Stdout, true)
		return nil
	case 1:
		cmd, ok := lookup(fs.Arg(0))
		if !ok {
			return &UsageError{Msg: fmt.Sprintf("unknown command %q; run `lets help` for the list", fs.Arg(0)), flags: fs}
		}
		// Every command prints its own usage, flags included, for -h.
		return cmd.run(ctx, env, []string{"-h"})
	default:
		return &UsageError{Msg: fmt.Sprintf("unexpected argument %q", fs.Arg(1)), flags: fs}
	}
}
