package host

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/config"
)

func sessionFiles(t testing.TB, th *testHost, unique string) []string {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(th.home, "sessions", unique))
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, filepath.Join(th.home, "sessions", unique, e.Name()))
		}
	}
	return out
}

// firstDataKey returns the first key of the data object of a saved file.
func firstDataKey(t testing.TB, path string) (string, map[string]any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(env.Data))
	_, _ = dec.Token() // {
	k, _ := dec.Token()
	var sess map[string]any
	_ = json.Unmarshal(raw, &struct {
		Data struct {
			Session *map[string]any `json:"session"`
		} `json:"data"`
	}{struct {
		Session *map[string]any `json:"session"`
	}{&sess}})
	key, _ := k.(string)
	return key, sess
}

// TestCase028_ExportSavesSessionAndClosesWindow.
func TestCase028_ExportSavesSessionAndClosesWindow(t *testing.T) {
	th := startLIPHost(t, func(o *Options) { o.Handoff = "close" })
	win := th.open(t, "board", "")
	sc := th.dialShell(t, win, nil)
	sc.sendEnv("lip.ready", map[string]any{}, "shell")
	sc.sendEnv("board.export", map[string]any{"nodes": []string{"a", "b"}, "summary": "two nodes"}, "unique")
	closeCmd, ok := sc.nextOfType("session.close", ioTimeout)
	if !ok || dataOf(t, closeCmd)["reason"] != "handoff" {
		t.Fatalf("session.close: %+v %v", closeCmd, ok)
	}
	files := sessionFiles(t, th, "board")
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	key, sess := firstDataKey(t, files[0])
	if key != "session" || sess["handoff"] != true || sess["saved"] != true || sess["summary"] != "two nodes" {
		t.Fatalf("first key %q, session %v", key, sess)
	}
	fi, _ := os.Stat(files[0])
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("session file mode %o", fi.Mode().Perm())
	}
	saved := th.waitEvent(t, "s", "session.saved", ioTimeout)
	if d := dataOf(t, saved); d["unique"] != "board" || d["handoff"] != true || d["summary"] != "two nodes" || d["id"] == "" {
		t.Fatalf("session.saved %v", d)
	}
	// The shell acks and closes: the window is gone and session.closed says why.
	sc.ack(closeCmd)
	_ = sc.ws.Close()
	closed := th.waitEvent(t, "s", "session.closed", ioTimeout)
	if dataOf(t, closed)["reason"] != "handoff" {
		t.Fatalf("session.closed %v", dataOf(t, closed))
	}
	if _, ok := th.core.window("w1"); ok {
		t.Fatal("the window is still listed after its handoff")
	}
	// Its token no longer opens anything.
	if code, _ := th.call(t, "GET", "/w/w1/shell.js?t="+win.Token, nil, ""); code != 401 {
		t.Fatalf("token after close: %d", code)
	}
}

// TestCase029_HandoffStayKeepsTheWindow: config.json "handoff": "stay".
func TestCase029_HandoffStayKeepsTheWindow(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"handoff": "stay"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// The app loads config.json once and hands the host its watcher.
	settings := config.Watch(filepath.Join(home, "config.json"), config.WatchOptions{})
	th := startLIPHostAt(t, home, func(o *Options) { o.Config = settings })
	win := th.open(t, "board", "")
	sc := th.dialShell(t, win, nil)
	sc.sendEnv("lip.ready", map[string]any{}, "shell")
	sc.sendEnv("board.export", map[string]any{"nodes": []string{"a"}}, "unique")
	th.waitEvent(t, "s", "session.saved", ioTimeout)
	if files := sessionFiles(t, th, "board"); len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	sc.noneBefore(t, th, "session.close") // handoff stay: the window stays
	if _, ok := th.core.window("w1"); !ok {
		t.Fatal("the window is gone")
	}
}

// TestCase030_SnapshotUpdatesSilently: no session.close, no handoff flag;
// a later snapshot updates the same file.
func TestCase030_SnapshotUpdatesSilently(t *testing.T) {
	th := startLIPHost(t, func(o *Options) { o.Handoff = "close" })
	win := th.open(t, "board", "")
	sc := th.dialShell(t, win, nil)
	sc.sendEnv("lip.ready", map[string]any{}, "shell")
	sc.sendEnv("board.snapshot", map[string]any{"v": 1}, "unique")
	th.waitEvent(t, "s", "board.snapshot", ioTimeout)
	sc.sendEnv("board.snapshot", map[string]any{"v": 2}, "unique")
	th.waitEvent(t, "s", "board.snapshot", ioTimeout)
	files := sessionFiles(t, th, "board")
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	key, sess := firstDataKey(t, files[0])
	if key != "session" || sess["handoff"] != false {
		t.Fatalf("key %q session %v", key, sess)
	}
	raw, _ := os.ReadFile(files[0])
	if !strings.Contains(string(raw), `"v": 2`) {
		t.Fatalf("not updated: %s", raw)
	}
	sc.noneBefore(t, th, "session.close") // a snapshot does not close the window
	res := th.listen(t, "cursor=s2&wait_ms=0&types=session.saved")
	if len(res.Events) != 0 {
		t.Fatalf("a snapshot is silent, got %v", res.Events)
	}
}

// TestCase031_ResumeLastQueuesRestoreFirst.
func TestCase031_ResumeLastQueuesRestoreFirst(t *testing.T) {
	th := startLIPHost(t, func(o *Options) { o.Handoff = "close" })
	win := th.open(t, "board", "")
	sc := th.dialShell(t, win, nil)
	sc.sendEnv("lip.ready", map[string]any{}, "shell")
	sc.sendEnv("board.export", map[string]any{"nodes": []string{"x", "y"}}, "unique")
	saved := th.waitEvent(t, "s", "session.saved", ioTimeout)
	id := dataOf(t, saved)["id"].(string)

	w2 := th.open(t, "board", "last")
	if w2.Session == nil || w2.Session.ID != id {
		t.Fatalf("open resume: %+v", w2.Session)
	}
	// Claude queues a command before the window connects: the restore
	// still comes first.
	if code, body := th.send(t, map[string]any{"lip": 1, "type": "board.add", "win": w2.Window, "data": map[string]any{"label": "z"}}); code != 200 {
		t.Fatalf("send %d %v", code, body)
	}
	sc2 := th.dialShell(t, w2, nil)
	sc2.sendEnv("lip.ready", map[string]any{}, "shell")
	cmds := sc2.commands(2, ioTimeout)
	if cmds[0].Type != "board.load" || cmds[1].Type != "board.add" {
		t.Fatalf("order %v", typesOf(cmds))
	}
	d := dataOf(t, cmds[0])
	if _, has := d["session"]; has || len(d["nodes"].([]any)) != 2 || cmds[0].Re != id {
		t.Fatalf("restore payload %v re %q", d, cmds[0].Re)
	}
	opened := th.waitEvent(t, "o", "session.open", ioTimeout)
	_ = opened
	// Resume by id works too; an unknown id is refused.
	th.open(t, "board", id)
	code, body := th.call(t, "POST", "/lip/open", map[string]any{"unique": "board", "resume": "ss_nope"}, testHostToken)
	if code != 404 {
		t.Fatalf("unknown session: %d %v", code, body)
	}
}

// TestCase032_TTLExpiresUndeliveredCommand: a window that never connects.
func TestCase032_TTLExpiresUndeliveredCommand(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	start := time.Now()
	code, body := th.send(t, map[string]any{"lip": 1, "type": "board.add", "win": win.Window, "ttl": 100, "data": map[string]any{}})
	if code != 200 {
		t.Fatalf("send %d %v", code, body)
	}
	id := body["accepted"].([]any)[0].(string)
	ev := th.waitEvent(t, "x", "lip.expired", ioTimeout)
	took := time.Since(start)
	ids := dataOf(t, ev)["ids"].([]any)
	if len(ids) != 1 || ids[0] != id || ev.Win != win.Window || ev.From != "host" {
		t.Fatalf("lip.expired %+v", ev)
	}
	// A timer never fires early, so only the lower bound is checked; the
	// wait above (ioTimeout) fails a ttl read as seconds or never armed.
	if took < 90*time.Millisecond {
		t.Fatalf("expired after %v, before its 100 ms ttl", took)
	}
	w, _ := th.core.window(win.Window)
	if q := w.queuedIDs(); len(q) != 0 {
		t.Fatalf("still queued: %v", q)
	}
}

// TestCase033_UndeclaredDownTypeIsRejected, alone in its batch.
func TestCase033_UndeclaredDownTypeIsRejected(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	code, body := th.send(t, []map[string]any{
		{"lip": 1, "type": "board.add", "win": win.Window},
		{"lip": 1, "id": "cm_bad", "type": "board.explode", "win": win.Window},
		{"lip": 1, "type": "other.add", "win": win.Window},
		{"lip": 1, "type": "lip.welcome", "win": win.Window},
		{"lip": 1, "type": "entity.say", "win": win.Window, "data": map[string]any{"text": "hi"}},
		{"lip": 1, "type": "board.add", "win": "w99"},
	})
	if code != 200 {
		t.Fatalf("send %d %v", code, body)
	}
	if n := len(body["accepted"].([]any)); n != 2 {
		t.Fatalf("accepted %v", body["accepted"])
	}
	rej := body["rejected"].([]any)
	want := []struct {
		index float64
		code  string
	}{{1, "undeclared_type"}, {2, "undeclared_type"}, {3, "undeclared_type"}, {5, "unknown_window"}}
	if len(rej) != len(want) {
		t.Fatalf("rejected %v", rej)
	}
	for i, w := range want {
		r := rej[i].(map[string]any)
		if r["index"] != w.index || r["code"] != w.code {
			t.Errorf("rejected[%d] = %v, want index %v code %s", i, r, w.index, w.code)
		}
	}
	if rej[0].(map[string]any)["id"] != "cm_bad" {
		t.Errorf("rejection should carry the id: %v", rej[0])
	}
}
