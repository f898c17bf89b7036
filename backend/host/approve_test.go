package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/approval"
)

type approveResult struct {
	status int
	answer approval.Answer
	err    error
}

// approveAsync posts /lip/approve with the host token, as a hook would,
// and delivers the answer on the returned channel.
func approveAsync(th *testHost, body map[string]any, tok string) <-chan approveResult {
	out := make(chan approveResult, 1)
	go func() {
		data, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", th.URL()+"/lip/approve", bytes.NewReader(data))
		req.Header.Set("Authorization", "Bearer "+tok)
		c := &http.Client{Timeout: ioTimeout}
		resp, err := c.Do(req)
		if err != nil {
			out <- approveResult{err: err}
			return
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var a approval.Answer
		if resp.StatusCode == 200 {
			if err := json.Unmarshal(raw, &a); err != nil {
				out <- approveResult{status: resp.StatusCode, err: fmt.Errorf("decode %s: %w", raw, err)}
				return
			}
		}
		out <- approveResult{status: resp.StatusCode, answer: a}
	}()
	return out
}

func waitApprove(t *testing.T, ch <-chan approveResult) approveResult {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("POST /lip/approve: %v", r.err)
		}
		return r
	case <-time.After(ioTimeout):
		t.Fatal("POST /lip/approve never answered")
	}
	return approveResult{}
}

// TestApproveCardAnsweredByTheShellOnly: the approval card's host API
// (issue #11) draws shell.ask {kind: "approval", tool, summary} in the
// window and returns the human's Allow; a forged answer from the unique's
// side of the channel and a shell.answer sent through /lip/send are
// refused and do not settle it.
func TestApproveCardAnsweredByTheShellOnly(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	sc := th.dialShell(t, win, nil)
	sc.sendEnv("lip.ready", map[string]any{}, "shell")

	res := approveAsync(th, map[string]any{"window": win.Window, "tool": "Bash", "summary": "Run the tests\nin ./backend"}, testHostToken)
	ask, ok := sc.nextOfType("shell.ask", ioTimeout)
	if !ok {
		t.Fatal("the shell was never asked")
	}
	d := dataOf(t, ask)
	if d["kind"] != "approval" || d["tool"] != "Bash" || d["summary"] != "Run the tests in ./backend" || d["id"] == "" {
		t.Fatalf("shell.ask %v", d)
	}
	id := d["id"].(string)

	// The unique's voice on the channel cannot answer, nor can the
	// privileged API: both say "deny", and the human's "allow" after them
	// is the answer the approval gets.
	sc.sendEnv("shell.answer", map[string]any{"id": id, "choice": "deny"}, "unique")
	if e, ok := sc.nextOfType("lip.error", ioTimeout); !ok || dataOf(t, e)["code"] != "forbidden" {
		t.Fatalf("a unique-stamped answer was not refused: %v %v", ok, e)
	}
	// Nor can the privileged API.
	code, body := th.send(t, map[string]any{"lip": 1, "type": "shell.answer", "win": win.Window, "data": map[string]any{"id": id, "choice": "deny"}})
	if code == 200 && len(body["rejected"].([]any)) == 0 {
		t.Fatalf("/lip/send accepted shell.answer: %v", body)
	}

	sc.sendEnv("shell.answer", map[string]any{"id": id, "choice": "allow"}, "shell")
	r := waitApprove(t, res)
	if r.status != 200 || r.answer.Choice != "allow" || r.answer.Reason != "answered" {
		t.Fatalf("approve: %d %+v", r.status, r.answer)
	}

	// Deny (or anything but allow) is deny.
	res = approveAsync(th, map[string]any{"window": win.Window, "tool": "Write", "summary": "Create notes.md"}, testHostToken)
	ask, _ = sc.nextOfType("shell.ask", ioTimeout)
	sc.sendEnv("shell.answer", map[string]any{"id": dataOf(t, ask)["id"], "choice": "always"}, "shell")
	if r := waitApprove(t, res); r.answer.Choice != "deny" || r.answer.Reason != "answered" {
		t.Fatalf("a non-allow answer: %+v", r.answer)
	}
}

// TestApproveWithoutAnswerDenies: no shell connected → deny at once; no
// answer in time → deny with reason timeout; bad requests are refused
// with a message that says what to send; a window token is not enough.
func TestApproveWithoutAnswerDenies(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")

	if r := waitApprove(t, approveAsync(th, map[string]any{"window": win.Window, "tool": "Bash"}, testHostToken)); r.answer.Choice != "deny" || r.answer.Reason != "no_shell" {
		t.Fatalf("without a shell: %+v", r.answer)
	}
	sc := th.dialShell(t, win, nil)
	sc.sendEnv("lip.ready", map[string]any{}, "shell")
	start := time.Now()
	res := approveAsync(th, map[string]any{"window": win.Window, "tool": "Bash", "timeoutMs": 1000}, testHostToken)
	if _, ok := sc.nextOfType("shell.ask", ioTimeout); !ok {
		t.Fatal("the shell was never asked")
	}
	r := waitApprove(t, res)
	if r.answer.Choice != "deny" || r.answer.Reason != "timeout" || time.Since(start) < 900*time.Millisecond {
		t.Fatalf("timeout: %+v after %v", r.answer, time.Since(start))
	}
	// A card nobody answered in time goes down.
	if _, ok := sc.nextOfType("shell.dismiss", ioTimeout); !ok {
		t.Fatal("the timed-out card was not dismissed")
	}

	// The caller stops waiting (answered elsewhere): the card goes down.
	data, _ := json.Marshal(map[string]any{"window": win.Window, "tool": "Bash", "timeoutMs": 60000})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", th.URL()+"/lip/approve", bytes.NewReader(data))
	req.Header.Set("Authorization", "Bearer "+testHostToken)
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	ask, ok := sc.nextOfType("shell.ask", ioTimeout)
	if !ok {
		t.Fatal("the shell was never asked the second time")
	}
	cancel()
	<-gone
	d, ok := sc.nextOfType("shell.dismiss", ioTimeout)
	if !ok || dataOf(t, d)["id"] != dataOf(t, ask)["id"] {
		t.Fatalf("the abandoned card was not dismissed (%v)", ok)
	}

	if r := waitApprove(t, approveAsync(th, map[string]any{"window": win.Window}, testHostToken)); r.status != 400 {
		t.Fatalf("no tool: %d", r.status)
	}
	if r := waitApprove(t, approveAsync(th, map[string]any{"window": "w_nope", "tool": "Bash"}, testHostToken)); r.status != 404 {
		t.Fatalf("unknown window: %d", r.status)
	}
	if r := waitApprove(t, approveAsync(th, map[string]any{"window": win.Window, "tool": "Bash"}, win.Token)); r.status != 403 {
		t.Fatalf("a window token must not ask for approvals: %d", r.status)
	}
}
