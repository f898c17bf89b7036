package app

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// maxTrayRSS is issue #12's budget for the idle tray process.
const maxTrayRSS = 60 << 20

// BenchmarkTrayIdleRSS measures plain `lets` (host, pad daemon, browser
// pad and tray) idling under Xvfb with a session bus: its resident memory
// after 3 s of idling, and the CPU it burns per idle second (the tray
// polls the daemon and the host). The process is this test binary acting
// as `lets`, a little larger than the real one. It fails above 60 MB.
func BenchmarkTrayIdleRSS(b *testing.B) {
	testutil.ProcFS(b)
	ds := startDesktopSession(b)
	_, watcher := startWatcher(b, ds.busAddr)
	var rss, cpu float64
	for range b.N {
		home, sock, xdg := letsDesktopEnv(b, ds)
		l := startDesktopLets(b, ds, home, sock, xdg)
		if !waitFor(20*time.Second, func() bool { return len(watcher.registered()) > 0 }) {
			b.Fatalf("the tray did not register; lets said:\n%s", l.out.String())
		}
		time.Sleep(3 * time.Second) // settle: first menu, first polls
		pid := l.cmd.Process.Pid
		t0 := cpuTicks(b, pid)
		const idle = 5 * time.Second
		time.Sleep(idle)
		ticks := cpuTicks(b, pid) - t0
		cpu = float64(ticks) / 100 / idle.Seconds() * 100 // percent of one core (USER_HZ 100)
		rss = float64(vmRSS(b, pid))
		_ = l.cmd.Process.Signal(os.Interrupt)
		<-l.exited
		watcher.mu.Lock()
		watcher.items = nil
		watcher.mu.Unlock()
	}
	b.ReportMetric(rss/(1<<20), "MB-rss")
	b.ReportMetric(cpu, "%cpu-idle")
	if rss > maxTrayRSS {
		b.Errorf("idle RSS %.1f MB is over the %d MB budget", rss/(1<<20), maxTrayRSS>>20)
	}
}

// vmRSS reads VmRSS of pid in bytes.
func vmRSS(tb testing.TB, pid int) int64 {
	tb.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			kb, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb << 10
		}
	}
	tb.Fatalf("no VmRSS for pid %d", pid)
	return 0
}

// cpuTicks is utime+stime of pid in clock ticks.
func cpuTicks(tb testing.TB, pid int) int64 {
	tb.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		tb.Fatal(err)
	}
	// The command name may hold spaces; fields count from after ')'.
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return utime + stime
}
