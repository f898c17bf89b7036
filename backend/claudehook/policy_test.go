package claudehook_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/wire"
)

func TestLabel(t *testing.T) {
	for in, want := range map[string]string{
		"/home/user/project":             "project",
		"/home/user/project/":            "project",
		"/home/u/a/../b":                 "b",
		"relative/dir":                   "dir",
		".":                              ".",
		"/":                              "",
		"":                               "",
		"/x/" + strings.Repeat("ü", 100): strings.Repeat("ü", 63) + "…",
	} {
		if got := claudehook.Label(in); got != want {
			t.Errorf("Label(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecision(t *testing.T) {
	for _, c := range []struct {
		a     wire.Action
		line  string
		after wire.State
	}{
		{wire.ActionApprove, claudehook.DecisionAllow, wire.StateRunning},
		{wire.ActionReject, claudehook.DecisionDeny, wire.StateRunning},
		{wire.ActionStop, claudehook.DecisionStop, wire.StateCancelled},
	} {
		line, after, ok := claudehook.Decision(c.a)
		if !ok || line != c.line || after != c.after {
			t.Errorf("Decision(%s) = %q %s %v", c.a, line, after, ok)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil || !strings.HasSuffix(line, "}\n") || strings.Count(line, "\n") != 1 {
			t.Errorf("%q is not one JSON line: %v", line, err)
		}
	}
	if _, _, ok := claudehook.Decision(wire.ActionRetry); ok {
		t.Error("retry answers a permission request")
	}
}

func TestEventsAreKnown(t *testing.T) {
	if len(claudehook.Events()) != 10 {
		t.Fatalf("%v", claudehook.Events())
	}
	for _, e := range claudehook.Events() {
		if !claudehook.KnownEvent(e) {
			t.Errorf("%s unknown", e)
		}
	}
	if claudehook.KnownEvent("prompt") || claudehook.KnownEvent("") {
		t.Error("unknown names accepted")
	}
}
