package runner

import (
	"fmt"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// init turns this process into a run's reaper when the runner started it
// so (contain_linux.go). It lives in this package, not in a main, so that
// every binary able to hold a Runner — lets-core, and the test binaries of
// this package and of the host — answers reaperArg by construction, before
// any of the binary's own start-up runs.
func init() {
	if len(os.Args) > 1 && os.Args[1] == reaperArg {
		// syscall.Exit, not os.Exit: nothing of the binary is to be
		// flushed, and a -race build would otherwise sleep a second at
		// exit (the race runtime's atexit_sleep_ms) on every run.
		syscall.Exit(reaperMain(os.Args[2:], os.NewFile(3, "lets-run-control")))
	}
}

// reaperMain runs args (the containment, then the interpreter and its
// source file) with this process's stdin, stdout, stderr, folder and
// environment, and returns the exit code to end with. ctl is the runner's
// channel: its end (EOF) means stop. The containment is "cgroup" (fd 4 is
// the run's cgroup: the program starts in it) or "scan". Every descendant
// is killed before it returns.
func reaperMain(args []string, ctl *os.File) int {
	if len(args) < 2 || (args[0] != containCgroup && args[0] != containScan) {
		fmt.Fprintln(os.Stderr, "lets: the run's reaper was started without a program; only Lets itself starts it")
		return 125
	}
	var cg *runCgroup
	if args[0] == containCgroup {
		cg = &runCgroup{path: "/proc/self/fd/4", dir: os.NewFile(4, "lets-run-cgroup")}
	}
	args = args[1:]
	// The program gets stdin, stdout and stderr only: not the runner's
	// channel, nor any descriptor the host let slip without close-on-exec.
	if err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC); err != nil {
		syscall.CloseOnExec(int(ctl.Fd())) // kernels before 5.11
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "lets: cannot keep hold of what the program starts (child subreaper: %v); not running it\n", err)
		return 125
	}

	stop := make(chan struct{})
	go func() {
		// Nothing is ever sent; the read ends when the runner closes
		// its side or dies.
		_, _ = ctl.Read(make([]byte, 1))
		close(stop)
	}()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	// Its own group, so a program's `kill 0` does not reach the reaper;
	// and straight into the run's cgroup, where there is one.
	sys := &syscall.SysProcAttr{Setpgid: true}
	if cg != nil {
		sys.UseCgroupFD, sys.CgroupFD = true, int(cg.dir.Fd())
	}
	pid, err := syscall.ForkExec(args[0], args, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   sys,
	})
	if err != nil && cg != nil {
		// A kernel without clone3's CLONE_INTO_CGROUP (before 5.7):
		// the /proc scan alone contains the run.
		cg = nil
		pid, err = syscall.ForkExec(args[0], args, &syscall.ProcAttr{
			Env:   os.Environ(),
			Files: []uintptr{0, 1, 2},
			Sys:   &syscall.SysProcAttr{Setpgid: true},
		})
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "lets: could not start %s: %v\n", args[0], err)
		return 125
	}

	// One loop reaps every child: the program, and each orphan the
	// subreaper adopted.
	programDone := make(chan syscall.WaitStatus, 1)
	noChildren := make(chan struct{})
	go func() {
		defer close(noChildren)
		for {
			var ws syscall.WaitStatus
			got, err := syscall.Wait4(-1, &ws, 0, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil { // ECHILD: nothing left to wait for
				return
			}
			if got == pid {
				programDone <- ws
			}
		}
	}()

	var status syscall.WaitStatus
	haveStatus := false
	select {
	case status = <-programDone:
		haveStatus = true
	case <-stop:
	case <-sigs:
	}
	// Whether the program finished or was stopped, nothing it started
	// outlives the run.
	killDescendants(os.Getpid(), cg, noChildren, reaperKillBudget)
	if !haveStatus {
		select {
		case status = <-programDone:
			haveStatus = true
		default:
		}
	}

	code := 125
	report := "lost"
	switch {
	case !haveStatus:
	case status.Exited():
		code = status.ExitStatus()
		report = "exit " + strconv.Itoa(code)
	case status.Signaled():
		code = 128 + int(status.Signal())
		report = "signal " + strconv.Itoa(int(status.Signal()))
	}
	_, _ = ctl.Write([]byte(report + "\n"))
	return code
}

// killDescendants kills the run's cgroup (when cg is not nil: all at
// once, forks racing the kill included) and SIGKILLs every live
// descendant of self, again and again (a process may fork between a scan
// and its kill; the subreaper makes the new orphan ours, so the next scan
// finds it) until the reaping loop says no child is left or budget runs
// out.
func killDescendants(self int, cg *runCgroup, noChildren <-chan struct{}, budget time.Duration) {
	deadline := time.NewTimer(budget)
	defer deadline.Stop()
	for {
		if cg != nil {
			cg.kill()
		}
		for _, pid := range liveDescendants(self) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		select {
		case <-noChildren:
			return
		case <-deadline.C:
			fmt.Fprintln(os.Stderr, "lets: some processes the program started would not end in time")
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// liveDescendants lists the processes below self in /proc's parent chain
// that are not yet zombies (those only wait to be reaped).
func liveDescendants(self int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	zombie := map[int]bool{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		ppid, state, ok := parseStat(string(b))
		if !ok {
			continue
		}
		parent[pid] = ppid
		zombie[pid] = state == "Z"
	}
	var out []int
	for pid := range parent {
		if zombie[pid] {
			continue
		}
		// Bounded walk up the chain (a pid table is not a cycle, but a
		// scan is not one instant either).
		for p, n := parent[pid], 0; p > 1 && n < len(parent); p, n = parent[p], n+1 {
			if p == self {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// parseStat reads the state and the parent pid from /proc/<pid>/stat,
// whose second field (the command name in parentheses) may itself hold
// spaces and parentheses.
func parseStat(stat string) (ppid int, state string, ok bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0, "", false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return 0, "", false
	}
	return ppid, f[0], true
}
