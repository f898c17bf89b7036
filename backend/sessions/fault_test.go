package sessions

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv makes the test binary a session writer (see writerChild).
const childEnv = "LETS_SESSIONS_FAULT_CHILD"

// padLen keeps the JSON work small next to the fsync, so most kills land
// inside a write.
const padLen = 8 << 10

// writerChild saves sessions in a loop until it is killed (or 20 s pass,
// so a lost child never lingers): snapshots over one file and a new
// export now and then, each with a payload that says how it must look. It
// prints "saved <n>" after each save.
func writerChild(dir string) {
	s := NewStore(dir, Options{})
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		letter := string(rune('a' + i%26))
		data := fmt.Sprintf(`{"n":%d,"letter":%q,"pad":%q}`, i, letter, strings.Repeat(letter, padLen))
		kind, current := Snapshot, "ss_current"
		if i%4 == 3 {
			kind, current = Export, ""
		}
		env := fmt.Sprintf(`{"lip":1,"id":"ev_%d","ts":%d,"type":"graph.x","data":%s}`, i, time.Now().UnixMilli(), data)
		if _, err := s.Save("graph", current, kind, []byte(env), time.Now()); err != nil {
			fmt.Println("error:", err)
			os.Exit(3)
		}
		fmt.Printf("saved %d\n", i)
	}
}

// TestCase036_KilledWhileWritingNeverTorn: a process SIGKILLed while it
// writes sessions leaves every session file whole (the old one or the new
// one), never torn.
func TestCase036_KilledWhileWritingNeverTorn(t *testing.T) {
	if dir := os.Getenv(childEnv); dir != "" {
		writerChild(dir)
		return
	}
	dir := filepath.Join(t.TempDir(), "sessions")
	rounds := 20
	if testing.Short() {
		rounds = 4
	}
	leftovers := 0
	defer func() { t.Logf("%d kills landed inside a write (a temp file was left behind)", leftovers) }()
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCase036_KilledWhileWritingNeverTorn$", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		saved := make(chan string, 64)
		go func() {
			defer close(saved)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				saved <- sc.Text()
			}
		}()
		// The kill lands after a random number of saves, somewhere in the
		// child's next one or between two: the point in its work is
		// random, not a guess at how long a save takes.
		for n := range 1 + rand.IntN(8) {
			line, ok := <-saved
			if want := fmt.Sprintf("saved %d", n); !ok || line != want {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("round %d: child said %q, want %q", round, line, want)
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for range saved { // the rest, until the pipe closes
		}
		_ = cmd.Wait()
		leftovers += checkWhole(t, dir, round)
	}
}

// checkWhole reads every session file the way the store does and checks
// that each payload is exactly one of the versions the child wrote.
func checkWhole(t *testing.T, dir string, round int) (temps int) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "graph"))
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") { // an interrupted temp file: never read
			temps++
			_ = os.Remove(filepath.Join(dir, "graph", name))
			continue
		}
		files++
		p := filepath.Join(dir, "graph", name)
		sess, err := readSession(p, "graph")
		if err != nil {
			raw, _ := os.ReadFile(p)
			t.Fatalf("round %d: %s is torn (%d bytes): %v", round, name, len(raw), err)
		}
		var payload struct {
			N      int    `json:"n"`
			Letter string `json:"letter"`
			Pad    string `json:"pad"`
		}
		if err := json.Unmarshal(sess.Payload, &payload); err != nil {
			t.Fatalf("round %d: %s payload: %v", round, name, err)
		}
		if len(payload.Pad) != padLen || strings.Trim(payload.Pad, payload.Letter) != "" || payload.Letter != string(rune('a'+payload.N%26)) {
			t.Fatalf("round %d: %s holds a mixed payload (n=%d letter=%q pad %d bytes)", round, name, payload.N, payload.Letter, len(payload.Pad))
		}
	}
	if files == 0 {
		t.Fatalf("round %d: no session file", round)
	}
	s := NewStore(dir, Options{})
	if _, err := s.Get("graph", Last); err != nil {
		t.Fatalf("round %d: resume last: %v", round, err)
	}
	return temps
}
