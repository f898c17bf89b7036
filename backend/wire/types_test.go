package wire

import (
	"fmt"
	"reflect"
	"testing"
)

func TestStatesAndActionsInSpecOrder(t *testing.T) {
	wantStates := []State{"running", "waiting_for_reply", "user_typing", "waiting_for_approval", "success", "error", "cancelled"}
	if got := States(); !reflect.DeepEqual(got, wantStates) {
		t.Fatalf("States() = %v", got)
	}
	States()[0] = "mutated"
	if States()[0] != StateRunning {
		t.Fatal("States() exposes the table")
	}
	if got := Actions(); !reflect.DeepEqual(got, []Action{"approve", "reject", "stop", "retry"}) {
		t.Fatalf("Actions() = %v", got)
	}
	for _, s := range wantStates {
		if p, ok := ParseState(string(s)); !ok || p != s {
			t.Errorf("ParseState(%s)", s)
		}
	}
	for _, bad := range []string{"", "Running", "thinking", " running"} {
		if _, ok := ParseState(bad); ok {
			t.Errorf("ParseState(%q) accepted", bad)
		}
	}
	terminal := map[State]bool{StateSuccess: true, StateError: true, StateCancelled: true}
	for _, s := range wantStates {
		if s.IsTerminal() != terminal[s] || IsTerminal(s) != terminal[s] {
			t.Errorf("IsTerminal(%s)", s)
		}
	}
}

// Spec §5.2 permission table.
func TestPermits(t *testing.T) {
	want := map[string]bool{
		"approve/waiting_for_approval": true, "reject/waiting_for_approval": true,
		"stop/running": true, "retry/error": true, "retry/cancelled": true,
	}
	for _, s := range States() {
		for _, a := range Actions() {
			if got := Permits(s, a); got != want[string(a)+"/"+string(s)] {
				t.Errorf("Permits(%s, %s) = %v", s, a, got)
			}
		}
	}
	if Permits(StateRunning, "merge") {
		t.Error("unknown action permitted")
	}
}

func TestIdentityAndAccents(t *testing.T) {
	if d := DefaultIdentity(); d != (Identity{"local", "default"}) || !d.Valid() || d.IsZero() {
		t.Fatalf("DefaultIdentity = %#v", d)
	}
	if !(Identity{}).IsZero() || (Identity{Backend: "a"}).Valid() {
		t.Fatal("zero identity")
	}
	if got := IdentityAccents(); !reflect.DeepEqual(got, []string{"cyan", "magenta", "lime", "orange", "violet", "teal", "rose", "sky"}) {
		t.Fatalf("accents %v", got)
	}
	if got := AccentPalette(4); !reflect.DeepEqual(got, []string{"cyan", "magenta", "lime", "orange"}) {
		t.Fatalf("palette %v", got)
	}
	if AccentPalette(0) != nil || AccentPalette(9) != nil {
		t.Fatal("palette out of range")
	}
}

func TestMetadataKeepsFirstInsertionOrder(t *testing.T) {
	var m Metadata
	m.Set("label", "docs")
	m.Set("cwd", "/a")
	m.Set("label", "new")
	if !m.Equal(Metadata{{"label", "new"}, {"cwd", "/a"}}) {
		t.Fatalf("Set: %v", m)
	}
	m.Merge(Metadata{{"model", "x"}, {"cwd", "/b"}})
	if !m.Equal(Metadata{{"label", "new"}, {"cwd", "/b"}, {"model", "x"}}) {
		t.Fatalf("Merge: %v", m)
	}
	if v, ok := m.Get("cwd"); !ok || v != "/b" {
		t.Fatal("Get")
	}
	if _, ok := m.Get("nope"); ok {
		t.Fatal("Get missing")
	}
	c := m.Clone()
	c.Set("cwd", "/c")
	if v, _ := m.Get("cwd"); v != "/b" {
		t.Fatal("Clone shares storage")
	}
	if !reflect.DeepEqual(m.Keys(), []string{"label", "cwd", "model"}) {
		t.Fatal("Keys")
	}
	// Large merges take the indexed path and keep the same semantics.
	var big, other Metadata
	for i := 0; i < 50; i++ {
		big.Set(fmt.Sprint("k", i), "a")
		other.Set(fmt.Sprint("k", 74-i), "b")
	}
	big.Merge(other)
	if big.Len() != 75 {
		t.Fatalf("len %d", big.Len())
	}
	if v, _ := big.Get("k30"); v != "b" || big[0].Key != "k0" || big[50].Key != "k74" || big[74].Key != "k50" {
		t.Fatalf("indexed merge: %v", big[:3])
	}
	var nilMD Metadata
	if nilMD.Clone() != nil || !nilMD.Equal(Metadata{}) {
		t.Fatal("nil metadata")
	}
}

// Spec §2.1.
func TestResolveSocketPath(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"PAD_LATTICE_SOCKET": "~/x.sock", "XDG_RUNTIME_DIR": "/run/user/7"}, "~/x.sock"},
		{map[string]string{"PAD_LATTICE_SOCKET": "", "XDG_RUNTIME_DIR": "/run/user/7"}, "/run/user/7/pad-lattice.sock"},
		{map[string]string{"XDG_RUNTIME_DIR": "/run/user/7/"}, "/run/user/7/pad-lattice.sock"},
		{map[string]string{"XDG_RUNTIME_DIR": ""}, "/tmp/pad-lattice-1000.sock"},
		{nil, "/tmp/pad-lattice-1000.sock"},
	}
	for _, c := range cases {
		if got := ResolveSocketPath(env(c.env), 1000); got != c.want {
			t.Errorf("%v: %s, want %s", c.env, got, c.want)
		}
	}
	if got := ResolveSocketPath(nil, 0); got != "/tmp/pad-lattice-0.sock" {
		t.Errorf("nil getenv: %s", got)
	}
}

func TestKnownCodes(t *testing.T) {
	for _, c := range []string{"frame_too_large", "invalid_message", "unsupported_protocol", "unknown_message_type", "preview_conflict", "preview_not_owned", "unexpected_message_type", "daemon_error"} {
		if !IsKnownCode(c) {
			t.Errorf("%s unknown", c)
		}
	}
	if IsKnownCode("nope") {
		t.Error("nope known")
	}
}
