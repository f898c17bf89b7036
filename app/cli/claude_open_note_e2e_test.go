package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/claudestub"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// TestClaudeE2EOpenInstructionReachesTheModel (issue #22, "what Claude is
// told reaches Claude"): in a real Claude Code run against `lets serve`
// (headless: no window can be shown on screen), the model calls Lets' open
// tool. Claude Code gives the model only the result's structuredContent,
// so the next model request must carry the instruction there: the note
// saying the window waits on the person's home page, with no link in it
// (issue #23: the agent never gets a window's one-time link).
func TestClaudeE2EOpenInstructionReachesTheModel(t *testing.T) {
	testutil.Claude(t) // before anything starts: skip (or fail) at once without it
	h := startE2EHost(t, e2eConfig(5*time.Second))
	next := make(chan claudestub.Request, 1)
	stub := claudestub.Start(t,
		claudestub.Call("mcp__lets__open", map[string]any{"unique": "hello"}),
		requestStep(next, claudestub.Turn{Text: "Here is your link."}),
	)
	p := startClaude(t, h, stub, claudeOpts{prompt: "Open the hello unique for me.", approval: 5 * time.Second})
	var req claudestub.Request
	select {
	case req = <-next:
	case <-p.done:
		t.Fatalf("claude ended before the open tool's result reached the model (err %v)", *p.err)
	case <-time.After(testutil.EventuallyTimeout + time.Minute):
		t.Fatal("the open tool's result never reached the model")
	}
	window, _, text, err := openedWindow(req)
	if err != nil {
		t.Fatalf("the open result the model saw: %v", err)
	}
	// What the model saw is the structuredContent as JSON text; its note
	// is the instruction.
	var seen struct {
		Note string `json:"note"`
	}
	if err := json.Unmarshal([]byte(text), &seen); err != nil {
		t.Fatalf("the model did not get the open tool's structuredContent as JSON (%v):\n%s", err, text)
	}
	for _, want := range []string{
		"No window could be shown on the screen here",
		"waiting for the person on their Lets home page",
		"Only the person can open it; you get no link to it.",
		"as window " + window,
	} {
		if !strings.Contains(seen.Note, want) {
			t.Errorf("the note the model received lacks %q:\n%s", want, seen.Note)
		}
	}
	// And it is in the request body itself, as Claude Code sent it, with
	// no window link anywhere in it.
	if !strings.Contains(string(req.Body), "waiting for the person on their Lets home page") {
		t.Errorf("the model request body does not carry the instruction")
	}
	if strings.Contains(string(req.Body), "/w/"+window+"/?t=") {
		t.Errorf("the model request body carries the window's one-time link")
	}
	run := p.wait(t)
	if run.err != nil {
		t.Fatalf("claude -p: %v", run.err)
	}
	t.Logf("the model received the note: %q", seen.Note)
}
