package runner

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A run's cgroup.
//
// Scanning /proc for the reaper's descendants and killing them can lose to
// a program that forks faster than a scan ends (a loop that keeps
// detaching children, on a loaded machine with tens of thousands of
// processes). A cgroup v2 folder holds every process the program starts,
// however it detaches, and cgroup.kill ends them all at once: the kernel
// also stops a fork that races the kill. So, where the host may make a
// cgroup below its own, each run gets one: the reaper starts the program
// straight into it (clone3 with CLONE_INTO_CGROUP, so not even the first
// instruction runs outside), and stopping the run kills the cgroup. The
// /proc scan stays as well, for what the cgroup cannot see, and is the
// whole containment where no cgroup can be made (a terminal's login
// session on a systemd desktop: that cgroup belongs to root).
//
// The boundary: the program runs as the person, so it may move itself
// into the parent cgroup (the person may write there, or the host could
// not have made the run's). A PID namespace would close that, and a
// desktop app cannot count on being allowed one.

// ErrNoCgroup says the host cannot make a cgroup for its runs here; the
// runner then contains runs by scanning /proc alone.
var ErrNoCgroup = errors.New("no cgroup v2 folder the host may make runs' cgroups in")

// runCgroup is one run's cgroup v2 folder.
type runCgroup struct {
	path string
	dir  *os.File // the folder, for clone3's CLONE_INTO_CGROUP
}

// cgroupSeq numbers the cgroups of one host process.
var cgroupSeq atomic.Uint64

// cgroupPrefix starts the name of every run's cgroup; the host's pid
// follows, then a number.
const cgroupPrefix = "lets-run-"

// ownCgroupDir is the cgroup v2 folder this process is in, as a path in
// the mounted cgroup2 file system, read from /proc/self/cgroup and
// /proc/self/mountinfo.
func ownCgroupDir() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("%w: read /proc/self/cgroup: %v", ErrNoCgroup, err)
	}
	rel := ""
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = p, true
			break
		}
	}
	if !found || !strings.HasPrefix(rel, "/") {
		return "", fmt.Errorf("%w: this process is in no cgroup v2", ErrNoCgroup)
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", fmt.Errorf("%w: read /proc/self/mountinfo: %v", ErrNoCgroup, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		// "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPEROPTS"
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		f := strings.Fields(pre)
		if len(f) < 5 {
			continue
		}
		root, mnt := unescapeMountinfo(f[3]), unescapeMountinfo(f[4])
		// The mount shows the part of the hierarchy below root.
		inside := rel
		if root != "/" {
			if inside != root && !strings.HasPrefix(inside, root+"/") {
				continue
			}
			inside = strings.TrimPrefix(inside, root)
		}
		return filepath.Join(mnt, inside), nil
	}
	return "", fmt.Errorf("%w: no cgroup2 file system is mounted", ErrNoCgroup)
}

// unescapeMountinfo undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// makeRunCgroup makes a new cgroup for one run below the host's own.
// ErrNoCgroup (wrapped) says why none can be made here.
func makeRunCgroup() (*runCgroup, error) {
	parent, err := ownCgroupDir()
	if err != nil {
		return nil, err
	}
	sweepStaleCgroups(parent)
	path := filepath.Join(parent, fmt.Sprintf("%s%d-%d", cgroupPrefix, os.Getpid(), cgroupSeq.Add(1)))
	if err := os.Mkdir(path, 0o700); err != nil {
		return nil, fmt.Errorf("%w: make %s: %v", ErrNoCgroup, path, err)
	}
	dir, err := os.OpenFile(path, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		_ = os.Remove(path)
		return nil, fmt.Errorf("%w: open %s: %v", ErrNoCgroup, path, err)
	}
	return &runCgroup{path: path, dir: dir}, nil
}

// sweepStaleCgroups kills and removes the run cgroups of Lets hosts that
// are gone (a host that crashed mid-run leaves its run's cgroup, and
// perhaps what the run started, behind).
func sweepStaleCgroups(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), cgroupPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue // not ours to judge, or its host still runs
		}
		c := &runCgroup{path: filepath.Join(parent, e.Name())}
		c.kill()
		_ = c.remove(time.Now().Add(cgroupRemoveBudget))
	}
}

// kill ends every process in the cgroup: with cgroup.kill where the
// kernel has it (5.14 and later), which names no pid and so cannot hit a
// process that took the pid of one that just ended; on older kernels, a
// SIGKILL to each process listed (the best they allow).
func (c *runCgroup) kill() {
	if err := os.WriteFile(filepath.Join(c.path, "cgroup.kill"), []byte("1"), 0); err == nil || !errors.Is(err, os.ErrNotExist) {
		return
	}
	if _, err := os.Stat(c.path); err != nil {
		return // the cgroup itself is gone
	}
	for _, pid := range c.pids() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// pids lists the processes in the cgroup.
func (c *runCgroup) pids() []int {
	b, err := os.ReadFile(filepath.Join(c.path, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}

// populated says whether a live process is still in the cgroup.
func (c *runCgroup) populated() bool {
	b, err := os.ReadFile(filepath.Join(c.path, "cgroup.events"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "populated "); ok {
			return strings.TrimSpace(v) != "0"
		}
	}
	return false
}

// remove kills what is left, waits (until deadline) for the cgroup to
// empty and removes it.
func (c *runCgroup) remove(deadline time.Time) error {
	if c.dir != nil {
		defer c.dir.Close()
	}
	for {
		c.kill()
		if !c.populated() {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the run's cgroup %s still holds processes after they were killed", c.path)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := os.Remove(c.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the run's cgroup: %w", err)
	}
	return nil
}
