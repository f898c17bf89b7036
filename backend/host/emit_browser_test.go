package host

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestSDKKnowsWhatTheUniqueDeclared: the SDK served on the unique's origin
// carries the unique's declared events, so lip.emit can decide at once.
func TestSDKKnowsWhatTheUniqueDeclared(t *testing.T) {
	th := startLIPHost(t)
	th.open(t, "board", "")
	o, ok := th.origins.get("board")
	if !ok {
		t.Fatal("no origin for board")
	}
	// The file as the unique's origin serves it (past the origin's gate).
	rec := httptest.NewRecorder()
	o.serveSDK(rec, httptest.NewRequest("GET", o.url()+"/lip/sdk.js", nil))
	body, _ := io.ReadAll(rec.Result().Body)
	if strings.Contains(string(body), sdkDeclaredPlaceholder) {
		t.Fatal("the SDK still has the placeholder for the declarations")
	}
	want := `{\"unique\":\"board\",\"events\":[\"board.changed\",\"board.note\"],\"export\":\"board.export\",\"snapshot\":\"board.snapshot\"}`
	if !strings.Contains(string(body), want) {
		t.Fatalf("the SDK does not carry board's declarations %s", want)
	}
}

// TestBrowserEmitOfUndeclaredTypeThrows (issue #10): in the real page,
// lip.emit of a type the unique may not emit throws at the call with the
// rule, and nothing is sent; a declared event still reaches Claude.
func TestBrowserEmitOfUndeclaredTypeThrows(t *testing.T) {
	th := startLIPHost(t)
	win := th.openOnly(t, "board", "")
	ctx := browsertest.New(t, browsertest.Options{Width: 800, Height: 600, Timeout: 60 * time.Second})
	uc := watchContexts(ctx)
	if err := chromedp.Run(ctx,
		chromedp.Navigate(win.URL),
		chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery),
	); err != nil {
		t.Fatalf("shell page: %v", err)
	}
	o, _ := th.origins.get("board")
	uo := o.url()
	uc.pollIn(t, ctx, uo, `window.lip && document.readyState === "complete"`)

	var got struct {
		Undeclared, Reserved, Declared string
	}
	uc.evalIn(t, ctx, uo, `(() => {
		const attempt = (f) => { try { f(); return "sent"; } catch (e) { return e.name + ": " + e.message; } };
		return {
			undeclared: attempt(() => lip.emit("board.explode", {n: 1})),
			reserved: attempt(() => lip.emit("chat.message", {text: "hi"})),
			declared: attempt(() => lip.emit("board.note", {text: "fine"})),
		};
	})()`, &got)
	if !strings.HasPrefix(got.Undeclared, `TypeError: lip.emit("board.explode"): board.explode is not an event board declares`) ||
		!strings.Contains(got.Undeclared, "LIP 1 §3") || !strings.Contains(got.Undeclared, "board.changed, board.note") {
		t.Errorf("undeclared emit: %s", got.Undeclared)
	}
	if !strings.Contains(got.Reserved, `"chat" is a reserved domain`) {
		t.Errorf("reserved emit: %s", got.Reserved)
	}
	if got.Declared != "sent" {
		t.Errorf("declared emit: %s", got.Declared)
	}
	th.waitEvent(t, "claude", "board.note", ioTimeout)
	if res := th.listen(t, "cursor=check&wait_ms=0&types=board.explode"); len(res.Events) != 0 {
		t.Fatalf("the refused event was sent: %v", res.Events)
	}
}
