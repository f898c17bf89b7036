package chatdriver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// TestBrowserChatDriven: a chat window Lets drives, in Chromium through a
// real host with a fake agent — the person types and presses Enter, the
// reply streams into the chat, the band shows Stop and the working
// folder and Stop interrupts; a can_use_tool request shows the approval
// card, and Allow with the mouse answers the agent. Screenshots:
// chat-agent-streaming-{light,dark}.png, chat-agent-approval-{dark,light}.png.
func TestBrowserChatDriven(t *testing.T) {
	r := newRig(t, nil)
	win := r.open(t, "")
	a := r.agents.next(t)
	ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 760, Timeout: 120 * time.Second})
	worlds := watchWorlds(ctx)
	if err := chromedp.Run(ctx, browsertest.Media("prefers-color-scheme", "light"),
		chromedp.Navigate(r.h.url(t, win)),
		chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#lets-chat[data-docked="true"] #lets-chat-input`, chromedp.ByQuery),
	); err != nil {
		t.Fatalf("the chat window did not come up: %v", err)
	}
	var origin string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`new URL(document.getElementById("lets-unique").src).origin`, &origin)); err != nil {
		t.Fatal(err)
	}
	worlds.until(t, ctx, origin, `!document.getElementById("folder").hidden && document.getElementById("folder").textContent.includes("Lets")`)

	if err := chromedp.Run(ctx, chromedp.SendKeys(`#lets-chat-input`, "Help me plan a picnic for Saturday\r", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if b := testutil.Wait(t, "the typed message to reach the agent", a.sent); b[0].Text != "Help me plan a picnic for Saturday" {
		t.Fatalf("blocks %+v", b)
	}
	worlds.until(t, ctx, origin, `!document.getElementById("stop").hidden`)
	for _, w := range strings.Fields("Happy to help! A picnic needs three things: a shady spot, food that travels well, and something to sit on.") {
		a.emit(t, TextDelta{Text: w + " "})
	}
	browserUntil(t, ctx, `document.getElementById("lets-chat-log").innerText.includes("something to sit on")`)
	worlds.settled(t, ctx, origin)
	browsertest.Screenshot(t, ctx, "chat-agent-streaming-light.png")
	if err := chromedp.Run(ctx, browsertest.Media("prefers-color-scheme", "dark")); err != nil {
		t.Fatal(err)
	}
	worlds.settled(t, ctx, origin)
	browsertest.Screenshot(t, ctx, "chat-agent-streaming-dark.png")
	if err := chromedp.Run(ctx, browsertest.Media("prefers-color-scheme", "light")); err != nil {
		t.Fatal(err)
	}

	// Stop, pressed in the band.
	worlds.eval(t, ctx, origin, `document.getElementById("stop").click()`, nil)
	testutil.Wait(t, "Stop to interrupt the agent", a.interrupts)
	a.emit(t, Result{IsError: true, Error: "interrupted"})
	worlds.until(t, ctx, origin, `document.getElementById("stop").hidden`)
	browserUntil(t, ctx, `document.getElementById("lets-chat-log").innerText.includes("(Stopped.)")`)

	// The approval card, dark.
	if err := chromedp.Run(ctx, browsertest.Media("prefers-color-scheme", "dark")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.SendKeys(`#lets-chat-input`, "Make a shopping list file\r", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	testutil.Wait(t, "the second message to reach the agent", a.sent)
	a.emit(t, TextDelta{Text: "I'll write the list to a file in your Lets folder."})
	a.emit(t, ControlRequest{RequestID: "req-1", Subtype: SubtypeCanUseTool, ToolName: "Write", Input: json.RawMessage(`{"file_path":"/home/sam/Lets/picnic-shopping.md","content":"- bread"}`)})
	if err := chromedp.Run(ctx, chromedp.WaitVisible(`[data-choice="allow"]`, chromedp.ByQuery)); err != nil {
		t.Fatalf("no approval card: %v", err)
	}
	// Plain words first; the tool and the whole path under Details (issue #26).
	var card struct{ Q, Details string }
	_ = chromedp.Run(ctx, chromedp.Evaluate(`({Q: document.getElementById("prompt-q").textContent, Details: document.querySelector("dialog.prompt details").textContent})`, &card))
	if card.Q != "Claude wants to write the file picnic-shopping.md in Lets" || !strings.Contains(card.Details, "Write") || !strings.Contains(card.Details, "/home/sam/Lets/picnic-shopping.md") {
		t.Fatalf("card %+v", card)
	}
	worlds.settled(t, ctx, origin) // the card's entrance
	browsertest.Screenshot(t, ctx, "chat-agent-approval-dark.png")
	if err := chromedp.Run(ctx, browsertest.Media("prefers-color-scheme", "light")); err != nil {
		t.Fatal(err)
	}
	worlds.settled(t, ctx, origin)
	browsertest.Screenshot(t, ctx, "chat-agent-approval-light.png")
	// A click before the card is armed does not count (the pointer cannot say yes by accident).
	if err := chromedp.Run(ctx, chromedp.WaitVisible(`dialog.prompt[data-armed="true"]`, chromedp.ByQuery), chromedp.Click(`[data-choice="allow"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if ans := testutil.Wait(t, "Allow to reach the agent", a.answers); !ans.Allow || ans.RequestID != "req-1" {
		t.Fatalf("answer %+v", ans)
	}
	a.emit(t, Result{})
}

// worlds maps an origin to its page's JavaScript world (the unique runs
// in a cross-origin frame).
type worlds struct {
	mu     sync.Mutex
	byOrig map[string]string
}

func watchWorlds(ctx context.Context) *worlds {
	w := &worlds{byOrig: map[string]string{}}
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExecutionContextCreated); ok {
			var aux struct {
				IsDefault bool `json:"isDefault"`
			}
			_ = json.Unmarshal(e.Context.AuxData, &aux)
			if aux.IsDefault {
				w.mu.Lock()
				w.byOrig[e.Context.Origin] = e.Context.UniqueID
				w.mu.Unlock()
			}
		}
	})
	return w
}

func (w *worlds) eval(t *testing.T, ctx context.Context, origin, expr string, out any) {
	t.Helper()
	var id string
	testutil.Eventually(t, "the page at "+origin+" has a JavaScript world", func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		id = w.byOrig[origin]
		return id != ""
	})
	err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		res, exc, err := runtime.Evaluate(expr).WithUniqueContextID(id).WithReturnByValue(true).Do(ctx)
		if err != nil {
			return err
		}
		if exc != nil {
			return fmt.Errorf("%s", exc.Text)
		}
		if out != nil && res != nil {
			return json.Unmarshal(res.Value, out)
		}
		return nil
	}))
	if err != nil {
		t.Fatalf("in the unique, %s: %v", expr, err)
	}
}

func (w *worlds) until(t *testing.T, ctx context.Context, origin, expr string) {
	t.Helper()
	testutil.Eventually(t, "in the unique, "+expr, func() bool {
		var ok bool
		w.eval(t, ctx, origin, "!!("+expr+")", &ok)
		return ok
	})
}

// stillAnimating is true while a finite CSS animation or transition runs
// in the document (getAnimations flushes style first, so a transition a
// colour-scheme change starts is already there).
const stillAnimating = `document.getAnimations().some(a => (a.playState === "running" || a.pending) && a.effect?.getComputedTiming().iterations !== Infinity)`

// settled waits until nothing animates in the shell page or in the
// unique's frame, so a screenshot shows where the transitions end.
func (w *worlds) settled(t *testing.T, ctx context.Context, origin string) {
	t.Helper()
	browserUntil(t, ctx, "!"+stillAnimating)
	w.until(t, ctx, origin, "!"+stillAnimating)
}

func browserUntil(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	waitBrowser(t, ctx, "!!("+expr+")")
}
