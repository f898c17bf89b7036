package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/lets-app/lets/app/hookcmd"
	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/claudesetup"
	"github.com/lets-app/lets/backend/logging"
	"github.com/lets-app/lets/backend/textsafe"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// codexHookTimeout is the timeout (seconds) each Codex hook gets: Codex's
// own default, long enough for a PermissionRequest to wait for a press.
const codexHookTimeout = 600

// codexEndHookTimeout is the timeout (seconds) of the SessionEnd and
// Interrupt hooks: Codex 0.169 caps those two at 3 s and, asked for more,
// shows a warning at every start ("clamping … hook timeout to 3s").
const codexEndHookTimeout = 3

// codexHookTimeoutFor is the timeout of the hook for event ev.
func codexHookTimeoutFor(ev string) int {
	if ev == claudehook.EventSessionEnd || ev == claudehook.EventInterrupt {
		return codexEndHookTimeout
	}
	return codexHookTimeout
}

// codexHookArgs are the `-c hooks.<Event>=…` arguments that hand Codex
// Lets' hooks for this session only (never written to ~/.codex): one per
// event Lets handles, the same bytes at every launch, so Codex asks the
// person to review and trust them once.
func codexHookArgs(letsPath string) []string {
	var args []string
	for _, ev := range claudehook.Codex.Events() {
		command := claudesetup.ShellQuote(letsPath) + " hook " + hookcmd.CodexArg + " " + ev
		args = append(args, "-c", fmt.Sprintf("hooks.%s=[{hooks=[{type=%q,command=%s,timeout=%d}]}]", ev, "command", strconv.Quote(command), codexHookTimeoutFor(ev)))
	}
	return args
}

// codexRun runs the codex program with args and env, on the terminal,
// and returns its exit code. Env.RunCodex replaces it in tests.
func codexRun(ctx context.Context, path string, args, env []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, stdin, stdout, stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("run codex: %w", err)
	}
	return 0, nil
}

// runCodex is `lets codex [--label L] [-- codex args]`: Codex with Lets'
// hooks for this session, shown on the pads under its label for as long
// as it runs (a Wire lease; closing Codex clears its scene). Plain `codex`
// stays outside Lets.
func runCodex(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("codex")
	label := fs.String("label", "", "the name of this session on the pads and phones (default: the folder's name)")
	if err := parseFlags(env, "codex", fs, args); err != nil {
		return err
	}
	codex := codexOnPath(env.Getenv)
	if codex == "" {
		return errors.New("Codex is not installed here (no `codex` on your PATH); install it with `npm install -g @openai/codex`, then run `lets codex` again")
	}
	exe, err := lets.Executable(env.Getenv)
	if err != nil {
		return err
	}
	log := logging.New(env.Stderr, nil, slog.LevelWarn)
	name := textsafe.Line(*label, 64)
	cwd, _ := os.Getwd()
	if name == "" {
		name = textsafe.Line(claudehook.Label(cwd), 64)
	}

	// The lease: the session lives on the pads while Codex runs.
	leaseID := wireclient.NewID()
	var lease *wireclient.Lease
	if wc, ok := hookcmd.Options(env.Getenv, log).Wire.(claudehook.WireClient); ok && wc.C != nil {
		meta := wire.MetadataOf("cwd", cwd)
		if name != "" {
			meta.Set("label", name)
		}
		// The client bounds the connect and the acknowledgement (2 s);
		// ctx is the lease's life.
		l, _, err := wc.C.Lease(ctx, wire.SessionLeaseCommand{LeaseID: leaseID, Metadata: meta})
		if err != nil {
			fmt.Fprintln(env.Stderr, "Lets is not running, so this Codex session is not on the pads; Codex works as usual.")
		} else {
			lease = l
			defer lease.Close()
		}
	}

	if isTerminal(env.Stdout) && name != "" {
		fmt.Fprintf(env.Stdout, "\x1b]0;%s · Codex\x07", name) // the terminal's title
	}
	childEnv := append(os.Environ(), hookcmd.CodexLeaseEnv+"="+leaseID, hookcmd.CodexLabelEnv+"="+name)
	if lease == nil {
		childEnv = childEnv[:len(childEnv)-2]
	}
	run := env.RunCodex
	if run == nil {
		run = codexRun
	}
	code, err := run(ctx, codex, append(codexHookArgs(exe), fs.Args()...), childEnv, env.Input(), env.Stdout, env.Stderr)
	if err != nil {
		return err
	}
	if code != 0 {
		return exitError{code: code}
	}
	return nil
}
