package lets

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/logging"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// fakeExeWatch watches a temp file on a fake clock; looked receives once
// per look at the file.
func fakeExeWatch(t *testing.T, self func() (string, error)) (*exeWatch, *clock.Fake, string, <-chan struct{}, *testutil.SyncBuffer) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lets")
	if err := os.WriteFile(path, []byte("program"), 0o755); err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	looked := make(chan struct{}, 1)
	logs := &testutil.SyncBuffer{}
	w := &exeWatch{
		path:  path,
		clock: clk,
		every: exeWatchEvery,
		stat: func(p string) (fs.FileInfo, error) {
			fi, err := os.Stat(p)
			looked <- struct{}{}
			return fi, err
		},
		self: self,
		log:  logging.New(logs, nil, 0),
	}
	return w, clk, path, looked, logs
}

// tick moves the fake clock one period and waits for the look.
func tick(t *testing.T, clk *clock.Fake, looked <-chan struct{}) {
	t.Helper()
	clk.Advance(exeWatchEvery)
	testutil.Wait(t, "the watcher to look at the program file", looked)
}

// Issue #21: a running Lets whose program file is removed quits (its Run
// returns nil, which stops Lets as Quit does), after two looks in a row
// find it missing; while it is there, Lets runs on.
func TestExeWatchEndsWhenTheProgramIsRemoved(t *testing.T) {
	w, clk, path, looked, logs := fakeExeWatch(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		tick(t, clk, looked)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	tick(t, clk, looked)
	select {
	case err := <-done:
		t.Fatalf("ended after one missing look: %v", err)
	default:
	}
	tick(t, clk, looked)
	if err := testutil.Wait(t, "the watcher to end", done); err != nil {
		t.Fatalf("Run: %v, want nil (a clean stop)", err)
	}
	if !strings.Contains(logs.String(), "the Lets program was removed") || !strings.Contains(logs.String(), path) {
		t.Errorf("log: %s", logs.String())
	}
}

// A file missing for one look only (an installer replacing it) and an
// update (the running program's file was replaced: /proc/self/exe says
// "(deleted)" but the path is there) do not end Lets; the update is
// noted once. Context cancel ends Run with nil.
func TestExeWatchKeepsRunningThroughAnUpdate(t *testing.T) {
	w, clk, path, looked, logs := fakeExeWatch(t, func() (string, error) { return "/usr/bin/lets (deleted)", nil })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path, path+".old"); err != nil {
		t.Fatal(err)
	}
	tick(t, clk, looked)
	if err := os.WriteFile(path, []byte("new program"), 0o755); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		tick(t, clk, looked)
	}
	select {
	case err := <-done:
		t.Fatalf("ended: %v", err)
	default:
	}
	if n := strings.Count(logs.String(), "a new version of Lets was installed"); n != 1 {
		t.Errorf("update noted %d times, want once:\n%s", n, logs.String())
	}
	cancel()
	if err := testutil.Wait(t, "Run to end with its context", done); err != nil {
		t.Fatalf("Run: %v", err)
	}
}
