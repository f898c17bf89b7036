package hostclient

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// fakeProc writes <root>/<pid>/stat files for a process tree.
func fakeProc(t *testing.T, procs map[int]struct {
	comm string
	ppid int
}) string {
	t.Helper()
	root := t.TempDir()
	for pid, p := range procs {
		dir := filepath.Join(root, strconv.Itoa(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		stat := strconv.Itoa(pid) + " (" + p.comm + ") S " + strconv.Itoa(p.ppid) + " 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n"
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

type proc = struct {
	comm string
	ppid int
}

func TestClaudePID(t *testing.T) {
	tree := map[int]proc{
		1:   {"systemd", 0},
		100: {"claude", 1},
		200: {"lets", 100},       // lets mcp, started directly
		300: {"sh", 100},         // a hook through sh -c
		301: {"bash", 300},       // … and bash
		302: {"lets", 301},       // lets hook
		400: {"node (v20) x", 1}, // comm with spaces and parentheses
		401: {"lets", 400},       //
		500: {"sh", 1},           // a shell started by init
		501: {"lets", 500},       //
		600: {"lets", 1},         // reparented to init
		700: {"zsh", 999},        // parent gone from /proc
		701: {"lets", 700},       //
		800: {"dash", 100},       //
		801: {"busybox", 800},    //
		802: {"fish", 801},       //
		803: {"lets", 802},       //
	}
	root := fakeProc(t, tree)
	for self, want := range map[int]int{200: 100, 302: 100, 401: 400, 501: 0, 600: 0, 701: 0, 803: 100, 12345: 0} {
		if got := ClaudePID(root, self); got != want {
			t.Errorf("ClaudePID(%d) = %d, want %d", self, got, want)
		}
	}
	if got := ClaudePID(filepath.Join(root, "missing"), 200); got != 0 {
		t.Errorf("no /proc: got %d, want 0", got)
	}
}

func TestClaudePIDStopsOnALoop(t *testing.T) {
	root := fakeProc(t, map[int]proc{10: {"sh", 11}, 11: {"sh", 10}, 12: {"lets", 10}})
	if got := ClaudePID(root, 12); got != 0 {
		t.Fatalf("a loop of shells gave %d, want 0", got)
	}
}

func TestClaudePIDOnThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system")
	}
	got := ClaudePID("/proc", os.Getpid())
	if got < 0 {
		t.Fatalf("got %d", got)
	}
	// Our parent is go test (not a shell), so it is the answer.
	if want := os.Getppid(); want > 1 && got != want {
		comm, _, _ := readStat("/proc", want)
		if !isShell(comm) {
			t.Fatalf("got %d, want our parent %d (%s)", got, want, comm)
		}
	}
}

func TestReadStatRejectsJunk(t *testing.T) {
	root := t.TempDir()
	for pid, content := range map[int]string{2: "", 3: "3 comm S 1", 4: "4 (x) S", 5: "5 (x) S -4 1", 6: "6 (x) S abc"} {
		dir := filepath.Join(root, strconv.Itoa(pid))
		_ = os.MkdirAll(dir, 0o755)
		_ = os.WriteFile(filepath.Join(dir, "stat"), []byte(content), 0o644)
		if _, _, ok := readStat(root, pid); ok {
			t.Errorf("stat %q was accepted", content)
		}
	}
}
