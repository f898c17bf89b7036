package control

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

// earconLog records earcons as "name/slot" ("name/none" for no slot).
type earconLog struct{ got []string }

func (e *earconLog) Earcon(name string, slot int) {
	if slot == wire.NoSlot {
		e.got = append(e.got, name+"/none")
		return
	}
	e.got = append(e.got, fmt.Sprintf("%s/%d", name, slot))
}

// memStore is an in-memory AccentStore.
type memStore struct {
	m      map[wire.Identity]string
	writes int
}

func newMemStore() *memStore { return &memStore{m: map[wire.Identity]string{}} }

func (s *memStore) Lookup(b, id string) string { return s.m[wire.Identity{Backend: b, SessionID: id}] }
func (s *memStore) Remember(b, id, accent string) error {
	s.m[wire.Identity{Backend: b, SessionID: id}] = accent
	s.writes++
	return nil
}

// testSurface is the reference test surface (spec §14).
func testSurface() Surface {
	return Surface{
		Profile: "test/grid/device", Input: "Test input", Output: "Test output",
		Descriptors: []wire.SurfaceDescriptor{{Kind: wire.SurfaceKindMIDI, Profile: "test/grid/device", VisualProtocol: 1, Input: "Test input", Output: "Test output"}},
	}
}

// newPlane returns a capacity-4 plane with the test surface; mutators adjust
// the configuration.
func newPlane(t testing.TB, mut ...func(*Config)) *Plane {
	t.Helper()
	cfg := DefaultConfig(4)
	cfg.Surface = testSurface()
	for _, m := range mut {
		m(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

func capacity(n int) func(*Config) {
	return func(c *Config) { c.Capacity = n; c.Accents = wire.AccentPalette(n) }
}

func debounce(d float64) func(*Config) { return func(c *Config) { c.ActionDebounce = d } }
func ttl(d float64) func(*Config)      { return func(c *Config) { c.SessionTTL = d } }

func audio(log *earconLog) func(*Config) {
	return func(c *Config) { c.AudioFeedback = true; c.Earcons = log }
}

func ident(backend, sid string) wire.Identity {
	return wire.Identity{Backend: backend, SessionID: sid}
}

func cx(sid string) wire.Identity { return ident("codex", sid) }

func meta(kv ...string) wire.Metadata {
	var m wire.Metadata
	for i := 0; i+1 < len(kv); i += 2 {
		m.Set(kv[i], kv[i+1])
	}
	return m
}

// conn ids used when the sender does not matter.
const anyConn int64 = 999

func update(p *Plane, now float64, id wire.Identity, st wire.State) Result {
	return p.Update(now, anyConn, wire.StateCommand{Agent: id, State: st})
}

func subscribe(p *Plane, now float64, conn int64, id wire.Identity, rid string, oneShot bool, actions ...wire.Action) Result {
	return p.Subscribe(now, conn, wire.SubscribeActionsCommand{Agent: id, Actions: actions, RequestID: rid, OneShot: oneShot})
}

func entry(t testing.TB, p *Plane, id wire.Identity) wire.StatusSession {
	t.Helper()
	for _, e := range p.Status().Sessions {
		if e.Identity() == id {
			return e
		}
	}
	t.Fatalf("no status entry for %s", id)
	return wire.StatusSession{}
}

func hasSession(p *Plane, id wire.Identity) bool {
	_, ok := p.Snapshot(id)
	return ok
}

func stateOf(t testing.TB, p *Plane, id wire.Identity) wire.State {
	t.Helper()
	s, ok := p.Snapshot(id)
	if !ok {
		t.Fatalf("session %s missing", id)
	}
	return s.State
}

func mustCheck(t testing.TB, p *Plane) {
	t.Helper()
	if err := p.Check(); err != nil {
		t.Fatalf("invariant: %v", err)
	}
}

func selectedID(p *Plane) string {
	id, ok := p.Selected()
	if !ok {
		return "<none>"
	}
	return id.SessionID
}

func actions(a ...wire.Action) []wire.Action { return a }

func eqActions(t testing.TB, got []wire.Action, want ...wire.Action) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("available = %v, want %v", got, want)
	}
}

// deliveries returns the action events in r.Out.
func deliveries(r Result) []struct {
	Conn int64
	Ev   wire.ActionEvent
} {
	var out []struct {
		Conn int64
		Ev   wire.ActionEvent
	}
	for _, o := range r.Out {
		if ev, ok := o.Msg.(wire.ActionEvent); ok {
			out = append(out, struct {
				Conn int64
				Ev   wire.ActionEvent
			}{o.Conn, ev})
		}
	}
	return out
}

func encode(t testing.TB, m wire.Message) string {
	t.Helper()
	b, err := m.Encode()
	if err != nil {
		t.Fatalf("encode %T: %v", m, err)
	}
	return string(b)
}
