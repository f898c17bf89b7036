package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/claudefind"
	"github.com/lets-app/lets/backend/claudeinstall"
	"github.com/lets-app/lets/backend/claudeinstall/registrytest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// installClaudeLines posts /home/api/install-claude and returns the NDJSON
// lines it streamed.
func installClaudeLines(t *testing.T, th *testHost, tok string) []claudeInstallLine {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", th.URL()+"/home/api/install-claude", bytes.NewReader([]byte("{}")))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-ndjson") {
		t.Fatalf("install-claude answered %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var out []claudeInstallLine
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var l claudeInstallLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

// TestHomeInstallsClaude: the home page's Install Claude Code runs the real
// npm against a loopback registry stand-in, streams its steps, and the
// overview then finds Claude Code in Lets' own folder with its version,
// although PATH has none. Without node, the answer is the specific error.
func TestHomeInstallsClaude(t *testing.T) {
	node, npm := testutil.Command(t, "node"), testutil.Command(t, "npm")
	path := filepath.Dir(node) + ":" + filepath.Dir(npm) + ":/usr/bin:/bin"
	reg := registrytest.Start(t, claudefind.TestedVersion)
	npmDir := t.TempDir()
	data := t.TempDir()
	var env atomic.Pointer[[]string]
	getenv := func(k string) string {
		if k == "PATH" {
			return filepath.Join(npmDir, "no-claude-here")
		}
		return os.Getenv(k)
	}
	th := startLIPHost(t, func(o *Options) {
		o.Getenv = getenv
		o.Home = HomeOptions{
			FindClaude: func(ctx context.Context) (claudefind.Found, error) {
				return claudefind.Find(ctx, claudefind.Options{DataDir: data, Getenv: getenv})
			},
			InstallClaude: func(ctx context.Context, p func(claudeinstall.Progress)) (claudefind.Found, error) {
				return claudeinstall.Install(ctx, claudeinstall.Options{DataDir: data, Env: *env.Load()}, p)
			},
		}
	})
	_, tok := claimHome(t, th, homeKey(t, th))
	overview := func() homeClaude {
		t.Helper()
		code, body := th.call(t, "GET", "/home/api/overview", nil, tok)
		if code != 200 {
			t.Fatalf("overview %d", code)
		}
		b, _ := json.Marshal(body["claude"])
		var c homeClaude
		_ = json.Unmarshal(b, &c)
		return c
	}
	if c := overview(); c.CLI || !c.Installable || c.Tested != claudefind.TestedVersion {
		t.Fatalf("before: %+v", c)
	}

	// No node on PATH: the specific error, worded for the distribution.
	noNode := reg.Env(npmDir, filepath.Join(npmDir, "empty"))
	env.Store(&noNode)
	lines := installClaudeLines(t, th, tok)
	last := lines[len(lines)-1]
	if last.Error == nil || last.Error.Code != codeNodeMissing || !strings.HasPrefix(last.Error.Message, "Node.js is missing.") {
		t.Fatalf("without node: %+v", lines)
	}

	withNode := reg.Env(npmDir, path)
	env.Store(&withNode)
	lines = installClaudeLines(t, th, tok)
	last = lines[len(lines)-1]
	if last.Done == nil || last.Done.Version != claudefind.TestedVersion || last.Done.Path != claudefind.OwnBin(data) {
		t.Fatalf("install lines %+v", lines)
	}
	steps := map[claudeinstall.Step]bool{}
	for _, l := range lines {
		if l.Progress != nil {
			steps[l.Progress.Step] = true
		}
	}
	for _, s := range []claudeinstall.Step{claudeinstall.StepStarted, claudeinstall.StepDownloading, claudeinstall.StepInstalling, claudeinstall.StepDone} {
		if !steps[s] {
			t.Fatalf("no %s step in %+v", s, lines)
		}
	}
	if c := overview(); !c.CLI || c.CLIPath != claudefind.OwnBin(data) || c.Version != claudefind.TestedVersion || c.Old || c.Installing {
		t.Fatalf("after: %+v", c)
	}
}
