package host

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/lets-app/lets/backend/hostapi"
)

// Attack tests of issue #23, "the host-token holder can act as the person
// in headless mode": the attacker is the agent, holding only the host
// token (what Claude's `lets mcp` and any script of the agent hold). Who
// loads a window's one-time URL first becomes that window's person, and a
// home link signs a browser in as the person; so no answer to the host
// token may carry either.

// leaksSecret says whether an answer carries a window's one-time URL or a
// home link's key.
func leaksSecret(body map[string]any) bool {
	b, _ := json.Marshal(body)
	s := string(b)
	return strings.Contains(s, "?t=") || strings.Contains(s, "#k=") || strings.Contains(s, `"url"`)
}

// (a) POST /lip/open on a headless host (no native window at all): the
// answer has no URL and no key; it says the window waits on the home page.
func TestAgentOpenOnHeadlessHostGetsNoURL(t *testing.T) {
	th := startLIPHost(t, headless)
	code, body := th.call(t, "POST", "/lip/open", map[string]any{"unique": "board"}, testHostToken)
	if code != 200 {
		t.Fatalf("open: %d %v", code, body)
	}
	if leaksSecret(body) {
		t.Fatalf("the open answer to the host token carries the window's one-time URL: %v", body)
	}
	if body["shown"] != ShownWaiting || body["home"] != th.URL()+"/" {
		t.Fatalf("the answer should say the window waits on the home page %s: %v", th.URL()+"/", body)
	}
}

// (b) POST /lip/home-link: the link goes to the host's own hook (the
// person's browser or terminal), never into the answer.
func TestAgentGetsNoHomeLink(t *testing.T) {
	var mu sync.Mutex
	var shownLinks []string
	th := startLIPHost(t, headless, func(o *Options) {
		o.OnShowHomeLink = func(link string) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			shownLinks = append(shownLinks, link)
			return "terminal", nil
		}
	})
	code, body := th.call(t, "POST", "/lip/home-link", nil, testHostToken)
	if code != 200 || leaksSecret(body) || body["shown"] != "terminal" {
		t.Fatalf("home-link answered %d %v: want {shown: terminal} and no link", code, body)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(shownLinks) != 1 || !strings.HasPrefix(shownLinks[0], th.URL()+"/#k=") {
		t.Fatalf("the host showed %v, want one fresh home link", shownLinks)
	}
}

// (c) The host token on the home page's waiting windows: 403, and the
// overview lists none to it; the person's home token sees and shows them.
func TestAgentCannotShowAWaitingWindow(t *testing.T) {
	th := startLIPHost(t, headless)
	win := th.openOnly(t, "board", "")
	for _, r := range []struct{ method, path string }{
		{"POST", "/home/api/windows/" + win.Window + "/show"},
		{"GET", "/home/api/waiting"},
	} {
		code, body := th.call(t, r.method, r.path, nil, testHostToken)
		if code != 403 || leaksSecret(body) {
			t.Errorf("%s %s with the host token: %d %v, want 403", r.method, r.path, code, body)
		}
	}
	if code, body := th.call(t, "GET", "/home/api/overview", nil, testHostToken); code != 200 || len(body["waiting"].([]any)) != 0 {
		t.Errorf("overview with the host token lists waiting windows: %d %v", code, body["waiting"])
	}

	_, tok := claimHome(t, th, homeKey(t, th))
	_, ov := th.call(t, "GET", "/home/api/overview", nil, tok)
	waiting, _ := ov["waiting"].([]any)
	if len(waiting) != 1 || waiting[0].(map[string]any)["window"] != win.Window || waiting[0].(map[string]any)["title"] != "Board board" {
		t.Fatalf("the person's overview: waiting %v", ov["waiting"])
	}
	code, body := th.call(t, "POST", "/home/api/windows/"+win.Window+"/show", nil, tok)
	u, _ := body["url"].(string)
	if code != 200 || !strings.Contains(u, "/w/"+win.Window+"/?t=") {
		t.Fatalf("show with the home token: %d %v", code, body)
	}
	loadShellToken(t, u)
	// Opened, it waits no more: a second show is 404 and the list is empty.
	if code, _ := th.call(t, "POST", "/home/api/windows/"+win.Window+"/show", nil, tok); code != 404 {
		t.Errorf("show after the window opened: %d, want 404", code)
	}
	if _, ov := th.call(t, "GET", "/home/api/waiting", nil, tok); len(ov["waiting"].([]any)) != 0 {
		t.Errorf("still waiting after it opened: %v", ov)
	}
}

// (d) POST /home/api/open with the host token gets no URL; the person's
// home page (a real home token) gets it, because the person asked there.
func TestAgentHomeOpenGetsNoURL(t *testing.T) {
	th := startLIPHost(t, headless)
	code, body := th.call(t, "POST", "/home/api/open", map[string]any{"unique": "board"}, testHostToken)
	if code != 200 || leaksSecret(body) || body["shown"] != ShownWaiting {
		t.Fatalf("/home/api/open with the host token: %d %v", code, body)
	}
	_, tok := claimHome(t, th, homeKey(t, th))
	code, body = th.call(t, "POST", "/home/api/open", map[string]any{"unique": "board"}, tok)
	if u, _ := body["url"].(string); code != 200 || !strings.Contains(u, "/w/w2/?t=") {
		t.Fatalf("/home/api/open with the person's home token: %d %v", code, body)
	}
}

// apiChats opens chat windows through the host API with the host token,
// as the app's chat manager does, and passes on whatever URL it got.
type apiChats struct {
	fakeChats
	t  *testing.T
	th func() *testHost
}

func (a *apiChats) Open(ctx context.Context, id string) (hostapi.ChatOpened, error) {
	_, body := a.th().call(a.t, "POST", "/lip/open", map[string]any{"unique": "board"}, testHostToken)
	w, _ := body["window"].(string)
	u, _ := body["url"].(string)
	return hostapi.ChatOpened{Window: w, URL: u}, nil
}

func (a *apiChats) OpenNew(ctx context.Context, folder string) (hostapi.ChatOpened, error) {
	return a.Open(ctx, "")
}

// (d') A chat window: POST /app/chat (`lets chat`, host token) gets no URL
// on a headless host; the person's home page gets it from /home/api/chat.
func TestAgentChatOpenGetsNoURL(t *testing.T) {
	var th *testHost
	ac := &apiChats{t: t, th: func() *testHost { return th }}
	th = startLIPHost(t, headless, func(o *Options) { o.Chats = ac })
	code, body := th.call(t, "POST", "/app/chat", "{}", testHostToken)
	if code != 200 || leaksSecret(body) || body["shown"] != ShownWaiting || body["home"] != th.URL()+"/" {
		t.Fatalf("/app/chat with the host token: %d %v", code, body)
	}
	_, tok := claimHome(t, th, homeKey(t, th))
	code, body = th.call(t, "POST", "/home/api/chat", "{}", tok)
	if u, _ := body["url"].(string); code != 200 || !strings.Contains(u, "/w/w2/?t=") {
		t.Fatalf("/home/api/chat with the person's home token: %d %v", code, body)
	}
}
