package control

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

// harness drives a Plane with operations decoded from bytes and checks the
// invariants after every operation (case 68, FuzzPlane).
type harness struct {
	p   *Plane
	now float64

	// oneShot[conn] is the generation of conn's current one-shot
	// subscription (0 = not one-shot); fired records delivered generations.
	gen     map[int64]int
	oneShot map[int64]int
	fired   map[int]bool
	nextGen int

	// lastDelivery per (session incarnation, action): a recreated session
	// has a new pointer and a fresh debounce window.
	lastDelivery map[debounceKeyPtr]float64
	deliveries   int
}

type debounceKeyPtr struct {
	s      *session
	action wire.Action
}

const (
	traceIdentities = 8
	traceClients    = 12
	traceLeases     = 4
)

func newHarness(t testing.TB, capacityN int) *harness {
	p := newPlane(t, capacity(capacityN), ttl(20), func(c *Config) {
		c.Store = newMemStore()
		c.Earcons = &earconLog{}
		c.AudioFeedback = true
	})
	return &harness{p: p, gen: map[int64]int{}, oneShot: map[int64]int{}, fired: map[int]bool{}, lastDelivery: map[debounceKeyPtr]float64{}}
}

func traceID(b byte) wire.Identity {
	return ident([]string{"codex", "codex-exec"}[b%2], fmt.Sprintf("id-%d", b%traceIdentities))
}

func traceMeta(b byte) wire.Metadata {
	switch b % 4 {
	case 1:
		return meta("label", fmt.Sprintf("l%d", b%3))
	case 2:
		return meta("cwd", "/w/p"+fmt.Sprint(b%5))
	case 3:
		return meta("cwd", "/", "model", "m")
	}
	return nil
}

// step applies one operation encoded in four bytes and checks invariants.
func (h *harness) step(op [4]byte) error {
	p := h.p
	k, a, b, c := op[0], op[1], op[2], op[3]
	h.now += float64(k>>4) * 0.05
	conn := int64(a % traceClients)
	switch k % 12 {
	case 0, 1: // state
		cmd := wire.StateCommand{Agent: traceID(b), State: wire.States()[c%7], Metadata: traceMeta(c >> 3), Reply: a&0x80 != 0}
		if l := (c >> 5) % (traceLeases + 1); l < traceLeases {
			cmd.LeaseID = fmt.Sprintf("L%d", l)
		}
		r := p.Update(h.now, conn, cmd)
		if err := h.checkReplies(r, conn, cmd); err != nil {
			return err
		}
	case 2:
		p.End(h.now, traceID(b))
	case 3:
		p.SelectSlot(h.now, int(b%uint8(p.Capacity()+2))-1)
	case 4: // subscribe
		var acts []wire.Action
		for i, act := range wire.Actions() {
			if (c+1)&(1<<i) != 0 {
				acts = append(acts, act)
			}
		}
		rid := []string{"", "r1", "r2"}[(c>>4)%3]
		oneShot := c&0x80 != 0
		r := p.Subscribe(h.now, conn, wire.SubscribeActionsCommand{Agent: traceID(b), Actions: acts, RequestID: rid, OneShot: oneShot})
		if len(r.Out) != 0 {
			return fmt.Errorf("subscribe answered %+v", r.Out)
		}
		h.nextGen++
		h.gen[conn] = h.nextGen
		if oneShot {
			h.oneShot[conn] = h.nextGen
		} else {
			delete(h.oneShot, conn)
		}
	case 5: // lease
		cmd := wire.SessionLeaseCommand{LeaseID: fmt.Sprintf("L%d", b%traceLeases), Metadata: traceMeta(c)}
		if c&0x10 != 0 {
			cmd.Agent = traceID(c >> 5)
		}
		r := p.RegisterLease(h.now, conn, cmd)
		if len(r.Out) != 1 || r.Out[0].Conn != conn {
			return fmt.Errorf("session_lease answers %+v", r.Out)
		}
		ack, ok := r.Out[0].Msg.(wire.SessionLeaseAck)
		if !ok {
			return fmt.Errorf("session_lease answered %T", r.Out[0].Msg)
		}
		if !cmd.Agent.IsZero() && (ack.Session == nil || ack.Session.Identity() != cmd.Agent || !ack.Session.Leased) {
			return fmt.Errorf("lease with agent acked %+v", ack)
		}
	case 6:
		if r := p.Disconnect(h.now, conn); len(r.Out) != 0 {
			return fmt.Errorf("disconnect wrote %+v", r.Out)
		}
		delete(h.oneShot, conn)
		delete(h.gen, conn)
	case 7, 8: // press
		if err := h.press(wire.Actions()[b%4]); err != nil {
			return err
		}
	case 9:
		h.now += float64(b) * 0.1
		p.Tick(h.now)
	case 10:
		if c&1 == 0 {
			p.SetPreview(h.now, conn, wire.PreviewCommand{PreviewID: fmt.Sprint("p", b%2), State: wire.States()[b%7], TTL: 0.5 + float64(c%60)/2})
		} else {
			p.EndPreview(h.now, conn, fmt.Sprint("p", b%2))
		}
	case 11:
		if c&1 == 0 {
			_, _ = p.StartExperience(h.now, []string{wire.ExperienceDemo, wire.ExperienceShow}[b%2])
		} else {
			p.StopExperience()
		}
	}
	return h.check()
}

func (h *harness) checkReplies(r Result, conn int64, cmd wire.StateCommand) error {
	want := 0
	if cmd.Reply {
		want++
	}
	if cmd.LeaseID != "" {
		if _, live := h.p.leaseClients[cmd.LeaseID]; live {
			want++
			if _, ok := r.Out[0].Msg.(wire.SessionLeaseBound); !ok {
				return fmt.Errorf("lease_bound must come first: %+v", r.Out)
			}
		}
	}
	if len(r.Out) != want {
		return fmt.Errorf("state wrote %d messages, want %d: %+v", len(r.Out), want, r.Out)
	}
	if cmd.Reply {
		last := r.Out[len(r.Out)-1]
		ack, ok := last.Msg.(wire.StateAck)
		if !ok || last.Conn != conn || ack.Identity() != cmd.Agent {
			return fmt.Errorf("state_ack wrong: %+v", last)
		}
		if cmd.State == wire.StateWaitingForApproval && ack.State != cmd.State {
			return fmt.Errorf("approval update acked as %s", ack.State)
		}
	}
	return nil
}

func (h *harness) press(action wire.Action) error {
	p := h.p
	sel := p.selected
	var selState wire.State
	if sel != nil {
		selState = sel.state
	}
	avail := p.available()
	r := p.Press(h.now, action)
	if r.Consumed {
		if len(r.Out) != 0 {
			return fmt.Errorf("consumed press wrote %+v", r.Out)
		}
		return nil
	}
	if !r.Delivered {
		if len(r.Out) != 0 {
			return fmt.Errorf("undelivered press wrote %+v", r.Out)
		}
		return nil
	}
	if len(r.Out) != 1 {
		return fmt.Errorf("delivery must reach exactly one connection: %+v", r.Out)
	}
	ev, ok := r.Out[0].Msg.(wire.ActionEvent)
	if !ok {
		return fmt.Errorf("delivery is %T", r.Out[0].Msg)
	}
	if sel == nil || ev.Agent != sel.id || !wire.Permits(selState, action) || !avail.has(action) || p.preview != nil {
		return fmt.Errorf("delivery %+v violates a gate (selected %v, state %s)", ev, sel, selState)
	}
	key := debounceKeyPtr{sel, action}
	if t0, ok := h.lastDelivery[key]; ok && h.now-t0 < p.cfg.ActionDebounce {
		return fmt.Errorf("debounce broken: %s delivered %.3f s after the previous one", action, h.now-t0)
	}
	h.lastDelivery[key] = h.now
	conn := r.Out[0].Conn
	if g, ok := h.oneShot[conn]; ok {
		if h.fired[g] {
			return fmt.Errorf("one_shot subscription of connection %d delivered twice", conn)
		}
		h.fired[g] = true
	}
	h.deliveries++
	return nil
}

// check verifies the registry invariants of case 68 and more.
func (h *harness) check() error {
	p := h.p
	if err := p.Check(); err != nil {
		return err
	}
	st := p.Status()
	if len(st.Sessions) != p.Len() {
		return fmt.Errorf("status lists %d of %d sessions", len(st.Sessions), p.Len())
	}
	slots := map[int]bool{}
	accents := map[string]bool{}
	visible, overflow := 0, 0
	lastSlot := -1
	var lastSeen uint64
	for i, e := range st.Sessions {
		if e.Slot == wire.NoSlot {
			overflow++
			s := p.sessions[e.Identity()]
			if i > 0 && st.Sessions[i-1].Slot == wire.NoSlot && s.lastSeen < lastSeen {
				return fmt.Errorf("overflow not ordered by last_seen")
			}
			lastSeen = s.lastSeen
			continue
		}
		if overflow > 0 {
			return fmt.Errorf("visible session after overflow in status")
		}
		if e.Slot <= lastSlot {
			return fmt.Errorf("status slots not ascending")
		}
		lastSlot = e.Slot
		visible++
		if slots[e.Slot] {
			return fmt.Errorf("two sessions share slot %d", e.Slot)
		}
		slots[e.Slot] = true
		if accents[e.Accent] {
			return fmt.Errorf("visible accent %s repeated", e.Accent)
		}
		accents[e.Accent] = true
	}
	if visible > p.Capacity() {
		return fmt.Errorf("%d visible > capacity %d", visible, p.Capacity())
	}
	if st.OverflowCount != overflow {
		return fmt.Errorf("overflow_count %d, want %d", st.OverflowCount, overflow)
	}
	if st.Selected != nil {
		if _, ok := p.sessions[*st.Selected]; !ok {
			return fmt.Errorf("selected %v not in registry", *st.Selected)
		}
	}
	v := p.View()
	if p.preview != nil && len(v.Available) != 0 {
		return fmt.Errorf("actions available during a preview")
	}
	if p.selected != nil {
		for _, a := range v.Available {
			if !wire.Permits(p.selected.state, a) {
				return fmt.Errorf("%s available in state %s", a, p.selected.state)
			}
		}
	} else if len(v.Available) != 0 {
		return fmt.Errorf("actions available without a selection")
	}
	if len(v.Indicators) != visible {
		return fmt.Errorf("view shows %d indicators, %d visible", len(v.Indicators), visible)
	}
	return nil
}

func randomOps(r *rand.Rand, n int) [][4]byte {
	ops := make([][4]byte, n)
	for i := range ops {
		v := r.Uint32()
		ops[i] = [4]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
	}
	return ops
}

func TestCase068_RandomTraceInvariants(t *testing.T) {
	total := 0
	for seed := uint64(1); seed <= 40; seed++ {
		for _, capN := range []int{1, 2, 4, 8} {
			h := newHarness(t, capN)
			r := rand.New(rand.NewPCG(seed, uint64(capN)))
			for i, op := range randomOps(r, 500) {
				if err := h.step(op); err != nil {
					t.Fatalf("seed %d capacity %d op %d %v: %v", seed, capN, i, op, err)
				}
			}
			total += h.deliveries
		}
	}
	if total == 0 {
		t.Fatalf("the traces never delivered an action; the generator is too weak")
	}
}

// FuzzPlane decodes the input into at most 256 operations (four bytes each,
// after one capacity byte) and checks the invariants after each.
func FuzzPlane(f *testing.F) {
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		data := []byte{byte(seed * 3)}
		for _, op := range randomOps(r, 64) {
			data = append(data, op[:]...)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		h := newHarness(t, 1+int(data[0]%8))
		data = data[1:]
		for i := 0; i+4 <= len(data) && i < 4*256; i += 4 {
			if err := h.step([4]byte(data[i : i+4])); err != nil {
				t.Fatalf("op %d %v: %v", i/4, data[i:i+4], err)
			}
		}
	})
}

// TestWriteFuzzSeeds regenerates the committed seed corpus when
// LETS_WRITE_FUZZ_SEEDS=1 (kept so the seeds are reproducible).
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("LETS_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set LETS_WRITE_FUZZ_SEEDS=1 to regenerate testdata/fuzz/FuzzPlane")
	}
	dir := "testdata/fuzz/FuzzPlane"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for i, n := range []int{16, 64, 128, 256} {
		r := rand.New(rand.NewPCG(uint64(100+i), 11))
		data := []byte{byte(i * 2)}
		for _, op := range randomOps(r, n) {
			data = append(data, op[:]...)
		}
		name := fmt.Sprintf("seed-random-%03d", n)
		names = append(names, name)
		if err := os.WriteFile(dir+"/"+name, []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A hand-written scenario: approval with two one-shot requests, presses,
	// a lease and a preview.
	scenario := []byte{3,
		0x10, 1, 0, 3, // state id-0 waiting_for_approval
		0x14, 2, 0, 0x91, // subscribe conn 2 one-shot r1 approve+reject
		0x14, 3, 0, 0xa1, // subscribe conn 3 one-shot r2
		0x17, 0, 0, 0, // press approve
		0x17, 0, 0, 0, // press approve again (debounced)
		0xf8, 0, 1, 0, // press reject later
		0x15, 4, 1, 0x30, // lease L1 with agent
		0x1a, 5, 3, 0x00, // preview
		0x19, 0, 200, 0, // long tick
	}
	names = append(names, "seed-scenario")
	if err := os.WriteFile(dir+"/seed-scenario", []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", scenario)), 0o644); err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	t.Logf("wrote %v", names)
}
