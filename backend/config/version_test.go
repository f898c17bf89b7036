package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Issue #10, versioned config: a missing "version" reads as 1.
func TestConfigWithoutVersionReadsAsVersionOne(t *testing.T) {
	cfg, err := Parse([]byte(`{"handoff":"stay"}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Version != 1 || cfg.Handoff != "stay" {
		t.Fatalf("got version %d handoff %q", cfg.Version, cfg.Handoff)
	}
	if cfg.UnknownKeys() != nil && len(cfg.UnknownKeys()) != 0 {
		t.Fatalf("version must not count as unknown: %v", cfg.UnknownKeys())
	}
}

// Issue #10, versioned config: a newer version is a clear error, the
// defaults are used and the file is not touched.
func TestConfigFromNewerLetsIsRefusedClearly(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.json")
	text := `{"version": 2, "handoff": "stay", "hologram": true}`
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(p)
	if !errors.Is(err, ErrNewerVersion) {
		t.Fatalf("want ErrNewerVersion, got %v", err)
	}
	for _, want := range []string{p, `"version": 2`, "newer Lets", "understands version 1", "Update Lets"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q should contain %q", err, want)
		}
	}
	if cfg.Handoff != "close" {
		t.Fatalf("a refused file must give the defaults, got handoff %q", cfg.Handoff)
	}
	if err := Save(p, Defaults()); !errors.Is(err, ErrNewerVersion) {
		t.Fatalf("Save over a newer file must refuse, got %v", err)
	}
	if data, _ := os.ReadFile(p); string(data) != text {
		t.Fatalf("the newer file was changed: %s", data)
	}
}

func TestConfigVersionMustBeAPositiveWholeNumber(t *testing.T) {
	for _, text := range []string{`{"version": 0}`, `{"version": -3}`, `{"version": "1"}`, `{"version": 1.5}`} {
		if _, err := Parse([]byte(text)); err == nil || !strings.Contains(err.Error(), `"version"`) {
			t.Errorf("%s: want an error naming \"version\", got %v", text, err)
		}
	}
}

// Issue #10, versioned config: "version": 1 is written with the defaults.
func TestWriteDefaultsWritesVersionOneOnlyWhenMissing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.json")
	wrote, err := WriteDefaults(p)
	if err != nil || !wrote {
		t.Fatalf("WriteDefaults = %v, %v", wrote, err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "{\n  \"version\": 1,\n") {
		t.Fatalf("version should come first:\n%s", data)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %o", fi.Mode().Perm())
	}
	cfg, err := Load(p)
	if err != nil || !reflect.DeepEqual(cfg, Defaults()) {
		t.Fatalf("written defaults read back as %+v, %v", cfg, err)
	}
	if err := os.WriteFile(p, []byte(`{"handoff":"stay"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if wrote, err := WriteDefaults(p); err != nil || wrote {
		t.Fatalf("an existing file must be left alone: %v, %v", wrote, err)
	}
	if data, _ := os.ReadFile(p); string(data) != `{"handoff":"stay"}` {
		t.Fatalf("existing file changed: %s", data)
	}
}

// Issue #10: unknown keys inside sections are reported with their path and
// a "did you mean" when a known key is close.
func TestUnknownKeysInsideSectionsAreReportedWithSuggestions(t *testing.T) {
	cfg, err := Parse([]byte(`{
		"handoff": "stay",
		"wire": {"enabled": true, "midi_profil": "x", "colour": "red"},
		"web": {"prot": 0, "lan": false},
		"midi": true,
		"hanoff": "close",
		"future": {}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, u := range cfg.UnknownSettings() {
		got[u.Path()] = u.Suggestion
	}
	want := map[string]string{
		"wire.midi_profil": "wire.midi_profile",
		"wire.colour":      "",
		"web.prot":         "web.port",
		"midi":             "wire.midi",
		"hanoff":           "handoff",
		"future":           "",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("unknown settings = %v, want %v", got, want)
	}
	if s := (UnknownSetting{Section: "wire", Key: "midi_profil", Suggestion: "wire.midi_profile"}).String(); s != `"wire.midi_profil" (did you mean "wire.midi_profile"?)` {
		t.Fatalf("String() = %s", s)
	}
	if cfg.Web.Port != DefaultWebPort {
		t.Fatalf("a misspelt key must not set the real one: web.port = %d", cfg.Web.Port)
	}
}

func TestSectionThatIsNotAnObjectIsExplained(t *testing.T) {
	if _, err := Parse([]byte(`{"wire": 3}`)); err == nil || !strings.Contains(err.Error(), "wire") {
		t.Fatalf("got %v", err)
	}
}

// Issue #10: unknown keys, top-level and inside sections, are kept when the
// file is rewritten.
func TestSaveKeepsUnknownKeysAtEveryLevel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.json")
	text := `{"handoff":"stay","future":{"a":[1,2]},"wire":{"midi":false,"glow":0.5},"web":{"port":9000,"theme":"dark"}}`
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	cfg.HostPort = 4321
	if err := Save(p, cfg); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("saved file is not JSON: %v\n%s", err, data)
	}
	wire, _ := raw["wire"].(map[string]any)
	web, _ := raw["web"].(map[string]any)
	future, _ := raw["future"].(map[string]any)
	if raw["version"] != 1.0 || raw["host_port"] != 4321.0 || raw["handoff"] != "stay" {
		t.Fatalf("known keys lost: %s", data)
	}
	if wire["glow"] != 0.5 || web["theme"] != "dark" || future == nil || len(future["a"].([]any)) != 2 {
		t.Fatalf("unknown keys lost: %s", data)
	}
	if wire["midi"] != false || web["port"] != 9000.0 {
		t.Fatalf("section values lost: %s", data)
	}
	again, err := Load(p)
	if err != nil || !reflect.DeepEqual(again, cfg) {
		t.Fatalf("round trip changed the settings:\n%+v\n%+v (%v)", again, cfg, err)
	}
}
