package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// These tests run the real reaper: the runner re-executes this test binary
// through /proc/self/exe, and the package's init answers reaperArg.

// escapedPID reads the pid a run wrote to file (written whole with a
// rename, so a read never sees half a number).
func escapedPID(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the run did not start the process that detaches: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		t.Fatalf("pid file holds %q", b)
	}
	return pid
}

// gone says whether pid has ended: no /proc entry, or a zombie waiting to
// be reaped.
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, state, ok := parseStat(string(b))
	return ok && state == "Z"
}

// killLeft ends a process a failing test left behind, so a failure does
// not leave it running for minutes.
func killLeft(t *testing.T, pid *int) {
	t.Cleanup(func() {
		if *pid > 1 && !gone(*pid) {
			p, err := os.FindProcess(*pid)
			if err == nil {
				_ = p.Kill()
			}
		}
	})
}

// forEachContainment runs test with a runner that contains runs in a
// cgroup of their own (where one can be made here) and with one that
// uses the child subreaper and the /proc scan alone.
func forEachContainment(t *testing.T, test func(t *testing.T, r *Runner)) {
	t.Run("cgroup", func(t *testing.T) {
		requireCgroup(t)
		test(t, newRunner(t))
	})
	t.Run("scan", func(t *testing.T) {
		r := newRunner(t)
		r.noCgroup = true
		test(t, r)
	})
}

// sessionOf is the session id of pid (field 6 of /proc/<pid>/stat).
func sessionOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatalf("read the detached process %d: %v", pid, err)
	}
	f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+1:])
	sid, _ := strconv.Atoi(f[3])
	return sid
}

// detachNoWait is shell code that starts a child in a session of its own
// (setsid: out of the run's process group), which writes its pid to
// pidFile (whole, with a rename) and sleeps for five minutes.
func detachNoWait(pidFile string) string {
	return `setsid sh -c 'echo $$ > ` + pidFile + `.tmp; mv ` + pidFile + `.tmp ` + pidFile + `; exec sleep 300' </dev/null >/dev/null 2>&1 &`
}

// detach is detachNoWait, then waits until the child has written its pid.
func detach(pidFile string) string {
	return detachNoWait(pidFile) + "\nwhile [ ! -s " + pidFile + " ]; do sleep 0.01; done"
}

// TestRunTimeoutKillsASetsidChild: a shell run that starts a child in a
// new session (setsid: out of the run's process group) and then runs past
// its timeout is reported as timed out, and the setsid'd child is gone.
// Before the reaper, the group kill missed it and it slept on.
func TestRunTimeoutKillsASetsidChild(t *testing.T) {
	testutil.Command(t, "setsid")
	forEachContainment(t, func(t *testing.T, r *Runner) {
		pidFile := filepath.Join(t.TempDir(), "escaped.pid")
		var pid int
		killLeft(t, &pid)
		code := detach(pidFile) + `
echo started
echo yes > ` + pidFile + `.ready
sleep 30`
		res, err := runPastLimit(t, r, Request{Language: "shell", Code: code, TimeoutMs: 2000},
			"the run has detached its child and said so", func() bool { return exists(pidFile + ".ready") })
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimedOut || res.ExitCode != -1 || res.Stdout != "started\n" {
			t.Fatalf("%+v", res)
		}
		pid = escapedPID(t, pidFile)
		testutil.Eventually(t, "the setsid'd process "+strconv.Itoa(pid)+" is gone", func() bool { return gone(pid) })
	})
}

// TestRunTimeoutKillsAPythonDoubleForkDaemon: the classic daemon dance
// (fork, setsid in the child, fork again, the middle one exits so the
// grandchild is an orphan in its own session) does not outlive the run.
func TestRunTimeoutKillsAPythonDoubleForkDaemon(t *testing.T) {
	testutil.Command(t, "python3")
	forEachContainment(t, func(t *testing.T, r *Runner) {
		pidFile := filepath.Join(t.TempDir(), "daemon.pid")
		var pid int
		killLeft(t, &pid)
		code := `import os, sys, time
PID = ` + strconv.Quote(pidFile) + `
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        fd = os.open("/dev/null", os.O_RDWR)
        for n in (0, 1, 2):
            os.dup2(fd, n)
        with open(PID + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(PID + ".tmp", PID)
        time.sleep(300)
    os._exit(0)
os.wait()
while not os.path.exists(PID):
    time.sleep(0.01)
print("started", flush=True)
with open(PID + ".ready", "w") as f:
    f.write("yes")
time.sleep(30)
`
		res, err := runPastLimit(t, r, Request{Language: "python", Code: code, TimeoutMs: 3000},
			"the daemon has started and the run said so", func() bool { return exists(pidFile + ".ready") })
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimedOut || res.Stdout != "started\n" {
			t.Fatalf("%+v", res)
		}
		pid = escapedPID(t, pidFile)
		testutil.Eventually(t, "the double-forked daemon "+strconv.Itoa(pid)+" is gone", func() bool { return gone(pid) })
	})
}

// TestRunCancelKillsTheWholeTree: the caller going away (the window
// closed, the request ended) ends a setsid'd child just like a timeout.
func TestRunCancelKillsTheWholeTree(t *testing.T) {
	testutil.Command(t, "setsid")
	forEachContainment(t, func(t *testing.T, r *Runner) {
		pidFile := filepath.Join(t.TempDir(), "escaped.pid")
		var pid int
		killLeft(t, &pid)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := r.Run(ctx, "demo", Request{Language: "shell", Code: detachNoWait(pidFile) + `
sleep 30`, TimeoutMs: 30000})
			done <- err
		}()
		testutil.Eventually(t, "the run started its setsid'd child", func() bool {
			_, err := os.Stat(pidFile)
			return err == nil
		})
		pid = escapedPID(t, pidFile)
		if sid := sessionOf(t, pid); sid != pid {
			t.Fatalf("the child is in session %d, not its own: the test does not test setsid", sid)
		}
		cancel()
		if err := testutil.Wait(t, "the cancelled run returns", done); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled run: %v, want context.Canceled", err)
		}
		testutil.Eventually(t, "the setsid'd process "+strconv.Itoa(pid)+" is gone", func() bool { return gone(pid) })
	})
}

// TestRunThatFinishesLeavesNothingBehind: a program that detaches a child
// and exits at once is answered right away with its exit code, and the
// child does not live on after the run.
func TestRunThatFinishesLeavesNothingBehind(t *testing.T) {
	testutil.Command(t, "setsid")
	forEachContainment(t, func(t *testing.T, r *Runner) {
		pidFile := filepath.Join(t.TempDir(), "escaped.pid")
		var pid int
		killLeft(t, &pid)
		res, err := r.Run(context.Background(), "demo", Request{Language: "shell", Code: detach(pidFile) + `
echo bye; exit 7`, TimeoutMs: 20000})
		if err != nil {
			t.Fatal(err)
		}
		if res.TimedOut || res.ExitCode != 7 || res.Stdout != "bye\n" {
			t.Fatalf("%+v", res)
		}
		pid = escapedPID(t, pidFile)
		testutil.Eventually(t, "the detached process "+strconv.Itoa(pid)+" is gone", func() bool { return gone(pid) })
	})
}

// TestRunReportsASignalAsMinusOne: a program ended by a signal answers
// exitCode -1, as before the reaper (which itself must not pass the
// signal off as an ordinary exit code).
func TestRunReportsASignalAsMinusOne(t *testing.T) {
	r := newRunner(t)
	res, err := r.Run(context.Background(), "demo", Request{Language: "shell", Code: "echo x; kill -9 $$"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != -1 || res.TimedOut || res.Stdout != "x\n" {
		t.Fatalf("%+v", res)
	}
}

// TestReaperSurvivesKillZero: `kill -9 0` (kill my process group) in the
// program does not reach the reaper, which still reports and cleans up.
func TestReaperSurvivesKillZero(t *testing.T) {
	r := newRunner(t)
	res, err := r.Run(context.Background(), "demo", Request{Language: "shell", Code: "echo x; kill -9 0"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != -1 || res.Stdout != "x\n" {
		t.Fatalf("%+v", res)
	}
}

func TestParseReaperReport(t *testing.T) {
	for in, want := range map[string]int{"exit 0\n": 0, "exit 3": 3, "signal 9\n": -1} {
		if got, ok := parseReaperReport(in); !ok || got != want {
			t.Errorf("%q: %d %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "lost\n", "exit x", "quit 1"} {
		if _, ok := parseReaperReport(in); ok {
			t.Errorf("%q parsed", in)
		}
	}
}

// TestRunStopsEvenWhenTheProgramFreezesItsReaper: a program that keeps
// its reaper stopped (SIGSTOP in a loop, from a detached child) and
// detaches another child still times out, and the runner itself ends
// what the run started when the reaper cannot.
func TestRunStopsEvenWhenTheProgramFreezesItsReaper(t *testing.T) {
	testutil.Command(t, "setsid")
	forEachContainment(t, func(t *testing.T, r *Runner) {
		pidFile := filepath.Join(t.TempDir(), "escaped.pid")
		var pid, stopper int
		killLeft(t, &pid)
		killLeft(t, &stopper)
		res, err := runPastLimit(t, r, Request{Language: "shell", Code: detach(pidFile) + `
	R=$PPID
grep -q __lets-run-reaper /proc/$R/cmdline || { echo "not under the reaper: will not freeze $R" >&2; exit 9; }
setsid sh -c "echo \$\$ > ` + pidFile + `.s.tmp; mv ` + pidFile + `.s.tmp ` + pidFile + `.stopper; while :; do kill -STOP $R; done" </dev/null >/dev/null 2>&1 &
while [ ! -s ` + pidFile + `.stopper ]; do sleep 0.01; done
sleep 30`, TimeoutMs: 2000}, "the run has detached a child and a process freezing its reaper", func() bool {
			return exists(pidFile) && exists(pidFile+".stopper")
		})
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimedOut || res.ExitCode != -1 {
			t.Fatalf("%+v", res)
		}
		pid = escapedPID(t, pidFile)
		stopper = escapedPID(t, pidFile+".stopper")
		testutil.Eventually(t, "the setsid'd process "+strconv.Itoa(pid)+" is gone", func() bool { return gone(pid) })
		testutil.Eventually(t, "the process that froze the reaper is gone", func() bool { return gone(stopper) })
	})
}

// TestRunTimeoutEndsAStormOfDetachingChildren: children that keep
// detaching new ones (setsid in a loop) are all gone after the timeout.
// The run's cgroup is killed at once; the /proc scan alone could lose to
// the storm on a loaded machine (CI run f6, 2026-12-02: the 500 ms run
// answered after 10.5 s and sleeps of the storm lived on), so this test
// needs the cgroup.
func TestRunTimeoutEndsAStormOfDetachingChildren(t *testing.T) {
	testutil.Command(t, "setsid")
	requireCgroup(t)
	r := newRunner(t)
	// A duration no other process uses marks the run's sleeps in /proc.
	mark := "299." + strconv.Itoa(os.Getpid())
	t.Cleanup(func() {
		// Should the run leave its spawners behind, end them here, or
		// they would spawn on after the test.
		for empty, rounds := 0, 0; empty < 2 && rounds < 10000; rounds++ {
			pids := pidsRunning(mark)
			if len(pids) == 0 {
				empty++
				continue
			}
			empty = 0
			for _, pid := range pids {
				if p, err := os.FindProcess(pid); err == nil {
					_ = p.Kill()
				}
			}
		}
	})
	spawner := `setsid sh -c 'while :; do setsid sleep ` + mark + ` </dev/null >/dev/null 2>&1 & done' </dev/null >/dev/null 2>&1 &`
	res, err := runPastLimit(t, r, Request{Language: "shell", Code: spawner + "\n" + spawner + "\nsleep 30", TimeoutMs: 500},
		"the storm is on (both spawners and their sleeps)", func() bool { return len(pidsRunning(mark)) >= 6 })
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut {
		t.Fatalf("%+v", res)
	}
	t.Logf("the run answered after %d ms", res.Ms)
	testutil.Eventually(t, "no spawner and no sleep "+mark+" is left", func() bool { return len(pidsRunning(mark)) == 0 })
}

// pidsRunning lists the live processes with mark in their command line
// (the spawners' scripts and the sleeps they start).
func pidsRunning(mark string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || gone(pid) {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), mark) {
			out = append(out, pid)
		}
	}
	return out
}

// TestRunProgramGetsOnlyStdio: the program holds stdin, stdout and stderr
// and nothing else: not the reaper's channel to the runner, nor anything
// the host left open without close-on-exec.
func TestRunProgramGetsOnlyStdio(t *testing.T) {
	testutil.ProcFS(t)
	r := newRunner(t)
	res, err := r.Run(context.Background(), "demo", Request{Language: "python", Code: "import os; print(sorted(int(f) for f in os.listdir('/proc/self/fd')))"})
	if err != nil {
		t.Fatal(err)
	}
	// python3 main.py: 0, 1, 2, and the fd listdir itself holds open.
	if !strings.HasPrefix(res.Stdout, "[0, 1, 2, ") || strings.Count(res.Stdout, ",") != 3 {
		t.Fatalf("the program holds more than its stdio: %s (%s)", res.Stdout, res.Stderr)
	}
}
