package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestClaudeApprovalTimeoutDefaultsTo120Seconds(t *testing.T) {
	cfg, err := Parse([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Claude.ApprovalTimeoutS != 120 || cfg.Claude.ApprovalTimeout() != 120*time.Second {
		t.Fatalf("default approval timeout = %d", cfg.Claude.ApprovalTimeoutS)
	}
	cfg, err = Parse([]byte(`{"claude": {"approvalTimeoutS": 300}}`))
	if err != nil || cfg.Claude.ApprovalTimeout() != 5*time.Minute {
		t.Fatalf("approvalTimeoutS 300 = %v, %v", cfg.Claude.ApprovalTimeout(), err)
	}
	if len(cfg.UnknownKeys()) != 0 {
		t.Fatalf("claude.approvalTimeoutS must be known: %v", cfg.UnknownKeys())
	}
}

func TestClaudeApprovalTimeoutMustBeBetween5And3600(t *testing.T) {
	for _, ok := range []int{5, 3600} {
		text := fmt.Sprintf(`{"claude": {"approvalTimeoutS": %d}}`, ok)
		if _, err := Parse([]byte(text)); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	}
	for _, bad := range []string{`0`, `4`, `3601`, `-1`} {
		text := `{"claude": {"approvalTimeoutS": ` + bad + `}}`
		cfg, err := Parse([]byte(text))
		if err == nil || !strings.Contains(err.Error(), `"claude": {"approvalTimeoutS"} must be between 5 and 3600`) {
			t.Errorf("%s: want a range error, got %v", text, err)
		}
		if cfg.Claude.ApprovalTimeoutS != DefaultApprovalTimeoutS {
			t.Errorf("%s: a bad value must give the defaults, got %d", text, cfg.Claude.ApprovalTimeoutS)
		}
	}
	for _, text := range []string{`{"claude": []}`, `{"claude": {"approvalTimeoutS": "60"}}`} {
		if _, err := Parse([]byte(text)); err == nil {
			t.Errorf("%s: want an error", text)
		}
	}
}

func TestClaudeUnknownKeysGetSuggestions(t *testing.T) {
	cfg, err := Parse([]byte(`{"claude": {"approvalTimeoutS": 60, "approval_timeout_s": 9, "theme": "x"}, "approvalTimeoutS": 30}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range cfg.UnknownSettings() {
		got = append(got, u.String())
	}
	want := `"approvalTimeoutS" (did you mean "claude.approvalTimeoutS"?)|"claude.approval_timeout_s" (did you mean "claude.approvalTimeoutS"?)|"claude.theme"`
	if strings.Join(got, "|") != want {
		t.Fatalf("unknown settings:\n got %s\nwant %s", strings.Join(got, "|"), want)
	}
	if cfg.Claude.ApprovalTimeoutS != 60 {
		t.Fatalf("a misspelt key must not set the real one: %d", cfg.Claude.ApprovalTimeoutS)
	}
}

func TestSaveKeepsTheClaudeSectionAndItsUnknownKeys(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.json")
	cfg, err := Parse([]byte(`{"claude": {"approvalTimeoutS": 45, "future": {"x": 1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := Save(p, cfg); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\"claude\": {\n    \"approvalTimeoutS\": 45,\n    \"future\": {\n") {
		t.Fatalf("saved file lacks the claude section in order:\n%s", data)
	}
	back, err := Load(p)
	if err != nil || back.Claude.ApprovalTimeoutS != 45 || string(back.Claude.Unknown["future"]) != `{"x":1}` {
		t.Fatalf("round trip: %+v, %v", back.Claude, err)
	}
}

func TestClaudePermissionModeIsAskByDefaultOrAcceptEdits(t *testing.T) {
	cfg, err := Parse([]byte(`{}`))
	if err != nil || cfg.Claude.PermissionMode != "" {
		t.Fatalf("default permission mode = %q, %v; want \"\" (ask)", cfg.Claude.PermissionMode, err)
	}
	cfg, err = Parse([]byte(`{"claude": {"permissionMode": "acceptEdits"}}`))
	if err != nil || cfg.Claude.PermissionMode != "acceptEdits" || len(cfg.UnknownKeys()) != 0 {
		t.Fatalf("acceptEdits = %q, %v, unknown %v", cfg.Claude.PermissionMode, err, cfg.UnknownKeys())
	}
	for _, bad := range []string{`"bypassPermissions"`, `"plan"`, `"AcceptEdits"`, `"ask"`} {
		text := `{"claude": {"permissionMode": ` + bad + `}}`
		cfg, err := Parse([]byte(text))
		if err == nil || !strings.Contains(err.Error(), `"claude": {"permissionMode"} must be "" (ask before every tool) or "acceptEdits"`) {
			t.Errorf("%s: want a clear error, got %v", text, err)
		}
		if cfg.Claude.PermissionMode != "" {
			t.Errorf("%s: a bad value must give the default (ask), got %q", text, cfg.Claude.PermissionMode)
		}
	}
	if _, err := Parse([]byte(`{"claude": {"permissionMode": 1}}`)); err == nil {
		t.Error("a number as permissionMode must be an error")
	}
	// Saved only when set, so a default file stays as it was.
	p := filepath.Join(t.TempDir(), "config.json")
	if err := Save(p, Defaults()); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if strings.Contains(string(data), "permissionMode") {
		t.Fatalf("the default must not be written:\n%s", data)
	}
	cfg = Defaults()
	cfg.Claude.PermissionMode = "acceptEdits"
	if err := Save(p, cfg); err != nil {
		t.Fatal(err)
	}
	back, err := Load(p)
	if err != nil || back.Claude.PermissionMode != "acceptEdits" {
		t.Fatalf("round trip: %+v, %v", back.Claude, err)
	}
}
