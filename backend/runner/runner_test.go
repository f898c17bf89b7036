package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

func newRunner(t *testing.T) *Runner {
	t.Helper()
	return New(t.TempDir(), func(k string) string {
		return map[string]string{"PATH": os.Getenv("PATH"), "HOME": "/nonexistent-home", "LANG": "C.UTF-8", "SECRET": "x"}[k]
	})
}

// runPastLimit runs req on r and lets the run's time limit pass only once
// ready holds: the program has got as far as the test needs. The limit is
// timed by a fake clock the test owns. With the wall clock the limit raced
// the machine's load (CI r10: under a load of 50 a Python program had not
// printed its first line within its 3 s).
func runPastLimit(t *testing.T, r *Runner, req Request, what string, ready func() bool) (Result, error) {
	t.Helper()
	fc := clock.NewFake(time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC))
	r.SetClock(fc)
	type answer struct {
		res Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := r.Run(context.Background(), "demo", req)
		done <- answer{res, err}
	}()
	var early *answer
	testutil.Eventually(t, what, func() bool {
		select {
		case a := <-done:
			early = &a
			return true
		default:
		}
		return ready()
	})
	if early != nil {
		t.Fatalf("the run answered before %s: %+v (%v)", what, early.res, early.err)
	}
	fc.Advance(MaxTimeout + time.Second)
	a := testutil.Wait(t, "the run's answer once its time limit passed", done)
	return a.res, a.err
}

// exists reports whether path is there and not empty.
func exists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Size() > 0
}

func TestRunPassesStdinAndCodeAsAFile(t *testing.T) {
	r := newRunner(t)
	res, err := r.Run(context.Background(), "demo", Request{Language: "shell", Code: `read x; echo "got $x"; echo "$0" | grep -q 'main.sh$' && echo file; env`, Stdin: "hi\n"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Stdout, "got hi\nfile\n") || res.ExitCode != 0 || res.TimedOut {
		t.Fatalf("%+v", res)
	}
	if strings.Contains(res.Stdout, "SECRET") || !strings.Contains(res.Stdout, "HOME=/nonexistent-home") {
		t.Fatalf("environment not minimal: %s", res.Stdout)
	}
	// The working folder is removed afterwards.
	entries, _ := os.ReadDir(filepath.Join(r.dir, "demo"))
	if len(entries) != 0 {
		t.Fatalf("left behind %v", entries)
	}
}

func TestRunNoShellInterpolationOfTheCode(t *testing.T) {
	testutil.Command(t, "python3")
	r := newRunner(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	// For python the code is a file: shell syntax in it is just Python.
	res, err := r.Run(context.Background(), "demo", Request{Language: "python", Code: "print('a'); # $(touch " + marker + ")"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "a\n" {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the code was interpolated into a shell")
	}
}

// TestRunTimeoutKillsTheProcessGroup: a run past its timeout is reported
// as timed out, and the children it started in the background die with it.
func TestRunTimeoutKillsTheProcessGroup(t *testing.T) {
	r := newRunner(t)
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	res, err := runPastLimit(t, r, Request{Language: "shell", Code: "sleep 30 & echo $! > " + pidFile + "; sleep 30", TimeoutMs: 1000},
		"the run has started its background child", func() bool { return exists(pidFile) })
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != -1 {
		t.Fatalf("%+v", res)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the run did not start its background child: %v", err)
	}
	pid := strings.TrimSpace(string(b))
	// The reaper killed it; its exit (and its reaping) follows on its
	// own. contain_linux_test.go covers children that leave the group.
	testutil.Eventually(t, "the background child "+pid+" is dead", func() bool {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return true
		}
		_, after, _ := strings.Cut(string(stat), ") ")
		return strings.HasPrefix(after, "Z")
	})
}

func TestRunCapsOutput(t *testing.T) {
	r := newRunner(t)
	res, err := r.Run(context.Background(), "demo", Request{Language: "shell", Code: "head -c 3000000 /dev/zero | tr '\\0' a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != MaxOutput || !res.Truncated {
		t.Fatalf("stdout %d bytes, truncated %v", len(res.Stdout), res.Truncated)
	}
}

// TestRunLimitsConcurrencyPerUnique: with MaxConcurrent runs of a unique
// going, a third is refused and another unique still runs; when they end
// the unique may run again. The two runs hold until the test cancels them.
func TestRunLimitsConcurrencyPerUnique(t *testing.T) {
	r := newRunner(t)
	hold, release := context.WithCancel(context.Background())
	defer release()
	var wg sync.WaitGroup
	errs := make(chan error, MaxConcurrent)
	for range MaxConcurrent {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.Run(hold, "demo", Request{Language: "shell", Code: "sleep 30"})
			errs <- err
		}()
	}
	testutil.Eventually(t, "both runs of demo are going", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.running["demo"] == MaxConcurrent
	})
	if _, err := r.Run(context.Background(), "demo", Request{Language: "shell", Code: "true"}); !errors.Is(err, ErrBusy) {
		t.Fatalf("third run: %v, want ErrBusy", err)
	}
	if _, err := r.Run(context.Background(), "other", Request{Language: "shell", Code: "true"}); err != nil {
		t.Fatalf("another unique is not limited: %v", err)
	}
	// Cancelled runs say so, whether the cancel came before their
	// program started or while it ran (it used to depend on timing).
	release()
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("a cancelled run: %v, want context.Canceled", err)
		}
	}
	if _, err := r.Run(context.Background(), "demo", Request{Language: "shell", Code: "true"}); err != nil {
		t.Fatalf("demo after its runs ended: %v", err)
	}
}

func TestRunRefusesBadRequests(t *testing.T) {
	r := newRunner(t)
	for name, tc := range map[string]struct {
		unique string
		req    Request
		want   error
	}{
		"language": {"demo", Request{Language: "ruby"}, ErrUnknownLanguage},
		"name":     {"../x", Request{Language: "shell"}, ErrBadRequest},
		"timeout":  {"demo", Request{Language: "shell", TimeoutMs: -1}, ErrBadRequest},
		"code":     {"demo", Request{Language: "shell", Code: strings.Repeat("a", MaxCode+1)}, ErrBadRequest},
	} {
		if _, err := r.Run(context.Background(), tc.unique, tc.req); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	if _, to, _ := Check(Request{Language: "shell", TimeoutMs: 999999}); to != MaxTimeout {
		t.Errorf("timeout capped to %v", to)
	}
}

func TestPermissionsKeyedByUniqueAndCommit(t *testing.T) {
	p := OpenPermissions(filepath.Join(t.TempDir(), "permissions.json"))
	now := time.Unix(1000, 0)
	if p.Allowed("graph", "c1", "python") {
		t.Fatal("nothing is allowed at first")
	}
	if err := p.Allow("graph", "c1", "python", now); err != nil {
		t.Fatal(err)
	}
	if !p.Allowed("graph", "c1", "python") || p.Allowed("graph", "c1", "shell") || p.Allowed("graph", "c2", "python") || p.Allowed("other", "c1", "python") {
		t.Fatal("grant does not match exactly unique + commit + language")
	}
	fi, _ := os.Stat(p.path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %o", fi.Mode().Perm())
	}
	// An update (new commit) asks again and replaces the old grant.
	_ = p.Allow("graph", "c2", "shell", now)
	if p.Allowed("graph", "c1", "python") || !p.Allowed("graph", "c2", "shell") {
		t.Fatal("a new commit must replace the old grant")
	}
	_ = p.Revoke("graph")
	if p.Allowed("graph", "c2", "shell") {
		t.Fatal("revoke kept the grant")
	}
	// A damaged file allows nothing and is replaced by the next answer.
	_ = os.WriteFile(p.path, []byte("{broken"), 0o600)
	if p.Allowed("graph", "c2", "shell") {
		t.Fatal("a damaged file must allow nothing")
	}
	if err := p.Allow("graph", "c3", "python", now); err != nil || !p.Allowed("graph", "c3", "python") {
		t.Fatalf("rewrite after damage: %v", err)
	}
}

// FuzzPermissionsFile: permissions.json may be edited or damaged by hand;
// reading it never panics and never allows what it does not say.
func FuzzPermissionsFile(f *testing.F) {
	f.Add([]byte(`{"exec":{"graph":{"commit":"c1","languages":["python"]}}}`))
	f.Add([]byte(`{"exec":null}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"exec":{"graph":{"commit":"c1","languages":"python"}}}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "permissions.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		p := OpenPermissions(path)
		allowed := p.Allowed("graph", "c1", "python")
		if allowed && !strings.Contains(string(data), "python") {
			t.Fatal("allowed a language the file does not name")
		}
		if err := p.Allow("graph", "c9", "shell", time.Unix(1, 0)); err != nil {
			t.Fatal(err)
		}
		if !p.Allowed("graph", "c9", "shell") {
			t.Fatal("an answer was not remembered")
		}
	})
}
