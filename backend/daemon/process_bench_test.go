package daemon_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// benchDaemonEnv makes the test binary run only a daemon on the given
// socket, so its memory can be measured as a process of its own.
const benchDaemonEnv = "LETS_BENCH_DAEMON_SOCKET"

func TestMain(m *testing.M) {
	if path := os.Getenv(benchDaemonEnv); path != "" {
		os.Exit(runChildDaemon(path))
	}
	os.Exit(m.Run())
}

func runChildDaemon(path string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	d, err := daemon.Listen(daemon.Options{SocketPath: path})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := d.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// BenchmarkDaemonProcessRSS1000Sessions1000Conns measures the resident
// memory of a daemon process of its own (the target: 1 000
// sessions ≤ 20 MB) holding 1 000 sessions with metadata and 1 000 idle
// connections, made by this process.
func BenchmarkDaemonProcessRSS1000Sessions1000Conns(b *testing.B) {
	testutil.ProcFS(b)
	for range b.N {
		func() {
			dir, err := os.MkdirTemp("", "lw")
			if err != nil {
				b.Fatal(err)
			}
			defer os.RemoveAll(dir)
			path := filepath.Join(dir, "s.sock")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), benchDaemonEnv+"="+path)
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer func() {
				_ = cmd.Process.Signal(syscall.SIGTERM)
				_ = cmd.Wait()
			}()
			var nc net.Conn
			for deadline := time.Now().Add(10 * time.Second); ; {
				if nc, err = net.Dial("unix", path); err == nil {
					break
				}
				if time.Now().After(deadline) {
					b.Fatalf("child daemon did not start: %v", err)
				}
				time.Sleep(10 * time.Millisecond)
			}
			defer nc.Close()
			pid := strconv.Itoa(cmd.Process.Pid)
			idle := rssOf(pid)
			var sb strings.Builder
			for i := range 1000 {
				sid := "019f28ff-3c1a-" + strconv.Itoa(i)
				sb.WriteString(`{"protocol":1,"type":"state","state":"running","agent":{"backend":"codex","session_id":"` + sid + `","cwd":"/home/user/projects/p` + strconv.Itoa(i) + `","label":"task ` + strconv.Itoa(i) + `"}}` + "\n")
			}
			sb.WriteString(ping + "\n")
			if _, err := nc.Write([]byte(sb.String())); err != nil {
				b.Fatal(err)
			}
			r := bufio.NewReader(nc)
			if line, err := r.ReadString('\n'); err != nil || line != pong+"\n" {
				b.Fatalf("%q %v", line, err)
			}
			conns := make([]net.Conn, 0, 1000)
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			for range 1000 {
				conns = append(conns, dialRetry(b, path))
			}
			last := conns[len(conns)-1]
			last.Write([]byte(ping + "\n"))
			if line, err := bufio.NewReader(last).ReadString('\n'); err != nil || line != pong+"\n" {
				b.Fatalf("%q %v", line, err)
			}
			time.Sleep(100 * time.Millisecond)
			full := rssOf(pid)
			b.ReportMetric(idle/(1<<20), "idle-rss-MB")
			b.ReportMetric(full/(1<<20), "rss-MB")
		}()
	}
}
