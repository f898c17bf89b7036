//go:build !linux

package runner

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// runContained runs j in its own process group and, when ctx ends, kills
// that group. Without Linux's child subreaper a program that leaves the
// group (setsid) is not followed; contain_linux.go does better.
func (r *Runner) runContained(ctx context.Context, j job) (int, error) {
	cmd := exec.CommandContext(ctx, j.prog, j.src)
	cmd.Dir, cmd.Env = j.dir, j.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = j.stdin, j.stdout, j.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		return nil
	}
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exitErr):
		return exitErr.ExitCode(), nil
	default:
		return -1, err
	}
}
