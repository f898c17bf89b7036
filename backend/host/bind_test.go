package host

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/wire"
)

// bind posts BindRoute for window with pid in the header ("" sends none).
func (th *testHost) bind(t *testing.T, window, pid, tok string) (int, map[string]any) {
	t.Helper()
	data, _ := json.Marshal(map[string]string{"window": window})
	code, raw := th.postWithPID(t, "/lip/bind", string(data), pid, tok)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	return code, body
}

// TestBindMovesAWindowToTheNewClaude: a chat's claude was started again
// with a new pid; POST /lip/bind moves the open window to it. The old
// claude's card goes down, the new one's mood and card come up, the window
// list names the new pid, and reports of the old pid no longer reach it.
func TestBindMovesAWindowToTheNewClaude(t *testing.T) {
	acts := newFakeActions()
	th := startLIPHost(t, withActions(acts))
	win := th.openBound(t, "board", "9001")
	sc := th.readyShell(t, win)

	th.report(t, rep(9001, "waiting_for_approval", "request_id", "old-r", "tool", "Bash"))
	oldCard := askOf(t, sc)["id"].(string)
	newRep := rep(9002, "waiting_for_approval", "request_id", "new-r", "tool", "Edit")
	newRep["session_id"] = "sess-2"
	th.report(t, newRep)

	code, body := th.bind(t, win.Window, "9002", testHostToken)
	if code != 200 || body["ok"] != true || body["claude_pid"] != float64(9002) {
		t.Fatalf("bind: %d %v", code, body)
	}
	if id := dismissOf(t, sc); id != oldCard {
		t.Fatalf("binding dismissed %q, want the old claude's card %q", id, oldCard)
	}
	if got := moodOf(t, sc); got != "alert" {
		t.Fatalf("mood after binding %q, want the new claude's alert", got)
	}
	card := askOf(t, sc)
	if card["tool"] != "Edit" {
		t.Fatalf("the new claude's card: %v", card)
	}
	if w := th.windowsByID(t)[win.Window]; w["claude_pid"] != float64(9002) || w["claude_session"] != "sess-2" {
		t.Fatalf("GET /lip/windows after binding: %v", w)
	}
	// The old claude's reports pass the window by.
	if _, ans := th.report(t, rep(9001, "running")); ans["windows"] != float64(0) {
		t.Fatalf("a report of the old pid still reaches %v window(s)", ans["windows"])
	}
	// The new card answers the new claude.
	sc.sendEnv("shell.answer", map[string]any{"id": card["id"], "choice": "allow"}, "shell")
	if c := acts.next(t); c.requestID != "new-r" || c.action != wire.ActionApprove || c.id.SessionID != "sess-2" {
		t.Fatalf("allow after binding: %+v", c)
	}
	// Binding again to the same pid changes nothing.
	if code, _ := th.bind(t, win.Window, "9002", testHostToken); code != 200 {
		t.Fatalf("binding twice: %d", code)
	}
	sc.noneBefore(t, th, "shell.ask") // binding to the same pid asks nothing again
}

// TestBindRefusals: no token, no pid, a window that is not open.
func TestBindRefusals(t *testing.T) {
	th := startLIPHost(t)
	win := th.openBound(t, "board", "9101")
	if code, _ := th.bind(t, win.Window, "9102", ""); code != 401 {
		t.Errorf("without the host token: %d, want 401", code)
	}
	if code, body := th.bind(t, win.Window, "", testHostToken); code != 400 || !bytes.Contains(mustJSON(body), []byte(hostapi.HeaderClaudePID)) {
		t.Errorf("without a pid: %d %v, want 400 naming the header", code, body)
	}
	if code, body := th.bind(t, win.Window, "nope", testHostToken); code != 400 {
		t.Errorf("with a malformed pid: %d %v, want 400", code, body)
	}
	// A unique's page (its window token) cannot move a window to another
	// claude to catch that claude's approval cards.
	if code, _ := th.bind(t, win.Window, "9102", win.Token); code != 403 {
		t.Errorf("with the window's own token: %d, want 403", code)
	}
	code, body := th.bind(t, "w999", "9102", testHostToken)
	if code != 404 || body["error"].(map[string]any)["code"] != "unknown_window" {
		t.Errorf("an unknown window: %d %v, want 404 unknown_window", code, body)
	}
	if w := th.windowsByID(t)[win.Window]; w["claude_pid"] != float64(9101) {
		t.Errorf("a refused bind moved the window: %v", w)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
