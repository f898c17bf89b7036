package control

import (
	"errors"
	"reflect"
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

func TestNewRejectsBadConfig(t *testing.T) {
	bad := map[string]func(*Config){
		"capacity 0":        func(c *Config) { c.Capacity = 0; c.Accents = nil },
		"capacity 9":        func(c *Config) { c.Capacity = 9; c.Accents = nil },
		"too few accents":   func(c *Config) { c.Accents = []string{"cyan"} },
		"duplicate accents": func(c *Config) { c.Accents = []string{"cyan", "cyan", "lime", "orange"} },
		"wrong order":       func(c *Config) { c.Accents = []string{"magenta", "cyan", "lime", "orange"} },
		"negative hold":     func(c *Config) { c.TerminalHold = -1 },
		"negative debounce": func(c *Config) { c.ActionDebounce = -0.1 },
		"negative ttl":      func(c *Config) { c.SessionTTL = -1 },
	}
	for name, mut := range bad {
		cfg := DefaultConfig(4)
		mut(&cfg)
		if _, err := New(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
	cfg := DefaultConfig(4)
	cfg.Accents = nil
	if _, err := New(cfg); err != nil {
		t.Fatalf("nil accents should default to the palette: %v", err)
	}
}

func TestCase056_FirstSessionSelected(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("A"), wire.StateWaitingForReply)
	update(p, 2, cx("B"), wire.StateRunning)
	if got := selectedID(p); got != "A" {
		t.Fatalf("selected = %s, want A", got)
	}
	if v := p.View(); v.Centre != wire.StateWaitingForReply {
		t.Fatalf("centre = %s, want waiting_for_reply", v.Centre)
	}
	mustCheck(t, p)
}

func TestCase057_SurfaceSelectsSlot(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("A"), wire.StateWaitingForReply)
	update(p, 2, cx("B"), wire.StateRunning)
	r := p.SelectSlot(3, entry(t, p, cx("B")).Slot)
	if !r.Delivered || !r.Changed {
		t.Fatalf("selection not reported: %+v", r)
	}
	if got := selectedID(p); got != "B" {
		t.Fatalf("selected = %s, want B", got)
	}
	if v := p.View(); v.Centre != wire.StateRunning {
		t.Fatalf("centre = %s, want running", v.Centre)
	}
	// Empty and out-of-range slots do nothing.
	for _, slot := range []int{-1, 2, 3, 4, 100} {
		if r := p.SelectSlot(4, slot); r.Delivered || r.Changed {
			t.Fatalf("slot %d should do nothing: %+v", slot, r)
		}
	}
	if got := selectedID(p); got != "B" {
		t.Fatalf("selected = %s, want B", got)
	}
}

func TestCase058_SelectionEarcon(t *testing.T) {
	log := &earconLog{}
	p := newPlane(t, audio(log))
	update(p, 1, cx("A"), wire.StateRunning)
	update(p, 2, cx("B"), wire.StateRunning)
	log.got = nil
	p.SelectSlot(3, 1)
	if want := []string{"session_selected/1"}; !reflect.DeepEqual(log.got, want) {
		t.Fatalf("earcons = %v, want %v", log.got, want)
	}
	// Audio off: no earcons even with a sink.
	quiet := &earconLog{}
	q := newPlane(t, func(c *Config) { c.Earcons = quiet })
	update(q, 1, cx("A"), wire.StateError)
	q.SelectSlot(2, 0)
	if len(quiet.got) != 0 {
		t.Fatalf("earcons with audio off: %v", quiet.got)
	}
}

func TestStateEarconsOnlyOnChange(t *testing.T) {
	log := &earconLog{}
	p := newPlane(t, audio(log))
	for i, st := range []wire.State{wire.StateRunning, wire.StateWaitingForReply, wire.StateWaitingForReply, wire.StateWaitingForApproval, wire.StateSuccess, wire.StateUserTyping} {
		update(p, float64(i+1), cx("A"), st)
	}
	want := []string{"question/0", "approval/0", "success/0"}
	if !reflect.DeepEqual(log.got, want) {
		t.Fatalf("earcons = %v, want %v", log.got, want)
	}
	// The terminal-hold fallback is silent, and the next waiting_for_reply
	// differs from the last announced state (error), so it sounds.
	log.got = nil
	update(p, 10, cx("A"), wire.StateError)
	p.Tick(20)
	update(p, 21, cx("A"), wire.StateWaitingForReply)
	if want := []string{"error/0", "question/0"}; !reflect.DeepEqual(log.got, want) {
		t.Fatalf("earcons = %v, want %v", log.got, want)
	}
	// A session created by subscribe_actions announces its first state.
	log.got = nil
	subscribe(p, 22, 1, cx("B"), "", false, stop)
	update(p, 23, cx("B"), wire.StateWaitingForReply)
	if want := []string{"question/1"}; !reflect.DeepEqual(log.got, want) {
		t.Fatalf("earcons = %v, want %v", log.got, want)
	}
}

func TestCase059_SelectionNotRetargeted(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("A"), wire.StateRunning)
	update(p, 2, cx("B"), wire.StateRunning)
	p.End(3, cx("A"))
	if _, ok := p.Selected(); ok {
		t.Fatalf("selection should be null after ending the selected session")
	}
	update(p, 4, cx("C"), wire.StateRunning)
	if _, ok := p.Selected(); ok {
		t.Fatalf("a new session must not take the selection while others exist")
	}
	if st := p.Status(); st.Selected != nil {
		t.Fatalf("status selected = %v, want null", st.Selected)
	}
	if v := p.View(); v.Centre != "" || len(v.Available) != 0 {
		t.Fatalf("idle view expected, got %+v", v)
	}
	mustCheck(t, p)
}

func TestCase060_EmptyRegistryAutoSelects(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("A"), wire.StateRunning)
	update(p, 2, cx("B"), wire.StateRunning)
	p.End(3, cx("A"))
	p.End(4, cx("B"))
	update(p, 5, cx("D"), wire.StateRunning)
	if got := selectedID(p); got != "D" {
		t.Fatalf("selected = %s, want D", got)
	}
}

func TestCase061_UnknownIdentitySelectedRunning(t *testing.T) {
	p := newPlane(t)
	r := p.Update(1, 7, wire.StateCommand{Agent: cx("session-1"), State: wire.StateRunning, Reply: true})
	if got := selectedID(p); got != "session-1" {
		t.Fatalf("selected = %s", got)
	}
	if len(r.Out) != 1 || r.Out[0].Conn != 7 {
		t.Fatalf("want one state_ack to the sender, got %+v", r.Out)
	}
	ack := r.Out[0].Msg.(wire.StateAck)
	if ack.State != wire.StateRunning || !ack.Selected || ack.Slot != 0 || ack.Accent != "cyan" {
		t.Fatalf("ack = %+v", ack)
	}
	// Without reply nothing is written.
	if r := update(p, 2, cx("session-1"), wire.StateRunning); len(r.Out) != 0 {
		t.Fatalf("no reply expected, got %+v", r.Out)
	}
}

func TestCase031_DefaultAgentAck(t *testing.T) {
	p := newPlane(t)
	r := p.Update(1, 1, wire.StateCommand{State: wire.StateRunning, Reply: true})
	want := `{"protocol":1,"type":"state_ack","backend":"local","session_id":"default","state":"running","slot":0,"scene":1,"accent":"cyan","selected":true,"leased":false,"label":"default"}` + "\n"
	if got := encode(t, r.Out[0].Msg); got != want {
		t.Fatalf("ack:\n%s\nwant:\n%s", got, want)
	}
}

func TestCase062_EvictsLeastRecentNonApproval(t *testing.T) {
	p := newPlane(t)
	for i := 0; i < 4; i++ {
		update(p, float64(i+1), cx(string(rune('0'+i))), wire.StateRunning)
	}
	update(p, 5, cx("1"), wire.StateWaitingForApproval)
	update(p, 6, cx("4"), wire.StateRunning)
	for _, id := range []string{"0", "1", "3", "4"} {
		if e := entry(t, p, cx(id)); e.Slot == wire.NoSlot {
			t.Fatalf("session %s should have a slot", id)
		}
	}
	if e := entry(t, p, cx("2")); e.Slot != wire.NoSlot {
		t.Fatalf("session 2 should be in overflow, slot %d", e.Slot)
	}
	if e := entry(t, p, cx("4")); e.Slot != 2 {
		t.Fatalf("session 4 should take slot 2, got %d", e.Slot)
	}
	if got := selectedID(p); got != "0" {
		t.Fatalf("selection changed to %s", got)
	}
	mustCheck(t, p)
}

func TestCase063_NothingEvictableOverflows(t *testing.T) {
	p := newPlane(t)
	for i := 0; i < 4; i++ {
		update(p, float64(i+1), cx(string(rune('a'+i))), wire.StateWaitingForApproval)
	}
	r := p.Update(5, 3, wire.StateCommand{Agent: cx("e"), State: wire.StateRunning, Reply: true})
	ack := r.Out[0].Msg.(wire.StateAck)
	if ack.Slot != wire.NoSlot || ack.Scene() != 0 || ack.Accent != "" {
		t.Fatalf("fifth ack = %+v, want overflow", ack)
	}
	if got := encode(t, ack); !contains(got, `"slot":null,"scene":null,"accent":null`) {
		t.Fatalf("encoded overflow ack: %s", got)
	}
	if st := p.Status(); st.OverflowCount != 1 {
		t.Fatalf("overflow_count = %d", st.OverflowCount)
	}
	mustCheck(t, p)
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestCase064_FreedSlotReused(t *testing.T) {
	p := newPlane(t)
	ids := []string{"a", "b", "c", "d"}
	for i, id := range ids {
		update(p, float64(i+1), cx(id), wire.StateRunning)
	}
	p.End(5, cx("b"))
	update(p, 6, cx("e"), wire.StateRunning)
	e := entry(t, p, cx("e"))
	if e.Slot != 1 || e.Accent != "magenta" {
		t.Fatalf("new session slot %d accent %s, want 1 magenta", e.Slot, e.Accent)
	}
	for i, id := range []string{"a", "c", "d"} {
		want := []int{0, 2, 3}[i]
		if got := entry(t, p, cx(id)).Slot; got != want {
			t.Fatalf("%s moved to slot %d, want %d", id, got, want)
		}
	}
	mustCheck(t, p)
}

func TestCase065_RefillPrefersApprovalThenRecency(t *testing.T) {
	p := newPlane(t, capacity(2))
	update(p, 1, cx("sel"), wire.StateRunning)
	update(p, 2, cx("a"), wire.StateRunning)
	update(p, 3, cx("b"), wire.StateRunning)
	if entry(t, p, cx("a")).Slot != wire.NoSlot || entry(t, p, cx("b")).Slot != 1 {
		t.Fatalf("b should evict a")
	}
	update(p, 4, cx("b"), wire.StateWaitingForApproval)
	update(p, 5, cx("a"), wire.StateWaitingForApproval)
	if entry(t, p, cx("a")).Slot != wire.NoSlot {
		t.Fatalf("a must stay in overflow: nothing is evictable")
	}
	update(p, 6, cx("c"), wire.StateRunning)
	update(p, 7, cx("c"), wire.StateRunning)
	if entry(t, p, cx("c")).Slot != wire.NoSlot {
		t.Fatalf("c should be in overflow")
	}
	p.End(8, cx("b"))
	if got := entry(t, p, cx("a")); got.Slot != 1 || got.Accent != "magenta" {
		t.Fatalf("a should take slot 1 with magenta, got %+v", got)
	}
	if entry(t, p, cx("c")).Slot != wire.NoSlot {
		t.Fatalf("c should stay in overflow")
	}
	mustCheck(t, p)
}

func TestCase066_EvictedKeepsAccent(t *testing.T) {
	p := newPlane(t, capacity(2))
	update(p, 1, cx("sel"), wire.StateRunning)
	update(p, 2, cx("a"), wire.StateRunning)
	update(p, 3, cx("b"), wire.StateRunning)
	e := entry(t, p, cx("a"))
	if e.Slot != wire.NoSlot || e.Accent != "magenta" {
		t.Fatalf("evicted entry = %+v, want slot null accent magenta", e)
	}
	if b := entry(t, p, cx("b")); b.Accent != "magenta" {
		t.Fatalf("b accent = %s (the stale accent may repeat a visible one)", b.Accent)
	}
	// Overflow refill order in status: least recently touched first.
	update(p, 4, cx("c"), wire.StateRunning) // evicts b (a is in overflow)
	st := p.Status()
	var order []string
	for _, s := range st.Sessions {
		order = append(order, s.SessionID)
	}
	if !reflect.DeepEqual(order, []string{"sel", "c", "a", "b"}) {
		t.Fatalf("status order = %v", order)
	}
}

func TestCase067_DistinctAccents(t *testing.T) {
	p := newPlane(t)
	for i, id := range []string{"a", "b", "c", "d"} {
		update(p, float64(i+1), cx(id), wire.StateRunning)
	}
	st := p.Status()
	seen := map[string]bool{}
	for _, s := range st.Sessions {
		if seen[s.Accent] {
			t.Fatalf("accent %s repeated", s.Accent)
		}
		seen[s.Accent] = true
	}
	if st.Sessions[0].Accent != "cyan" {
		t.Fatalf("first accent = %s, want cyan", st.Sessions[0].Accent)
	}
	if len(seen) != 4 {
		t.Fatalf("want 4 accents, got %v", seen)
	}
}

func TestCase069_StoredAccentOnArrival(t *testing.T) {
	store := newMemStore()
	store.m[cx("returning")] = "magenta"
	p := newPlane(t, func(c *Config) { c.Store = store })
	update(p, 1, cx("returning"), wire.StateRunning)
	if e := entry(t, p, cx("returning")); e.Accent != "magenta" {
		t.Fatalf("accent = %s, want magenta", e.Accent)
	}
	// A stored accent outside the palette falls back to the first free one.
	store.m[cx("odd")] = "sky"
	update(p, 2, cx("odd"), wire.StateRunning)
	if e := entry(t, p, cx("odd")); e.Accent != "cyan" || store.m[cx("odd")] != "cyan" {
		t.Fatalf("odd accent = %s (store %s), want cyan", e.Accent, store.m[cx("odd")])
	}
}

func TestCase070_StoredAccentTakenOverwritesStore(t *testing.T) {
	store := newMemStore()
	store.m[cx("B")] = "cyan"
	p := newPlane(t, func(c *Config) { c.Store = store })
	update(p, 1, cx("A"), wire.StateRunning)
	update(p, 2, cx("B"), wire.StateRunning)
	if e := entry(t, p, cx("B")); e.Accent != "magenta" {
		t.Fatalf("B accent = %s, want magenta", e.Accent)
	}
	if store.m[cx("B")] != "magenta" || store.m[cx("A")] != "cyan" {
		t.Fatalf("store = %v", store.m)
	}
}

type failingStore struct{ memStore }

func (f *failingStore) Remember(b, id, accent string) error { return errors.New("disk full") }

func TestStoreErrorsIgnored(t *testing.T) {
	p := newPlane(t, func(c *Config) { c.Store = &failingStore{*newMemStore()} })
	update(p, 1, cx("A"), wire.StateRunning)
	if e := entry(t, p, cx("A")); e.Accent != "cyan" {
		t.Fatalf("accent = %s", e.Accent)
	}
}

func TestLabel(t *testing.T) {
	cases := []struct {
		meta wire.Metadata
		sid  string
		want string
	}{
		{meta("label", "docs", "cwd", "/x/y"), "abc", "docs"},
		{meta("cwd", "/home/u/pad-lattice/"), "abc", "pad-lattice"},
		{meta("cwd", "."), "abc", "."},
		{meta("cwd", "/"), "d41d8cd98f00b204", "d41d8cd9"},
		{meta("cwd", "//"), "short", "short"},
		{meta("cwd", "a/b/.."), "x", "a"},
		{nil, "default", "default"},
		{nil, "ééééééééé", "éééééééé"},
	}
	for _, c := range cases {
		if got := Label(c.meta, c.sid); got != c.want {
			t.Errorf("Label(%v, %q) = %q, want %q", c.meta, c.sid, got, c.want)
		}
	}
}
