package config

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestResolveHome(t *testing.T) {
	got, err := ResolveHome(env(map[string]string{"HOME": "/home/ada"}))
	if err != nil || got != "/home/ada/.lets" {
		t.Fatalf("default home = %q, %v", got, err)
	}
	got, err = ResolveHome(env(map[string]string{"HOME": "/home/ada", HomeEnv: "/srv/lets"}))
	if err != nil || got != "/srv/lets" {
		t.Fatalf("LETS_HOME = %q, %v", got, err)
	}
}

func TestLoadMissingFileGivesDefaults(t *testing.T) {
	cfg, err := Load(filepath.Join(t.TempDir(), "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	if cfg.Handoff != want.Handoff || cfg.HostPort != 0 || !cfg.Wire.Enabled {
		t.Fatalf("defaults = %+v", cfg)
	}
}

func TestLoadKeepsUnknownKeysAndIgnoresThem(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.json")
	text := `{"handoff":"stay","future_feature":{"on":true},"zzz":1}`
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Handoff != "stay" {
		t.Fatalf("handoff = %q", cfg.Handoff)
	}
	if got := strings.Join(cfg.UnknownKeys(), ","); got != "future_feature,zzz" {
		t.Fatalf("unknown keys = %q", got)
	}
	if string(cfg.Unknown["future_feature"]) != `{"on":true}` {
		t.Fatalf("unknown value not kept verbatim: %s", cfg.Unknown["future_feature"])
	}
	if !cfg.Wire.Enabled {
		t.Fatal("a key missing from the file must keep its default")
	}
}

func TestLoadBrokenFileReportsLineAndKeepsFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.json")
	text := "{\n  \"handoff\": \"stay\",\n  \"wire\": {\"enabled\": tru}\n}\n"
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(p)
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("want *ParseError, got %v", err)
	}
	if pe.Line != 3 || pe.Path != p {
		t.Fatalf("error at %s:%d:%d, want line 3 of %s", pe.Path, pe.Line, pe.Column, p)
	}
	if !strings.Contains(err.Error(), p+":3:") || !strings.Contains(err.Error(), "default settings") {
		t.Fatalf("message should name file and line and say defaults are used: %q", err)
	}
	if cfg.Handoff != "close" || !cfg.Wire.Enabled {
		t.Fatalf("broken file must give defaults in memory, got %+v", cfg)
	}
	after, _ := os.ReadFile(p)
	if string(after) != text {
		t.Fatal("a broken config.json must never be rewritten")
	}
}

func TestLoadWrongTypeAndBadValues(t *testing.T) {
	cases := map[string]string{
		`{"host_port":"80"}`:  "host_port",
		`{"handoff":"maybe"}`: `"handoff" must be "close" or "stay"`,
		`{"host_port":70000}`: "between 0 and 65535",
		`[]`:                  "cannot unmarshal array",
		`null`:                "must hold a JSON object",
	}
	for text, want := range cases {
		p := filepath.Join(t.TempDir(), "config.json")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v should mention %q", text, err, want)
		}
		if cfg.Handoff != "close" {
			t.Errorf("%s: defaults not used", text)
		}
	}
}

func TestEnsureCreatesPrivateLayoutAndCleansLeftovers(t *testing.T) {
	home := filepath.Join(t.TempDir(), "lets")
	p := Paths{Home: home}
	if err := os.MkdirAll(p.SessionsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	leftover := filepath.Join(p.SessionsDir(), ".ss_1.json.lets-tmp-0011aa")
	if err := os.WriteFile(leftover, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Ensure(p, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	for _, d := range p.dirs() {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s mode = %o, want 700", d, fi.Mode().Perm())
		}
	}
	if _, err := os.Stat(leftover); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a temporary file from a crashed write must be removed on start")
	}
}

func TestEnsureRefusesFileWhereFolderBelongs(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "logs"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := Ensure(Paths{Home: home}, slog.New(slog.DiscardHandler))
	if err == nil {
		t.Fatal("want an error")
	}
}

func TestHostInfoRoundTripIsPrivate(t *testing.T) {
	p := Paths{Home: t.TempDir()}
	if _, err := ReadHostInfo(p); !errors.Is(err, ErrHostNotRunning) {
		t.Fatalf("no host.json: got %v", err)
	}
	in := HostInfo{Port: 4242, PID: 7, Token: "secret", Version: "1.2.3", StartedAt: time.Unix(100, 0).UTC()}
	if err := WriteHostInfo(p, in); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p.HostFile())
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("host.json mode = %o, want 600", fi.Mode().Perm())
	}
	out, err := ReadHostInfo(p)
	if err != nil || out != in {
		t.Fatalf("round trip: %+v, %v", out, err)
	}
	if err := os.Chmod(p.HostFile(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadHostInfo(p); err == nil || !strings.Contains(err.Error(), "other users") {
		t.Fatalf("a world-readable host.json must be refused, got %v", err)
	}
	if err := os.Chmod(p.HostFile(), 0o600); err != nil {
		t.Fatal(err)
	}
	// Another process's file is left alone; our own is removed.
	if err := RemoveHostInfo(p, 8); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.HostFile()); err != nil {
		t.Fatal("removed another process's host.json")
	}
	if err := RemoveHostInfo(p, 7); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.HostFile()); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("own host.json not removed")
	}
}

func TestHostInfoDamagedFile(t *testing.T) {
	p := Paths{Home: t.TempDir()}
	if err := os.WriteFile(p.HostFile(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadHostInfo(p); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("got %v", err)
	}
}
