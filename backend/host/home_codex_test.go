package host

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lets-app/lets/backend/codexsetup"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// codexOverview fetches the overview's Codex card.
func codexOverview(t *testing.T, th *testHost, tok string) (homeCodex, homeActions) {
	t.Helper()
	req, _ := http.NewRequest("GET", th.URL()+"/home/api/overview", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ov homeOverview
	if err := json.NewDecoder(resp.Body).Decode(&ov); err != nil {
		t.Fatal(err)
	}
	return ov.Codex, ov.Actions
}

// Issue #25: the overview says whether Codex is on the PATH and whether
// its config.toml has Lets' MCP server (as `lets doctor` reads it), stale
// when the program it runs is gone, and a kind problem for a config Lets
// cannot change.
func TestHomeOverviewShowsCodex(t *testing.T) {
	codexHome, bin := t.TempDir(), t.TempDir()
	th := startLIPHost(t, func(o *Options) {
		o.Getenv = func(k string) string {
			switch k {
			case "CODEX_HOME":
				return codexHome
			case "PATH":
				return bin
			}
			return ""
		}
	})
	_, tok := claimHome(t, th, homeKey(t, th))
	file := filepath.Join(codexHome, "config.toml")

	c, a := codexOverview(t, th, tok)
	if c.CLI || c.SetUp || c.Problem != "" || c.ConfigPath != file || a.SetupCodex {
		t.Errorf("nothing installed: %+v, actions %+v", c, a)
	}
	codex := filepath.Join(bin, "codex")
	if err := os.WriteFile(codex, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	lets := filepath.Join(bin, "lets")
	if err := os.WriteFile(lets, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := codexsetup.Install([]byte("model = \"gpt-5-codex\"\n"), codexsetup.Server{Command: lets, Args: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	if c, _ := codexOverview(t, th, tok); !c.CLI || c.CLIPath != codex || !c.SetUp || c.Stale || c.Problem != "" {
		t.Errorf("installed and set up: %+v", c)
	}
	if err := os.Remove(lets); err != nil {
		t.Fatal(err)
	}
	if c, _ := codexOverview(t, th, tok); !c.SetUp || !c.Stale {
		t.Errorf("set up for a lets that is gone: %+v, want stale", c)
	}
	for config, want := range map[string]string{
		"oops = \n": "has a mistake",
		"[mcp_servers.lets]\ncommand = \"npx\"\n": "that Lets did not add",
	} {
		if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		if c, _ := codexOverview(t, th, tok); c.SetUp || !strings.Contains(c.Problem, want) {
			t.Errorf("config %q: %+v, want a problem saying %q", config, c, want)
		}
	}
}

// Set up Codex and Remove run the app's set-up (remove false, then true)
// for a home token only, and pass its words back; one at a time; without
// the app's set-up the routes name the commands.
func TestHomeSetsUpAndRemovesCodex(t *testing.T) {
	var setups, removes atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	th := startLIPHost(t, func(o *Options) {
		o.Home.SetupCodex = func(_ context.Context, remove bool) HomeSetupResult {
			if remove {
				removes.Add(1)
				close(started)
				<-release
				return HomeSetupResult{Done: true, Text: "Lets' tools are out of Codex"}
			}
			setups.Add(1)
			return HomeSetupResult{Done: true, Text: "Codex is connected to Lets", Detail: "Start Codex with `lets codex`"}
		}
	})
	_, tok := claimHome(t, th, homeKey(t, th))
	if _, a := codexOverview(t, th, tok); !a.SetupCodex {
		t.Fatalf("overview actions %+v, want setup_codex", a)
	}
	win := th.open(t, "board", "")
	for _, tk := range []struct {
		tok  string
		want int
	}{{"", 401}, {win.Token, 403}, {"made-up", 401}} {
		for _, p := range []string{"/home/api/setup-codex", "/home/api/remove-codex"} {
			if code, _ := th.call(t, "POST", p, nil, tk.tok); code != tk.want {
				t.Errorf("POST %s with token %q: %d, want %d", p, tk.tok, code, tk.want)
			}
		}
	}
	if setups.Load() != 0 || removes.Load() != 0 {
		t.Fatalf("refused calls ran the set-up: %d, %d", setups.Load(), removes.Load())
	}
	code, body := th.call(t, "POST", "/home/api/setup-codex", nil, tok)
	if code != 200 || body["done"] != true || body["text"] != "Codex is connected to Lets" || !strings.Contains(body["detail"].(string), "lets codex") {
		t.Fatalf("setup-codex: %d %v", code, body)
	}
	first := make(chan int, 1)
	go func() {
		code, _ := th.call(t, "POST", "/home/api/remove-codex", nil, tok)
		first <- code
	}()
	testutil.Wait(t, "the remove to start", started)
	code, body = th.call(t, "POST", "/home/api/setup-codex", nil, tok)
	if msg, _ := body["error"].(map[string]any)["message"].(string); code != 409 || !strings.Contains(msg, "already changing Codex") {
		t.Errorf("a set-up while a remove runs: %d %v", code, body)
	}
	close(release)
	if code := testutil.Wait(t, "the remove to answer", first); code != 200 {
		t.Errorf("the remove: %d", code)
	}
	if setups.Load() != 1 || removes.Load() != 1 {
		t.Errorf("%d set-ups, %d removes; want one each", setups.Load(), removes.Load())
	}

	bare := startLIPHost(t)
	_, tok = claimHome(t, bare, homeKey(t, bare))
	for p, want := range map[string]string{"/home/api/setup-codex": "`lets setup codex`", "/home/api/remove-codex": "`lets setup codex --uninstall`"} {
		code, body := bare.call(t, "POST", p, nil, tok)
		if msg, _ := body["error"].(map[string]any)["message"].(string); code != 404 || !strings.Contains(msg, want) {
			t.Errorf("POST %s without the set-up: %d %v", p, code, body)
		}
	}
}
