package host

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// withHomeActions gives the host the app's Pair a phone and Set up Claude.
func withHomeActions(pair func(context.Context) error, setup func(context.Context) HomeSetupResult) hostOpt {
	return func(o *Options) {
		o.Home.PairPhone = pair
		o.Home.SetupClaude = setup
	}
}

// Point (#21 home words without a tray): the overview says which of the
// tray's actions the page may offer itself; with the app's actions, a
// home token runs them (Pair a phone → the app's pairing, Set up Claude →
// the app's set-up, its words back); a window token is 403 and no token
// 401, and neither runs anything.
func TestHomeActionsRunTheAppsActions(t *testing.T) {
	var pairs, setups atomic.Int32
	th := startLIPHost(t, withHomeActions(
		func(context.Context) error { pairs.Add(1); return nil },
		func(context.Context) HomeSetupResult {
			setups.Add(1)
			return HomeSetupResult{Done: true, Text: "Claude is connected to Lets", Detail: "Start a new Claude Code session to use Lets"}
		}))
	_, tok := claimHome(t, th, homeKey(t, th))
	code, ov := th.call(t, "GET", "/home/api/overview", nil, tok)
	if code != 200 {
		t.Fatalf("overview: %d", code)
	}
	if a, _ := ov["actions"].(map[string]any); a["pair_phone"] != true || a["setup_claude"] != true {
		t.Fatalf("overview actions %v, want both", ov["actions"])
	}

	win := th.open(t, "board", "")
	for _, tk := range []struct {
		tok  string
		want int
	}{{"", 401}, {win.Token, 403}, {"made-up", 401}} {
		for _, p := range []string{"/home/api/pair-phone", "/home/api/setup-claude"} {
			if code, _ := th.call(t, "POST", p, nil, tk.tok); code != tk.want {
				t.Errorf("POST %s with token %q: %d, want %d", p, tk.tok, code, tk.want)
			}
		}
	}
	if pairs.Load() != 0 || setups.Load() != 0 {
		t.Fatalf("refused calls ran the actions: %d pairings, %d set-ups", pairs.Load(), setups.Load())
	}

	if code, body := th.call(t, "POST", "/home/api/pair-phone", nil, tok); code != 200 || body["ok"] != true {
		t.Fatalf("pair-phone: %d %v", code, body)
	}
	code, body := th.call(t, "POST", "/home/api/setup-claude", nil, tok)
	if code != 200 || body["done"] != true || body["text"] != "Claude is connected to Lets" || !strings.Contains(body["detail"].(string), "new Claude Code session") {
		t.Fatalf("setup-claude: %d %v", code, body)
	}
	if pairs.Load() != 1 || setups.Load() != 1 {
		t.Fatalf("%d pairings, %d set-ups; want one each", pairs.Load(), setups.Load())
	}
}

// Point: a pairing that fails says why (the app's words), and a second
// Set up Claude while one runs is refused kindly instead of running two.
func TestHomeActionsSayWhatWentWrong(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	th := startLIPHost(t, withHomeActions(
		func(context.Context) error {
			return errors.New(`the browser pad is off; set "web": {"enabled": true} in config.json and restart Lets`)
		},
		func(context.Context) HomeSetupResult {
			close(started)
			<-release
			return HomeSetupResult{Text: "Claude set-up did not fully work"}
		}))
	_, tok := claimHome(t, th, homeKey(t, th))
	code, body := th.call(t, "POST", "/home/api/pair-phone", nil, tok)
	if msg, _ := body["error"].(map[string]any)["message"].(string); code != 409 || !strings.Contains(msg, "browser pad is off") {
		t.Fatalf("failed pairing: %d %v", code, body)
	}
	first := make(chan int, 1)
	go func() {
		code, _ := th.call(t, "POST", "/home/api/setup-claude", nil, tok)
		first <- code
	}()
	testutil.Wait(t, "the first set-up to start", started)
	code, body = th.call(t, "POST", "/home/api/setup-claude", nil, tok)
	if msg, _ := body["error"].(map[string]any)["message"].(string); code != 409 || !strings.Contains(msg, "already setting up") {
		t.Errorf("a second set-up meanwhile: %d %v", code, body)
	}
	close(release)
	if code := testutil.Wait(t, "the first set-up to answer", first); code != 200 {
		t.Errorf("the first set-up: %d", code)
	}
}

// Point: without the app's actions (lets serve, headless), the overview
// offers none and the routes say what to run instead.
func TestHomeActionsAbsentSayWhatToRun(t *testing.T) {
	th := startLIPHost(t)
	_, tok := claimHome(t, th, homeKey(t, th))
	_, ov := th.call(t, "GET", "/home/api/overview", nil, tok)
	if a, _ := ov["actions"].(map[string]any); a["pair_phone"] != false || a["setup_claude"] != false {
		t.Fatalf("overview actions %v, want none", ov["actions"])
	}
	for p, want := range map[string]string{"/home/api/pair-phone": "lets pad pair", "/home/api/setup-claude": "lets setup claude"} {
		code, body := th.call(t, "POST", p, nil, tok)
		if msg, _ := body["error"].(map[string]any)["message"].(string); code != 404 || !strings.Contains(msg, want) {
			t.Errorf("POST %s without the action: %d %v", p, code, body)
		}
	}
}
