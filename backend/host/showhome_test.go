package host

import (
	"strings"
	"testing"
	"time"
)

// Point (single instance): POST /app/show-home with the host token asks
// the app to show its home window; without the token nothing happens.
func TestShowHomeCallsTheAppWithTheHostToken(t *testing.T) {
	shown := make(chan struct{}, 4)
	th := startLIPHost(t, func(o *Options) { o.OnShowHome = func() { shown <- struct{}{} } })
	if code, _ := th.call(t, "POST", "/app/show-home", nil, ""); code != 401 {
		t.Fatalf("without a token: %d, want 401", code)
	}
	select {
	case <-shown:
		t.Fatal("the home window was shown for a caller without the token")
	case <-time.After(100 * time.Millisecond):
	}
	code, body := th.call(t, "POST", "/app/show-home", nil, testHostToken)
	if code != 200 {
		t.Fatalf("with the host token: %d %v, want 200", code, body)
	}
	select {
	case <-shown:
	case <-time.After(ioTimeout):
		t.Fatal("the app was not asked to show its home window")
	}
}

// Point: a headless host (no home window) answers 501 and says where the
// home page is, so the second `lets` can tell the person.
func TestShowHomeOnAHeadlessHostSaysWhereTheHomePageIs(t *testing.T) {
	th := startLIPHost(t)
	code, body := th.call(t, "POST", "/app/show-home", nil, testHostToken)
	if code != 501 {
		t.Fatalf("headless show-home: %d %v, want 501", code, body)
	}
	e, _ := body["error"].(map[string]any)
	if msg, _ := e["message"].(string); !strings.Contains(msg, th.URL()+"/") {
		t.Fatalf("message %q does not name the home page %s/", msg, th.URL())
	}
}
