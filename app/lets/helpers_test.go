package lets

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/lets-app/lets/backend/testenv/letstest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// testEnv is a person's environment in a fresh data folder, with its
// output kept (backend/testenv/letstest).
type testEnv struct {
	*Env
	out, err *testutil.SyncBuffer
	home     string
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	le := letstest.New(t)
	return &testEnv{
		Env:  &Env{Stdout: le.Out, Stderr: le.Err, Getenv: le.Getenv},
		out:  le.Out,
		err:  le.Err,
		home: le.Home,
	}
}

// startProcess provisions p and runs it until the returned stop is called
// (or the test ends); it returns once p says it is running.
func startProcess(t *testing.T, e *testEnv, p *Process) (stop func() error) {
	t.Helper()
	if err := p.Provision(context.Background()); err != nil {
		t.Fatalf("Provision: %v\n%s", err, e.err.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			err = testutil.Wait(t, "the process stops", done)
			p.Cleanup()
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	testutil.Eventually(t, "the process runs", func() bool {
		select {
		case err := <-done:
			done <- err // for stop
			t.Fatalf("the process ended early: %v\n%s%s", err, e.out.String(), e.err.String())
		default:
		}
		return strings.Contains(e.out.String(), "Press Ctrl+C")
	})
	return stop
}
