package frontend_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// agentOpens is Claude's open with the host token (what `lets mcp` does):
// POST /lip/open. It returns the answer.
func agentOpens(t *testing.T, h *homeHost, unique string) map[string]any {
	t.Helper()
	data, _ := json.Marshal(map[string]string{"unique": unique})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", h.URL()+"/lip/open", bytes.NewReader(data))
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil || resp.StatusCode != 200 {
		t.Fatalf("open %s: %d %v %v", unique, resp.StatusCode, ans, err)
	}
	return ans
}

// Point (issue #23): on a headless Lets, a window Claude opens gets no
// link in Claude's answer; it waits for the person. The person, signed in
// to the home page, sees "Waiting for you" with "Claude opened <title> for
// you." within a few seconds (the page is already open when Claude opens
// it), and opens it with the keyboard: the window's page loads in this tab
// and its shell connects.
func TestBrowserHomeShowsAWaitingWindow(t *testing.T) {
	h := startHomeHostNative(t, host.Options{}, false)
	ctx := browsertest.New(t, browsertest.Options{})
	if err := chromedp.Run(ctx,
		chromedp.Navigate(h.link(t)),
		chromedp.WaitVisible(`li.unique[data-unique="hello"]`, chromedp.ByQuery),
	); err != nil {
		t.Fatalf("home: %v", err)
	}
	var none bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("waiting") === null`, &none)); err != nil || !none {
		t.Fatalf("a Waiting for you card with nothing waiting (%v)", err)
	}

	ans := agentOpens(t, h, "hello")
	win, _ := ans["window"].(string)
	if ans["url"] != nil || ans["shown"] != "waiting" || win == "" {
		t.Fatalf("the agent's open answer %v: want a waiting window and no link", ans)
	}

	// The card appears by itself, well within the overview's 15 s refresh.
	began := time.Now()
	sel := `#waiting li[data-window="` + win + `"] button.open`
	if err := chromedp.Run(ctx, chromedp.WaitVisible(sel, chromedp.ByQuery)); err != nil {
		t.Fatalf("the waiting window never showed: %v", err)
	}
	took := time.Since(began)
	t.Logf("the waiting window showed %v after Claude opened it", took.Round(time.Millisecond))
	if took > 8*time.Second {
		t.Errorf("the waiting window took %v to show, want a few seconds", took)
	}
	var text, label, heading string
	if err := chromedp.Run(ctx,
		chromedp.Text(`#waiting li[data-window="`+win+`"] .what`, &text, chromedp.ByQuery),
		chromedp.AttributeValue(sel, "aria-label", &label, nil, chromedp.ByQuery),
		chromedp.Text(`#waiting-title`, &heading, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if heading != "Waiting for you" || text != "Claude opened Hello — say hi to Claude for you." || label != "Open Hello — say hi to Claude" {
		t.Fatalf("card: heading %q, text %q, button label %q", heading, text, label)
	}

	// The keyboard: focus the button and press Enter.
	if err := chromedp.Run(ctx, chromedp.Focus(sel, chromedp.ByQuery), chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatalf("press Open: %v", err)
	}
	testutil.Eventually(t, "the window's page loads in the tab and its shell connects", func() bool {
		wins := h.windows(t)
		return len(wins) == 1 && wins[0]["window"] == win && wins[0]["connected"] == true
	})
	var loc string
	if err := chromedp.Run(ctx, chromedp.Location(&loc)); err != nil || !strings.Contains(loc, "/w/"+win+"/") {
		t.Fatalf("the tab is at %q (%v), want the window's page", loc, err)
	}
}
