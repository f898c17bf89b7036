package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// How a run is contained on Linux.
//
// A process group is not enough: a program that calls setsid() (or
// double-forks into a new session) leaves its group and outlives a group
// kill. So the runner starts the interpreter through a reaper: this same
// binary, re-executed through /proc/self/exe with reaperArg first. The
// reaper marks itself a child subreaper, so everything the program starts
// stays its descendant however it detaches: an orphan is adopted by the
// reaper, not by init. When told to stop, or when the program exits, the
// reaper kills every descendant it finds in /proc until none is left,
// reaps them and reports the program's exit.
//
// The runner and the reaper talk over one Unix socket pair (the reaper's
// fd 3). The runner closing its side for writing means stop; the runner
// dying closes it too, so a run never outlives its host. The reaper
// writes the program's exit ("exit N" or "signal N") back before it ends.
//
// The boundary: the program runs as the person, so it can signal the
// reaper itself (kill -9 $PPID) before it detaches; what it started then
// escapes. Stopping that needs a PID namespace, which a desktop app
// cannot count on being allowed to make.

// The containments a reaper is told to use: the run's cgroup (fd 4), or
// the /proc scan alone.
const (
	containCgroup = "cgroup"
	containScan   = "scan"
)

// reaperArg is the hidden first argument that turns a Lets binary (or a
// test binary) into the reaper; see init in reaper_linux.go.
const reaperArg = "__lets-run-reaper"

// reaperBinary is what the runner re-executes as the reaper. The kernel
// resolves it to the running binary even after an upgrade replaced the
// file on disk, and every binary that holds a Runner links this package
// and so answers reaperArg.
const reaperBinary = "/proc/self/exe"

// Budgets of a stop. The reaper keeps killing and reaping for up to
// reaperKillBudget. The runner takes over (backstop) when it sees the
// reaper held stopped, or when the reaper has not ended backstopAfter
// after it was told to stop; it kills for up to backstopBudget, then
// kills the reaper. os/exec's WaitDelay is the last resort after that.
// They are generous on purpose: on a loaded machine a scan of /proc is
// slow, and giving up early is what lets a process escape.
const (
	reaperKillBudget = 5 * time.Second
	backstopAfter    = reaperKillBudget + time.Second
	backstopBudget   = 3 * time.Second
	reaperWaitDelay  = backstopAfter + backstopBudget + time.Second
	// backstopTick is how often the runner wakes a stopped reaper
	// (SIGCONT) and looks whether it is held stopped.
	backstopTick = 50 * time.Millisecond
	// cgroupRemoveBudget bounds the wait for a killed cgroup to empty.
	cgroupRemoveBudget = 2 * time.Second
	// outputDrainBudget bounds the wait for the run's output to end
	// once the reaper is gone.
	outputDrainBudget = time.Second
)

// stdinFile holds the run's standard input in an unlinked file in dir,
// read from the start: the program reads it at its own pace, and nothing
// of the runner waits on a pipe the program never drains.
func stdinFile(dir string, in io.Reader) (*os.File, error) {
	f, err := os.CreateTemp(dir, ".stdin-")
	if err != nil {
		return nil, fmt.Errorf("hold the run's input: %w", err)
	}
	_ = os.Remove(f.Name())
	if _, err := io.Copy(f, in); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("hold the run's input: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("hold the run's input: %w", err)
	}
	return f, nil
}

// runContained runs j under the reaper and returns the program's exit
// code (-1 when a signal ended it).
func (r *Runner) runContained(ctx context.Context, j job) (int, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("make the channel to the run's reaper: %w", err)
	}
	theirs := os.NewFile(uintptr(fds[1]), "lets-run-reaper-control")
	defer theirs.Close()
	oursFile := os.NewFile(uintptr(fds[0]), "lets-run-control")
	conn, err := net.FileConn(oursFile)
	_ = oursFile.Close()
	if err != nil {
		return -1, fmt.Errorf("open the channel to the run's reaper: %w", err)
	}
	defer conn.Close()
	ctl, ok := conn.(*net.UnixConn)
	if !ok {
		return -1, fmt.Errorf("the channel to the run's reaper is a %T, not a Unix socket", conn)
	}

	// The run's own cgroup, where the host may make one (cgroup_linux.go).
	var cg *runCgroup
	if !r.noCgroup {
		if cg, err = makeRunCgroup(); err != nil {
			r.noteNoCgroup(err)
			cg = nil
		}
	}
	contain := containScan
	extra := []*os.File{theirs} // fd 3 in the reaper
	if cg != nil {
		contain = containCgroup
		extra = append(extra, cg.dir) // fd 4
	}
	// Whatever happened to the reaper, nothing of the run outlives it:
	// the cgroup is killed, then removed (once, early or on the way out).
	var removeOnce sync.Once
	removeCgroup := func() {
		removeOnce.Do(func() {
			if cg == nil {
				return
			}
			if err := cg.remove(time.Now().Add(cgroupRemoveBudget)); err != nil {
				r.log().Warn("a run's cgroup could not be removed", "err", err)
			}
		})
	}
	defer removeCgroup()

	// The program's stdio are files and pipes of the runner's own, not
	// os/exec's copying: the run answers as soon as the reaper is gone
	// and the cgroup killed, even when the reaper was killed early and
	// something it started still holds the output.
	stdin, err := stdinFile(j.dir, j.stdin)
	if err != nil {
		return -1, err
	}
	defer stdin.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		return -1, fmt.Errorf("make the run's output pipe: %w", err)
	}
	defer outR.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		_ = outW.Close()
		return -1, fmt.Errorf("make the run's error pipe: %w", err)
	}
	defer errR.Close()

	cmd := exec.CommandContext(ctx, reaperBinary, reaperArg, contain, j.prog, j.src)
	cmd.Dir, cmd.Env = j.dir, j.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, outW, errW
	cmd.ExtraFiles = extra
	// Its own group: the runner's own group signals do not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	waited := make(chan struct{})
	cmd.Cancel = func() error {
		// Everything in the run's cgroup ends at once, whatever the
		// reaper is up to; the reaper then reports the program's end.
		if cg != nil {
			cg.kill()
		}
		// The program may have stopped its reaper (kill -STOP $PPID).
		_ = cmd.Process.Signal(syscall.SIGCONT)
		if err := ctl.CloseWrite(); err != nil {
			// No channel: ask by signal (the reaper stops the same way).
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
		go backstop(cmd.Process, waited)
		return nil
	}
	cmd.WaitDelay = reaperWaitDelay
	err = cmd.Start()
	// The reaper holds its own copies now (or there is no reaper).
	_, _, _ = theirs.Close(), outW.Close(), errW.Close()
	if err != nil {
		return -1, fmt.Errorf("start the run's reaper (%s): %w", reaperBinary, err)
	}
	copied := make(chan struct{}, 2)
	for _, c := range []struct {
		to   io.Writer
		from *os.File
	}{{j.stdout, outR}, {j.stderr, errR}} {
		go func() {
			_, _ = io.Copy(c.to, c.from)
			copied <- struct{}{}
		}()
	}
	waitErr := cmd.Wait()
	close(waited)
	removeCgroup()
	// The output ends when its last holder is gone: at once when the
	// reaper ended everything, or when the cgroup was killed. A process
	// that escaped both (the reaper was killed and there is no cgroup)
	// is not waited for beyond outputDrainBudget.
	drain := time.NewTimer(outputDrainBudget)
	defer drain.Stop()
	for n := 0; n < 2; {
		select {
		case <-copied:
			n++
		case <-drain.C:
			_ = outR.SetReadDeadline(time.Now())
			_ = errR.SetReadDeadline(time.Now())
		}
	}

	// The reaper is gone, so the socket is at its end: the read cannot
	// block for long, and the deadline covers the unexpected.
	_ = ctl.SetReadDeadline(time.Now().Add(time.Second))
	report, _ := io.ReadAll(io.LimitReader(ctl, 64))
	if code, ok := parseReaperReport(string(report)); ok {
		return code, nil
	}
	// No report: the reaper itself was killed or could not start the
	// program; it said why on stderr.
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return -1, nil
	case errors.As(waitErr, &exitErr) && cg != nil:
		return -1, fmt.Errorf("the run's reaper ended without a report (%v); everything the program started was stopped with the run's cgroup", exitErr)
	case errors.As(waitErr, &exitErr):
		return -1, fmt.Errorf("the run's reaper ended without a report (%v); what the program started may still be running", exitErr)
	case waitErr != nil:
		return -1, fmt.Errorf("wait for the run's reaper: %w", waitErr)
	default:
		return -1, errors.New("the run's reaper ended without a report")
	}
}

// backstop does the reaper's job from the runner when the reaper cannot:
// the program keeps it stopped (SIGSTOP in a loop from a detached child),
// or it has not ended backstopAfter after it was told to stop. While the
// reaper lives, every orphan of the run is still adopted by it, so its
// descendants in /proc are exactly what the run started; they are
// killed, then the reaper. waited closes once os/exec has reaped the
// reaper.
func backstop(reaper *os.Process, waited <-chan struct{}) {
	giveUp := time.NewTimer(backstopAfter)
	defer giveUp.Stop()
	tick := time.NewTicker(backstopTick)
	defer tick.Stop()
	// Signal 0 through the process handle (a pidfd) says the reaper is
	// still this run's, not a reused pid.
	alive := func() bool { return reaper.Signal(syscall.Signal(0)) == nil }
	for stopped := 0; stopped < 2; {
		select {
		case <-waited:
			return
		case <-giveUp.C:
			stopped = 2
		case <-tick.C:
			if alive() && processState(reaper.Pid) == "T" {
				stopped++ // seen stopped on two ticks in a row: held
			} else {
				stopped = 0
			}
			_ = reaper.Signal(syscall.SIGCONT)
		}
	}
	end := time.Now().Add(backstopBudget)
	for alive() && time.Now().Before(end) {
		pids := liveDescendants(reaper.Pid)
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		select {
		case <-waited:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
	_ = reaper.Kill()
}

// processState is the state letter of pid in /proc ("" when it is gone).
func processState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	_, state, _ := parseStat(string(b))
	return state
}

// parseReaperReport reads "exit N" (the program's exit code) or
// "signal N" (a signal ended it: -1, as os/exec says).
func parseReaperReport(s string) (int, bool) {
	kind, num, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return 0, false
	}
	switch kind {
	case "exit":
		return n, true
	case "signal":
		return -1, true
	}
	return 0, false
}
