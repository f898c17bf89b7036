package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// requireCgroup stops a test that needs the runner to make a cgroup for
// its runs where it cannot (loudly, or as a failure under make test).
func requireCgroup(t *testing.T) {
	t.Helper()
	cg, err := makeRunCgroup()
	if err != nil {
		testutil.Missing(t, testutil.RequireToolsEnv, "the runner cannot make a cgroup for its runs here: "+err.Error(),
			"run the tests as root (CI does), or from a systemd user service or app scope, whose cgroup the person owns")
		return
	}
	if err := cg.remove(testDeadline(t)); err != nil {
		t.Fatal(err)
	}
}

// cgroupOf is the cgroup v2 path in a /proc/<pid>/cgroup text.
func cgroupOf(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p
		}
	}
	return ""
}

// TestRunStartsInACgroupOfItsOwn: the program runs in a cgroup made for
// this one run, below the host's own, from its first instruction; the
// cgroup is gone once the run has answered.
func TestRunStartsInACgroupOfItsOwn(t *testing.T) {
	requireCgroup(t)
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(t)
	res, err := r.Run(context.Background(), "demo", Request{Language: "shell", Code: "cat /proc/self/cgroup"})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	got, host := cgroupOf(res.Stdout), cgroupOf(string(own))
	want := filepath.Join(host, cgroupPrefix+strconv.Itoa(os.Getpid())) + "-"
	if !strings.HasPrefix(got, want) {
		t.Fatalf("the program ran in cgroup %q, want one of its own starting %q", got, want)
	}
	dir, err := ownCgroupDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.Base(got))); !os.IsNotExist(err) {
		t.Fatalf("the run's cgroup %s is still there after the run: %v", got, err)
	}
}

// TestRunWithoutACgroupStillRuns: where no cgroup can be made the run is
// contained by the /proc scan, and says nothing of it to the program.
func TestRunWithoutACgroupStillRuns(t *testing.T) {
	r := newRunner(t)
	r.noCgroup = true
	res, err := r.Run(context.Background(), "demo", Request{Language: "shell", Code: "cat /proc/self/cgroup; echo done"})
	if err != nil || res.ExitCode != 0 || !strings.HasSuffix(res.Stdout, "done\n") || res.Stderr != "" {
		t.Fatalf("%+v %v", res, err)
	}
	if strings.Contains(cgroupOf(res.Stdout), cgroupPrefix) {
		t.Fatalf("the run is in a run cgroup although none was to be made: %q", res.Stdout)
	}
}

// TestRunInACgroupOutlivesAKilledReaper: a program that detaches a child
// and then kills its own reaper (kill -9 $PPID) leaves the subreaper's
// reach, but not the cgroup's: the child is still gone after the run.
// (Without a cgroup this escape is the documented boundary.)
func TestRunInACgroupOutlivesAKilledReaper(t *testing.T) {
	testutil.Command(t, "setsid")
	requireCgroup(t)
	r := newRunner(t)
	pidFile := filepath.Join(t.TempDir(), "escaped.pid")
	var pid int
	killLeft(t, &pid)
	res, err := r.Run(context.Background(), "demo", Request{Language: "shell", Code: detach(pidFile) + `
grep -q __lets-run-reaper /proc/$PPID/cmdline || { echo "not under the reaper: will not kill $PPID" >&2; exit 9; }
kill -9 $PPID
sleep 30`, TimeoutMs: 20000})
	if err == nil {
		t.Logf("the run answered %+v", res)
	}
	pid = escapedPID(t, pidFile)
	testutil.Eventually(t, "the detached process "+strconv.Itoa(pid)+" is gone though the reaper was killed", func() bool { return gone(pid) })
}

// TestStaleRunCgroupsOfAGoneHostAreEnded: a host that crashed mid-run left
// its run's cgroup with a process in it; the next run cgroup made here
// ends that process and removes the stale cgroup.
func TestStaleRunCgroupsOfAGoneHostAreEnded(t *testing.T) {
	requireCgroup(t)
	parent, err := ownCgroupDir()
	if err != nil {
		t.Fatal(err)
	}
	// A pid no process has now: one that just ended.
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	stale := &runCgroup{path: filepath.Join(parent, cgroupPrefix+strconv.Itoa(ended.Process.Pid)+"-1")}
	if err := os.Mkdir(stale.path, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stale.remove(testDeadline(t)) })
	dir, err := os.Open(stale.path)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	left := exec.Command("sleep", "300")
	left.SysProcAttr = cgroupAttr(int(dir.Fd()))
	if err := left.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- left.Wait() }()
	t.Cleanup(func() { _ = left.Process.Kill() })

	cg, err := makeRunCgroup()
	if err != nil {
		t.Fatal(err)
	}
	if err := cg.remove(testDeadline(t)); err != nil {
		t.Fatal(err)
	}
	if err := testutil.Wait(t, "the stale run's process ends", waited); err == nil {
		t.Fatal("the stale run's process ended by itself, not by a kill")
	}
	if _, err := os.Stat(stale.path); !os.IsNotExist(err) {
		t.Fatalf("the stale cgroup %s is still there: %v", stale.path, err)
	}
}

func TestUnescapeMountinfo(t *testing.T) {
	for in, want := range map[string]string{
		`/sys/fs/cgroup`:     "/sys/fs/cgroup",
		`/mnt/a\040b`:        "/mnt/a b",
		`/mnt/tab\011x\134y`: "/mnt/tab\tx\\y",
		`/odd\04`:            `/odd\04`,
		`/not\999octal`:      `/not\999octal`,
	} {
		if got := unescapeMountinfo(in); got != want {
			t.Errorf("unescapeMountinfo(%q) = %q, want %q", in, got, want)
		}
	}
}

// testDeadline bounds a cgroup's removal in a test by the test's own
// deadline.
func testDeadline(t *testing.T) time.Time {
	if d, ok := t.Deadline(); ok {
		return d
	}
	return time.Now().Add(time.Minute)
}

// cgroupAttr starts a process straight into the cgroup folder fd.
func cgroupAttr(fd int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
}
