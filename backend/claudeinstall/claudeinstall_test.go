package claudeinstall

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/claudefind"
	"github.com/lets-app/lets/backend/claudeinstall/registrytest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// npmPath is a PATH with the real node and npm (make test installs them).
func npmPath(t *testing.T) string {
	t.Helper()
	node := testutil.Command(t, "node")
	npm := testutil.Command(t, "npm")
	return filepath.Dir(node) + string(filepath.ListSeparator) + filepath.Dir(npm) + string(filepath.ListSeparator) + "/usr/bin:/bin"
}

type progressLog struct {
	mu   sync.Mutex
	list []Progress
}

func (p *progressLog) add(x Progress) { p.mu.Lock(); p.list = append(p.list, x); p.mu.Unlock() }
func (p *progressLog) steps() []Step {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Step
	for _, x := range p.list {
		if len(out) == 0 || out[len(out)-1] != x.Step {
			out = append(out, x.Step)
		}
	}
	return out
}

func TestInstallFromLoopbackRegistry(t *testing.T) {
	path := npmPath(t)
	reg := registrytest.Start(t, claudefind.TestedVersion)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	var log progressLog
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	found, err := Install(ctx, Options{DataDir: data, Env: reg.Env(dir, path)}, log.add)
	if err != nil {
		t.Fatal(err)
	}
	if found.Path != claudefind.OwnBin(data) || found.Source != claudefind.SourceLets || found.Version != claudefind.TestedVersion {
		t.Fatalf("installed %+v (%v), want %s version %s", found, found.VersionErr, claudefind.OwnBin(data), claudefind.TestedVersion)
	}
	// The finder everyone uses sees it too, over a claude on PATH.
	again, err := claudefind.Find(ctx, claudefind.Options{DataDir: data, Getenv: func(k string) string {
		if k == "PATH" {
			return path
		}
		return ""
	}})
	if err != nil || again.Path != found.Path {
		t.Fatalf("finder found %+v, %v", again, err)
	}
	steps := log.steps()
	want := []Step{StepStarted, StepDownloading, StepInstalling, StepDone}
	if strings.Join(stepStrings(steps), ",") != strings.Join(stepStrings(want), ",") {
		t.Fatalf("progress steps %v, want %v", steps, want)
	}
	for _, p := range log.list {
		if p.Percent < -1 || p.Percent > 100 || p.Text == "" {
			t.Fatalf("progress %+v out of range or without words", p)
		}
	}
}

func stepStrings(s []Step) []string {
	var out []string
	for _, x := range s {
		out = append(out, string(x))
	}
	return out
}

func TestNodeMissing(t *testing.T) {
	dir := t.TempDir()
	osr := filepath.Join(dir, "os-release")
	if err := os.WriteFile(osr, []byte("NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=debian\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Install(context.Background(), Options{DataDir: dir, Env: []string{"PATH=" + filepath.Join(dir, "empty")}, OSRelease: osr}, nil)
	var nm *NodeMissingError
	if !errors.As(err, &nm) {
		t.Fatalf("err = %v, want NodeMissingError", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "Node.js is missing.") || !strings.Contains(msg, "sudo apt install nodejs npm") || !strings.Contains(msg, "Ubuntu") {
		t.Fatalf("message %q does not say how to install Node.js on Ubuntu", msg)
	}
}

func TestNodeAdviceByDistribution(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ osr, want string }{
		{"NAME=Fedora Linux\nID=fedora\n", "sudo dnf install nodejs npm"},
		{"NAME=\"Arch Linux\"\nID=arch\n", "sudo pacman -S nodejs npm"},
		{"NAME=Debian GNU/Linux\nID=debian\n", "sudo apt install nodejs npm"},
		{"NAME=Linux Mint\nID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", "sudo apt install nodejs npm"},
		{"NAME=Gentoo\nID=gentoo\n", "nodejs.org"},
	} {
		p := filepath.Join(dir, "os-release")
		if err := os.WriteFile(p, []byte(c.osr), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := nodeAdvice(p); !strings.Contains(got, c.want) {
			t.Errorf("%q: advice %q, want %q", c.osr, got, c.want)
		}
	}
}

func TestRegistryFailingGivesNpmsLastLines(t *testing.T) {
	path := npmPath(t)
	reg := registrytest.Start(t, claudefind.TestedVersion)
	reg.Fail()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := Install(ctx, Options{DataDir: filepath.Join(dir, "data"), Env: reg.Env(dir, path)}, nil)
	var nf *NPMFailedError
	if !errors.As(err, &nf) {
		t.Fatalf("err = %v, want NPMFailedError", err)
	}
	t.Log(err)
	if nf.ExitCode == 0 || len(nf.Tail) == 0 || !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), "try again") {
		t.Fatalf("error %q lacks npm's last lines (the 500) or a suggestion", err)
	}
}

func TestBadTarballFails(t *testing.T) {
	path := npmPath(t)
	reg := registrytest.Start(t, claudefind.TestedVersion)
	reg.BadTarball()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := Install(ctx, Options{DataDir: filepath.Join(dir, "data"), Env: reg.Env(dir, path)}, nil)
	var nf *NPMFailedError
	if !errors.As(err, &nf) || len(nf.Tail) == 0 {
		t.Fatalf("err = %v, want NPMFailedError with npm's lines", err)
	}
	if _, err := os.Stat(claudefind.OwnBin(filepath.Join(dir, "data"))); err == nil {
		t.Fatal("a broken tarball left a claude behind")
	}
}

func TestCancelStopsNpm(t *testing.T) {
	path := npmPath(t)
	reg := registrytest.Start(t, claudefind.TestedVersion)
	held := reg.Hold()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log progressLog
	var pids []int
	errc := make(chan error, 1)
	go func() {
		_, err := Install(ctx, Options{DataDir: filepath.Join(dir, "data"), Env: reg.Env(dir, path)}, log.add)
		errc <- err
	}()
	testutil.Wait(t, "npm asked for the tarball", held)
	pids = npmPIDs(t, dir)
	if len(pids) == 0 {
		t.Fatal("no npm process found while it downloads")
	}
	cancel()
	err := testutil.Wait(t, "the install ended after cancel", errc)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			// A zombie is gone for our purposes only once reaped; npm is
			// our child and Wait reaped it, so any answer here is a live
			// process.
			t.Fatalf("npm process %d still runs after cancel", pid)
		}
	}
}

// npmPIDs lists processes whose environment names this test's npm cache.
func npmPIDs(t *testing.T, dir string) []int {
	t.Helper()
	testutil.ProcFS(t)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	mark := []byte("npm_config_cache=" + dir + "/npm-cache")
	var out []int
	for _, e := range entries {
		var pid int
		if _, err := fmtSscan(e.Name(), &pid); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(b), "\x00") {
			if kv == string(mark) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

func fmtSscan(s string, pid *int) (int, error) { return fmt.Sscan(s, pid) }
