package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Point (#21, pair a phone): switching phones on from the tray writes
// "web": {"lan": true} and keeps the rest of the person's file: every
// other setting and every key this version does not know, at every level;
// the file stays private (0600).
func TestUpdateChangesOneSettingAndKeepsTheRest(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.json")
	text := `{
  "handoff": "stay",
  "future": {"a": [1, 2]},
  "wire": {"midi": false, "glow": 0.5},
  "web": {"port": 9000, "bind_host": "192.168.1.20", "theme": "dark"}
}`
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Update(p, func(c *Config) error {
		c.Web.LAN = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("updated file is not JSON: %v\n%s", err, data)
	}
	web, _ := raw["web"].(map[string]any)
	wire, _ := raw["wire"].(map[string]any)
	future, _ := raw["future"].(map[string]any)
	if web["lan"] != true {
		t.Fatalf("web.lan not written: %s", data)
	}
	if raw["handoff"] != "stay" || web["port"] != 9000.0 || web["bind_host"] != "192.168.1.20" || wire["midi"] != false {
		t.Fatalf("other settings lost: %s", data)
	}
	if web["theme"] != "dark" || wire["glow"] != 0.5 || future == nil || len(future["a"].([]any)) != 2 {
		t.Fatalf("unknown keys lost: %s", data)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode after update: %v %v, want 0600", fi.Mode().Perm(), err)
	}

	// And back off: only that key changes.
	if err := Update(p, func(c *Config) error { c.Web.LAN = false; return nil }); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(p)
	if err != nil || cfg.Web.LAN || cfg.Web.Port != 9000 || cfg.Handoff != "stay" || string(cfg.Web.Unknown["theme"]) != `"dark"` {
		t.Fatalf("after switching off: %+v %v", cfg.Web, err)
	}
}

func TestUpdateWithoutAFileStartsFromTheDefaults(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.json")
	if err := Update(p, func(c *Config) error { c.Web.LAN = true; return nil }); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(p)
	if err != nil || !cfg.Web.LAN || cfg.Web.Port != DefaultWebPort || !cfg.Web.Enabled {
		t.Fatalf("new file: %+v %v", cfg.Web, err)
	}
}

// A file Lets cannot read is never replaced (the person may be halfway
// through editing it), nor is one from a newer Lets; a failing change
// writes nothing.
func TestUpdateLeavesABrokenOrNewerFileAlone(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"broken": `{"web": {"lan": tru}`,
		"type":   `{"web": {"port": "eighty"}}`,
		"newer":  `{"version": 99, "web": {"lan": false}}`,
	} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		called := false
		err := Update(p, func(c *Config) error { called = true; c.Web.LAN = true; return nil })
		if err == nil || called {
			t.Errorf("%s: Update = %v (change called %v), want an error before any change", name, err, called)
		}
		if name == "newer" && !errors.Is(err, ErrNewerVersion) {
			t.Errorf("newer: %v, want ErrNewerVersion", err)
		}
		if got, _ := os.ReadFile(p); string(got) != text {
			t.Errorf("%s: file rewritten to %s", name, got)
		}
	}
	p := filepath.Join(dir, "ok.json")
	text := `{"handoff":"stay"}`
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("changed my mind")
	if err := Update(p, func(c *Config) error { c.Web.LAN = true; return boom }); !errors.Is(err, boom) {
		t.Fatalf("change error: %v", err)
	}
	if err := Update(p, func(c *Config) error { c.Web.Port = -1; return nil }); err == nil {
		t.Fatal("an invalid change was written")
	}
	if got, _ := os.ReadFile(p); string(got) != text {
		t.Fatalf("file rewritten to %s", got)
	}
}
