package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// homeCall is a call of the home page's API with a home token.
func homeCall(t *testing.T, port int, tok, path string) (int, map[string]any) {
	t.Helper()
	var body bytes.Buffer
	if tok == "" {
		body.WriteString(`{}`)
	}
	req, err := http.NewRequest(http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	c := &http.Client{Timeout: testutil.EventuallyTimeout}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	out := map[string]any{}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// TestHomeOffersTheTrayActionsWithoutATray (#21 home words without a
// tray): on a desktop with no tray host, the home page Lets opened can do
// what the tray's "Pair a phone…" and "Set up Claude…" do, by the same
// code: the overview offers both; Pair a phone hands the browser a
// one-time link to the pad page's pairing view (/#admin=…&view=pair);
// Set up Claude writes Lets' hooks into Claude Code's settings and says
// how it went (here no `claude` command: almost there). Before, the page
// only said to use the tray menu, which this desktop does not have.
func TestHomeOffersTheTrayActionsWithoutATray(t *testing.T) {
	testutil.ProcFS(t)
	claudeDir := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", claudeDir)
	codexHome := t.TempDir()
	t.Setenv("CODEX_HOME", codexHome)
	ds := startDesktopSession(t)
	// No claude command: the set-up does Lets' part and says what is left.
	t.Setenv("PATH", t.TempDir())
	home, sock, xdg := letsDesktopEnv(t, ds)
	l := startDesktopLets(t, ds, home, sock, xdg)
	testutil.Eventually(t, "lets shows its home page", func() bool { return len(l.browserURLs()) == 1 })
	info, err := config.ReadHostInfo(config.Paths{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	_, key, ok := strings.Cut(l.browserURLs()[0], "#k=")
	if !ok {
		t.Fatalf("the home page link %q has no key", l.browserURLs()[0])
	}
	req, _ := json.Marshal(map[string]string{"key": key})
	resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/home/api/claim", info.Port), "application/json", bytes.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	var claimed struct{ Token string }
	_ = json.NewDecoder(resp.Body).Decode(&claimed)
	resp.Body.Close()
	if resp.StatusCode != 200 || claimed.Token == "" {
		t.Fatalf("claim the home link: %s", resp.Status)
	}

	ovReq, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/home/api/overview", info.Port), nil)
	ovReq.Header.Set("Authorization", "Bearer "+claimed.Token)
	ovResp, err := http.DefaultClient.Do(ovReq)
	if err != nil {
		t.Fatal(err)
	}
	var ov struct {
		Actions struct {
			PairPhone   bool `json:"pair_phone"`
			SetupClaude bool `json:"setup_claude"`
			SetupCodex  bool `json:"setup_codex"`
		} `json:"actions"`
	}
	_ = json.NewDecoder(ovResp.Body).Decode(&ov)
	ovResp.Body.Close()
	if !ov.Actions.PairPhone || !ov.Actions.SetupClaude || !ov.Actions.SetupCodex {
		t.Fatalf("the overview offers %+v, want Pair a phone, Set up Claude and Set up Codex", ov.Actions)
	}

	if code, body := homeCall(t, info.Port, claimed.Token, "/home/api/pair-phone"); code != 200 {
		t.Fatalf("pair-phone: %d %v", code, body)
	}
	testutil.Eventually(t, "the browser gets the pairing link", func() bool { return len(l.browserURLs()) == 2 })
	link := l.browserURLs()[1]
	c := &http.Client{Timeout: testutil.EventuallyTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	lr, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	lr.Body.Close()
	if loc := lr.Header.Get("Location"); lr.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/#admin=") || !strings.HasSuffix(loc, "&view=pair") {
		t.Fatalf("the pairing link %s answered %s → %q, want the pad page's pairing view", link, lr.Status, loc)
	}

	code, body := homeCall(t, info.Port, claimed.Token, "/home/api/setup-claude")
	if code != 200 || body["done"] != true || !strings.Contains(fmt.Sprint(body["text"]), "install Claude Code") {
		t.Fatalf("setup-claude: %d %v", code, body)
	}
	settings, err := os.ReadFile(filepath.Join(claudeDir, "settings.json"))
	if err != nil || !strings.Contains(string(settings), " hook ") {
		t.Fatalf("Claude Code's settings after Set up Claude from Home: %v\n%s", err, settings)
	}
	// Issue #25: Set up Codex from Home is `lets setup codex` (here no
	// codex command: almost there), Remove its --uninstall.
	code, body = homeCall(t, info.Port, claimed.Token, "/home/api/setup-codex")
	if code != 200 || body["done"] != true || !strings.Contains(fmt.Sprint(body["text"]), "install Codex") || !strings.Contains(fmt.Sprint(body["detail"]), "npm install -g @openai/codex") {
		t.Fatalf("setup-codex: %d %v", code, body)
	}
	codexConfig := filepath.Join(codexHome, "config.toml")
	if cfg, err := os.ReadFile(codexConfig); err != nil || !strings.Contains(string(cfg), "[mcp_servers.lets]") {
		t.Fatalf("Codex's config after Set up Codex from Home: %v\n%s", err, cfg)
	}
	code, body = homeCall(t, info.Port, claimed.Token, "/home/api/remove-codex")
	if code != 200 || body["done"] != true {
		t.Fatalf("remove-codex: %d %v", code, body)
	}
	if cfg, err := os.ReadFile(codexConfig); err != nil || len(cfg) != 0 {
		t.Errorf("Codex's config after Remove from Home: %v %q, want it empty again", err, cfg)
	}
	if code, _ := homeCall(t, info.Port, "", "/home/api/pair-phone"); code != 401 {
		t.Errorf("pair-phone without a token: %d, want 401", code)
	}
}
