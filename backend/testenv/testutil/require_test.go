package testutil

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
)

// recordingTB stands in for a test: it records how the helper stopped it.
// Fatal and Skip end the goroutine, as they do in a real test.
type recordingTB struct {
	testing.TB // the real test, for methods the helper does not call
	mu         sync.Mutex
	failed     string
	skipped    string
	logged     string
	errored    bool
	errorText  string
}

func (r *recordingTB) Helper()      {}
func (r *recordingTB) Name() string { return "TestSomethingThatNeedsATool" }
func (r *recordingTB) Fatal(args ...any) {
	r.Fatalf("%s", fmt.Sprint(args...))
}
func (r *recordingTB) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.failed = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	panic(stopTest{})
}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	r.errored, r.errorText = true, fmt.Sprintf(format, args...)
	r.mu.Unlock()
}
func (r *recordingTB) Logf(format string, args ...any) {
	r.mu.Lock()
	r.logged = fmt.Sprintf(format, args...)
	r.mu.Unlock()
}
func (r *recordingTB) Skipf(format string, args ...any) {
	r.mu.Lock()
	r.skipped = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	panic(stopTest{})
}

type stopTest struct{}

// run calls f with a recordingTB and returns how it ended.
func run(t *testing.T, f func(tb testing.TB)) (failed, skipped string) {
	t.Helper()
	r := runTB(t, f)
	return r.failed, r.skipped
}

func runTB(t *testing.T, f func(tb testing.TB)) *recordingTB {
	t.Helper()
	r := &recordingTB{TB: t}
	func() {
		defer func() {
			if v := recover(); v != nil {
				if _, ok := v.(stopTest); !ok {
					panic(v)
				}
			}
		}()
		f(r)
	}()
	return r
}

func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func notFound(string) (string, error) { return "", errors.New("not found") }

// Point: outside make test a missing tool skips, loudly on stderr, and says
// how to install it.
func TestCommandMissingSkipsLoudlyOutsideMakeTest(t *testing.T) {
	var loud strings.Builder
	failed, skipped := run(t, func(tb testing.TB) {
		command(tb, notFound, envOf(nil), &loud, "python3")
		tb.Fatal("command returned although python3 is missing")
	})
	if failed != "" {
		t.Fatalf("should skip, not fail: %s", failed)
	}
	if !strings.Contains(skipped, "python3 is not installed") || !strings.Contains(skipped, "apt package python3") {
		t.Errorf("skip message should name the tool and the fix: %q", skipped)
	}
	if !strings.Contains(loud.String(), "!!! SKIPPING TestSomethingThatNeedsATool") {
		t.Errorf("the skip should be printed loudly on stderr: %q", loud.String())
	}
}

// Point: under LETS_REQUIRE_TOOLS=1 (make test, CI) a missing tool fails
// the test with the reason instead of skipping.
func TestCommandMissingFailsUnderRequireTools(t *testing.T) {
	var loud strings.Builder
	failed, skipped := run(t, func(tb testing.TB) {
		command(tb, notFound, envOf(map[string]string{RequireToolsEnv: "1"}), &loud, "chromium", "chromium-browser")
	})
	if skipped != "" {
		t.Fatalf("should fail, not skip: %s", skipped)
	}
	for _, want := range []string{"chromium is not installed", "chromium, chromium-browser", "apt package chromium", RequireToolsEnv + "=1"} {
		if !strings.Contains(failed, want) {
			t.Errorf("failure should mention %q: %q", want, failed)
		}
	}
}

// LETS_REQUIRE_SHARED does not make a missing tool fatal, nor the reverse:
// each variable covers its own kind of precondition.
func TestMissingHonoursOnlyItsOwnVariable(t *testing.T) {
	var loud strings.Builder
	failed, skipped := run(t, func(tb testing.TB) {
		missing(tb, envOf(map[string]string{RequireToolsEnv: "1"}), &loud, RequireSharedEnv, "../shared is absent", "clone it beside the repository")
	})
	if failed != "" || !strings.Contains(skipped, "../shared is absent") {
		t.Fatalf("want a skip for shared data under %s only: failed=%q skipped=%q", RequireToolsEnv, failed, skipped)
	}
	failed, _ = run(t, func(tb testing.TB) {
		missing(tb, envOf(map[string]string{RequireSharedEnv: "1"}), &loud, RequireSharedEnv, "../shared is absent", "clone it beside the repository")
	})
	if !strings.Contains(failed, "../shared is absent") {
		t.Fatalf("want a failure under %s=1, got %q", RequireSharedEnv, failed)
	}
}

func TestCommandFindsTheFirstInstalledName(t *testing.T) {
	look := func(name string) (string, error) {
		if name == "chromium-browser" {
			return "/usr/bin/chromium-browser", nil
		}
		return "", errors.New("not found")
	}
	var got string
	failed, skipped := run(t, func(tb testing.TB) {
		got = command(tb, look, envOf(map[string]string{RequireToolsEnv: "1"}), &strings.Builder{}, "chromium", "chromium-browser")
	})
	if failed != "" || skipped != "" || got != "/usr/bin/chromium-browser" {
		t.Fatalf("got %q (failed=%q skipped=%q)", got, failed, skipped)
	}
}

// Point: a missing loopback alias is a tool check like the others: it
// fails under LETS_REQUIRE_TOOLS=1 and skips loudly without it.
func TestLoopbackAliasMissingFailsUnderRequireTools(t *testing.T) {
	noAlias := func(network, addr string) (net.Listener, error) {
		return nil, errors.New("bind: cannot assign requested address")
	}
	failed, _ := run(t, func(tb testing.TB) {
		loopbackAlias(tb, noAlias, envOf(map[string]string{RequireToolsEnv: "1"}), &strings.Builder{}, "127.0.0.2")
	})
	if !strings.Contains(failed, "no loopback address 127.0.0.2") {
		t.Fatalf("want a failure naming the address, got %q", failed)
	}
	failed, skipped := run(t, func(tb testing.TB) {
		loopbackAlias(tb, noAlias, envOf(nil), &strings.Builder{}, "127.0.0.2")
	})
	if failed != "" || !strings.Contains(skipped, "127.0.0.2") {
		t.Fatalf("want a skip outside make test: failed=%q skipped=%q", failed, skipped)
	}
	// A non-loopback address is refused outright: tests stay on loopback.
	failed, _ = run(t, func(tb testing.TB) {
		loopbackAlias(tb, net.Listen, envOf(nil), &strings.Builder{}, "192.0.2.1")
	})
	if !strings.Contains(failed, "only use IPv4 loopback") {
		t.Fatalf("a non-loopback address must be refused: %q", failed)
	}
	// 127.0.0.1 is always there.
	failed, skipped = run(t, func(tb testing.TB) {
		loopbackAlias(tb, net.Listen, envOf(map[string]string{RequireToolsEnv: "1"}), &strings.Builder{}, "127.0.0.1")
	})
	if failed != "" || skipped != "" {
		t.Fatalf("127.0.0.1: failed=%q skipped=%q", failed, skipped)
	}
}

// Point: a test that can still check something (our own schemas) goes on
// after a loud note outside make test, and fails under the variable.
func TestDegradedGoesOnOutsideMakeTestAndFailsInside(t *testing.T) {
	var loud strings.Builder
	went := false
	r := runTB(t, func(tb testing.TB) {
		degraded(tb, envOf(nil), &loud, RequireSharedEnv, "reference schema absent", "validating against schemas/ only")
		went = true
	})
	if !went || r.failed != "" || r.skipped != "" || !strings.Contains(r.logged, "PARTLY SKIPPED: reference schema absent") {
		t.Fatalf("want the test to go on with a note: went=%v %+v", went, r)
	}
	if !strings.Contains(loud.String(), "!!! PARTLY SKIPPING") {
		t.Errorf("the gap should be printed loudly: %q", loud.String())
	}
	went = false
	r = runTB(t, func(tb testing.TB) {
		degraded(tb, envOf(map[string]string{RequireSharedEnv: "1"}), &loud, RequireSharedEnv, "reference schema absent", "clone ../shared")
		went = true
	})
	if went || !strings.Contains(r.failed, "reference schema absent") {
		t.Fatalf("want a failure under %s=1: went=%v %+v", RequireSharedEnv, went, r)
	}
}
