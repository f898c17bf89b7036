package cli

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/audio/showaudio"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/testenv/letstest"
)

// The daemon takes the sounds through its own interface; the app adapts.
var _ daemon.ExperienceAudio = (*showaudio.Host)(nil)
var _ experience.HostAudio = (*showaudio.Host)(nil)

// occupySocket puts a regular file where the test env's pad socket goes:
// the daemon must refuse the path and leave the file alone.
func occupySocket(t *testing.T, e *testEnv) string {
	t.Helper()
	sock := e.Env.Getenv("PAD_LATTICE_SOCKET")
	if err := os.WriteFile(sock, []byte("not a socket"), 0o600); err != nil {
		t.Fatal(err)
	}
	return sock
}

// assertNothingAnnounced checks that a serve that failed left no trace: no
// browser pad address printed, no state/web-surface.json, no host.json.
func assertNothingAnnounced(t *testing.T, e *testEnv) {
	t.Helper()
	paths := config.Paths{Home: e.home}
	if strings.Contains(e.out.String(), "Browser pad") || strings.Contains(e.out.String(), "http://") {
		t.Errorf("a failed serve printed addresses:\n%s", e.out.String())
	}
	for _, f := range []string{lets.WebSurfaceInfoPath(paths), paths.HostFile()} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a failed serve left %s behind (%v)", f, err)
		}
	}
}

// Issue #10: with the socket path occupied, serve exits non-zero, prints
// no browser pad address and leaves no state; the hint names the
// config.json key, not a flag serve does not have.
func TestServeWithSocketTakenFailsCleanlyWithConfigHint(t *testing.T) {
	e := newTestEnv(t)
	sock := occupySocket(t, e)
	if code := e.run("serve"); code != 1 {
		t.Fatalf("serve exit %d, want 1\n%s%s", code, e.out.String(), e.err.String())
	}
	assertNothingAnnounced(t, e)
	msg := e.err.String()
	for _, want := range []string{sock, "not a Unix socket", `"wire": {"socket"`, "config.json"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr should contain %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "--socket") {
		t.Errorf("serve has no --socket flag, yet the hint names it:\n%s", msg)
	}
	if data, _ := os.ReadFile(sock); string(data) != "not a socket" {
		t.Fatal("the file at the socket path was touched")
	}
}

// Issue #10: the same failure under `lets pad daemon` names the flag.
func TestPadDaemonWithSocketTakenHintsTheFlag(t *testing.T) {
	e := newPadDaemonEnv(t)
	if err := os.WriteFile(e.socket, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := runPadDaemon(context.Background(), e.env, []string{"--web", "--no-open", "--port", "0"})
	if !errors.Is(err, daemon.ErrNotSocket) || !strings.Contains(err.Error(), "--socket") || strings.Contains(err.Error(), "config.json") {
		t.Fatalf("err = %v, want ErrNotSocket with a --socket hint", err)
	}
	if strings.Contains(e.stdout.String(), "http://") {
		t.Fatalf("addresses printed although the daemon did not start:\n%s", e.stdout.String())
	}
	if _, err := os.Stat(lets.WebSurfaceInfoPath(config.Paths{Home: e.home})); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("web-surface.json written although the daemon did not start: %v", err)
	}
}

// Issue #10: a browser pad port that is taken fails serve with the
// config.json key to change; `lets pad daemon` names --port.
func TestBrowserPadPortInUseHintFitsTheCommand(t *testing.T) {
	port := letstest.BusyPort(t)
	e := newTestEnv(t)
	if err := os.WriteFile(filepath.Join(e.home, "config.json"), []byte(`{"web": {"port": `+strconv.Itoa(port)+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := e.run("serve"); code != 1 {
		t.Fatalf("serve exit %d, want 1\n%s", code, e.err.String())
	}
	assertNothingAnnounced(t, e)
	if msg := e.err.String(); !strings.Contains(msg, `"web": {"port": 0}`) || strings.Contains(msg, "--port") {
		t.Fatalf("serve's hint should name the config.json key and no flag:\n%s", msg)
	}
	if _, err := os.Stat(e.Env.Getenv("PAD_LATTICE_SOCKET")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the pad socket is left behind")
	}

	d := newPadDaemonEnv(t)
	err := runPadDaemon(context.Background(), d.env, []string{"--web", "--no-open", "--port", strconv.Itoa(port)})
	if err == nil || !strings.Contains(err.Error(), "--port") || strings.Contains(err.Error(), "config.json") {
		t.Fatalf("pad daemon's hint should name --port: %v", err)
	}
}

// Issue #10: a serve whose sounds cannot start fails as a whole (no host,
// no state) and says which config.json key turns them off.
func TestServeWithoutAudioPlayerFailsWithConfigHint(t *testing.T) {
	e := newTestEnv(t)
	e.Env.AudioPlayer = []string{} // an empty command: no player
	if err := os.WriteFile(filepath.Join(e.home, "config.json"), []byte(`{"web": {"port": 0}, "wire": {"midi": false, "audio_feedback": true}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := e.run("serve"); code != 1 {
		t.Fatalf("serve exit %d, want 1\n%s", code, e.err.String())
	}
	assertNothingAnnounced(t, e)
	if msg := e.err.String(); !strings.Contains(msg, `"wire": {"audio_feedback": false}`) || strings.Contains(msg, "--audio") {
		t.Fatalf("hint: %s", msg)
	}
}

// Issue #10: unknown keys inside sections are reported when serve starts,
// with the path, the key and a "did you mean".
func TestServeWarnsAboutUnknownKeysWithSuggestions(t *testing.T) {
	e := newTestEnv(t)
	if err := os.WriteFile(filepath.Join(e.home, "config.json"), []byte(`{"web": {"port": 0, "lna": true}, "wire": {"midi_profil": "x"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := startServe(t, e, "--no-pad")
	stop()
	log := e.err.String()
	for _, want := range []string{"wire.midi_profil", "wire.midi_profile", "web.lna", "web.lan", filepath.Join(e.home, "config.json")} {
		if !strings.Contains(log, want) {
			t.Errorf("the start-up warnings should contain %q:\n%s", want, log)
		}
	}
}

// Issue #10: a config.json from a newer Lets stops serve with a clear
// message instead of being half understood.
func TestServeRefusesConfigFromNewerLets(t *testing.T) {
	e := newTestEnv(t)
	cfgPath := filepath.Join(e.home, "config.json")
	text := `{"version": 7, "web": {"port": 0}}`
	if err := os.WriteFile(cfgPath, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := e.run("serve", "--no-pad"); code != 1 {
		t.Fatalf("serve exit %d, want 1", code)
	}
	if msg := e.err.String(); !strings.Contains(msg, "newer Lets") || !strings.Contains(msg, "Update Lets") {
		t.Fatalf("message: %s", msg)
	}
	assertNothingAnnounced(t, e)
	if data, _ := os.ReadFile(cfgPath); string(data) != text {
		t.Fatal("the newer file was changed")
	}
}

// Issue #10: "version": 1 is written with the defaults on the first start.
func TestServeWritesDefaultConfigWithVersion(t *testing.T) {
	e := newTestEnv(t)
	cfgPath := filepath.Join(e.home, "config.json")
	if err := os.Remove(cfgPath); err != nil {
		t.Fatal(err)
	}
	stop := startServe(t, e, "--no-pad")
	stop()
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(cfgPath)
	if cfg.Version != 1 || !strings.Contains(string(data), `"version": 1`) {
		t.Fatalf("config.json written on first start:\n%s", data)
	}
}

// Issue #10: `lets doctor` names unknown keys with their path and a "did
// you mean", and fails on a file from a newer Lets.
func TestDoctorReportsUnknownKeysAndNewerVersion(t *testing.T) {
	e := newTestEnv(t)
	cfgPath := filepath.Join(e.home, "config.json")
	if err := os.WriteFile(cfgPath, []byte(`{"wire": {"audio_feedbak": true}, "hanoff": "stay"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	e.run("doctor")
	out := e.out.String()
	for _, want := range []string{cfgPath, `"wire.audio_feedbak" (did you mean "wire.audio_feedback"?)`, `"hanoff" (did you mean "handoff"?)`, "[warn]"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor should report %q:\n%s", want, out)
		}
	}
	if err := os.WriteFile(cfgPath, []byte(`{"version": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	e2 := newTestEnv(t)
	e2.Env.Getenv = e.Env.Getenv
	if code := e2.run("doctor"); code != 1 || !strings.Contains(e2.out.String(), "newer Lets") {
		t.Fatalf("doctor on a newer config.json: exit %d\n%s", code, e2.out.String())
	}
}

// Issue #10, test seams: commands get their devices from Env fields, not
// from values hidden in the context; so does the process they start
// (app/lets).
func TestNoContextValueHooksInProductCode(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	process, err := filepath.Glob("../lets/*.go")
	if err != nil || len(process) == 0 {
		t.Fatalf("the process package's files (../lets): %v", err)
	}
	files = append(files, process...)
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if ok && sel.Sel.Name == "WithValue" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "context" {
					t.Errorf("%s: context.WithValue in product code; add an Env field instead", fset.Position(sel.Pos()))
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no product files checked")
	}
}

// Issue #10: the case of the report — another daemon already answers on
// the socket — fails serve the same way, before anything is announced.
func TestServeWithLiveDaemonOnSocketFailsCleanly(t *testing.T) {
	e := newTestEnv(t)
	sock := e.Env.Getenv("PAD_LATTICE_SOCKET")
	other, err := daemon.Listen(daemon.Options{SocketPath: sock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	if code := e.run("serve"); code != 1 {
		t.Fatalf("serve exit %d, want 1\n%s%s", code, e.out.String(), e.err.String())
	}
	assertNothingAnnounced(t, e)
	msg := e.err.String()
	if !strings.Contains(msg, "another Pad-Lattice daemon is already running") || !strings.Contains(msg, `"wire": {"socket"`) || strings.Contains(msg, "--socket") {
		t.Fatalf("stderr: %s", msg)
	}
	if fi, err := os.Lstat(sock); err != nil || fi.Mode().Type() != os.ModeSocket {
		t.Fatalf("the other daemon's socket was disturbed: %v", err)
	}
}
