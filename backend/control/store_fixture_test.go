package control

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/identitystore"
	"github.com/lets-app/lets/backend/testenv/conformance"
	"github.com/lets-app/lets/backend/wire"
)

var _ AccentStore = (*identitystore.Store)(nil)

// Case 69/70 end to end with the real file store across a daemon restart.
func TestCase069_IdentityStoreAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", identitystore.FileName)
	p := newPlane(t, func(c *Config) { c.Store = identitystore.Open(path, identitystore.Options{}) })
	update(p, 1, cx("first"), wire.StateRunning)
	update(p, 2, cx("returning"), wire.StateRunning)
	if e := entry(t, p, cx("returning")); e.Accent != "magenta" {
		t.Fatalf("accent = %s", e.Accent)
	}
	// Restart: the returning identity arrives first and still gets magenta.
	q := newPlane(t, func(c *Config) { c.Store = identitystore.Open(path, identitystore.Options{}) })
	update(q, 1, cx("returning"), wire.StateRunning)
	if e := entry(t, q, cx("returning")); e.Accent != "magenta" || e.Slot != 0 {
		t.Fatalf("after restart: %+v", e)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if contains(string(data), "returning") {
		t.Fatalf("raw identity written to the store")
	}
}

// The action gating table agrees with the reference fixture.
func TestActionStatesMatchFixture(t *testing.T) {
	data, err := os.ReadFile(conformance.File(t, "fixtures/visual-protocol-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		ActionStates map[string][]string `json:"action_states"`
	}
	if err := json.Unmarshal(data, &fx); err != nil {
		t.Fatal(err)
	}
	for _, st := range wire.States() {
		p := newPlane(t)
		update(p, 1, cx("s"), st)
		subscribe(p, 1, 1, cx("s"), "", false, wire.Actions()...)
		got := map[wire.Action]bool{}
		for _, a := range p.Available() {
			got[a] = true
		}
		for _, a := range wire.Actions() {
			want := false
			for _, s := range fx.ActionStates[string(a)] {
				want = want || s == string(st)
			}
			if got[a] != want {
				t.Errorf("state %s action %s: available %v, fixture %v", st, a, got[a], want)
			}
		}
	}
}
