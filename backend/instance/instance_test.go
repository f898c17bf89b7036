package instance

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

func TestSecondAcquireIsBusyAndNamesHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lets.lock")
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	first, err := Acquire(path, Holder{PID: 4321, Command: "serve", StartedAt: start})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(path, Holder{PID: 1, Command: "serve"})
	if !IsBusy(err) {
		t.Fatalf("second acquire: %v, want busy", err)
	}
	if !strings.Contains(err.Error(), "pid 4321") || !strings.Contains(err.Error(), "lets serve") {
		t.Fatalf("busy error should say who holds the lock: %q", err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("lock file mode %o", fi.Mode().Perm())
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	again, err := Acquire(path, Holder{PID: 2, Command: "serve"})
	if err != nil {
		t.Fatalf("after release the lock must be free: %v", err)
	}
	_ = again.Release()
	_ = again.Release() // releasing twice is harmless
}

// TestLockHeldByAnotherProcess checks contention across processes, which is
// what really happens when someone starts Lets twice.
func TestLockHeldByAnotherProcess(t *testing.T) {
	if os.Getenv("LETS_LOCK_CHILD") != "" {
		l, err := Acquire(os.Getenv("LETS_LOCK_CHILD"), Holder{PID: os.Getpid(), Command: "child"})
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("locked\n")
		// Hold the lock until the parent kills us (or, if it dies first,
		// closes our stdin).
		_, _ = io.Copy(io.Discard, os.Stdin)
		_ = l.Release()
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), "lets.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHeldByAnotherProcess$")
	cmd.Env = append(os.Environ(), "LETS_LOCK_CHILD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	buf := make([]byte, 7)
	ready := make(chan error, 1)
	go func() { _, err := out.Read(buf); ready <- err }()
	if err := testutil.Wait(t, "the child to take the lock", ready); err != nil {
		t.Fatalf("the child did not take the lock: %v", err)
	}
	_, err = Acquire(path, Holder{PID: os.Getpid(), Command: "serve"})
	if !IsBusy(err) || !strings.Contains(err.Error(), "lets child") {
		t.Fatalf("got %v, want busy naming the child", err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	// The kernel drops the lock of a dead process: no stale lock problem.
	l, err := Acquire(path, Holder{PID: os.Getpid(), Command: "serve"})
	if err != nil {
		t.Fatalf("lock of a killed process must be free: %v", err)
	}
	_ = l.Release()
}
