package control

import (
	"path"
	"sort"

	"github.com/lets-app/lets/backend/wire"
)

// actionSet is a set of the four actions, bit i = wire.Actions()[i].
type actionSet uint8

func actionBit(a wire.Action) actionSet {
	switch a {
	case wire.ActionApprove:
		return 1
	case wire.ActionReject:
		return 2
	case wire.ActionStop:
		return 4
	case wire.ActionRetry:
		return 8
	}
	return 0
}

func (s actionSet) has(a wire.Action) bool { return s&actionBit(a) != 0 }

// permitted returns the actions a session in state may receive (§5.2).
func permitted(st wire.State) actionSet {
	switch st {
	case wire.StateWaitingForApproval:
		return actionBit(wire.ActionApprove) | actionBit(wire.ActionReject)
	case wire.StateRunning:
		return actionBit(wire.ActionStop)
	case wire.StateError, wire.StateCancelled:
		return actionBit(wire.ActionRetry)
	}
	return 0
}

func (s actionSet) list() []wire.Action {
	if s == 0 {
		return nil
	}
	out := make([]wire.Action, 0, 4)
	for _, a := range wire.Actions() {
		if s.has(a) {
			out = append(out, a)
		}
	}
	return out
}

type session struct {
	id           wire.Identity
	state        wire.State
	slot         int    // wire.NoSlot in overflow
	accent       string // "" = none
	lastSeen     uint64
	lastActivity float64
	metadata     wire.Metadata
	holdUntil    float64
	hasHold      bool
	announced    wire.State // last state announced by a `state` message (earcons)
	index        int        // position in Plane.order
}

type subscription struct {
	conn         int64
	agent        wire.Identity
	actions      actionSet
	requestID    string // "" = none
	oneShot      bool
	subscribedAt uint64
}

func (s *subscription) pendingApproval() bool {
	return s.requestID != "" && (s.actions.has(wire.ActionApprove) || s.actions.has(wire.ActionReject))
}

type preview struct {
	conn      int64
	id        string
	state     wire.State
	expiresAt float64
}

type debounceKey struct {
	id     wire.Identity
	action wire.Action
}

// Plane is the control plane. It is not safe for concurrent use: one owner
// goroutine calls it.
type Plane struct {
	cfg Config

	sessions map[wire.Identity]*session
	order    []*session // creation order (nil holes never remain)
	slots    []*session
	selected *session

	subs    map[int64]*subscription
	byAgent map[wire.Identity]map[int64]*subscription

	leaseClients  map[string]int64         // lease id → owner connection
	clientLeases  map[int64]string         // connection → lease id
	leaseAgents   map[string]wire.Identity // lease id → bound identity
	leaseMetadata map[string]wire.Metadata // lease id → metadata of the last registration

	debounce map[debounceKey]float64
	preview  *preview

	seq        uint64
	version    uint64
	experience string
}

// New validates cfg and returns an empty plane.
func New(cfg Config) (*Plane, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Plane{
		cfg:           cfg,
		sessions:      map[wire.Identity]*session{},
		slots:         make([]*session, cfg.Capacity),
		subs:          map[int64]*subscription{},
		byAgent:       map[wire.Identity]map[int64]*subscription{},
		leaseClients:  map[string]int64{},
		clientLeases:  map[int64]string{},
		leaseAgents:   map[string]wire.Identity{},
		leaseMetadata: map[string]wire.Metadata{},
		debounce:      map[debounceKey]float64{},
	}, nil
}

// Capacity returns the number of visible slots.
func (p *Plane) Capacity() int { return p.cfg.Capacity }

// Version increases whenever the surface view may have changed.
func (p *Plane) Version() uint64 { return p.version }

// SetSurface replaces the surface description reported in status.
func (p *Plane) SetSurface(s Surface) { p.cfg.Surface = s }

func (p *Plane) changed(r *Result) {
	p.version++
	if r != nil {
		r.Changed = true
	}
}

// ---- registry ----

func (p *Plane) touch(s *session, now float64) {
	p.seq++
	s.lastSeen = p.seq
	s.lastActivity = now
}

// ensure returns the session for id, creating it (§9.4) when missing.
func (p *Plane) ensure(id wire.Identity, now float64) (*session, bool) {
	if s, ok := p.sessions[id]; ok {
		return s, false
	}
	s := &session{id: id, state: wire.StateWaitingForReply, slot: wire.NoSlot, index: len(p.order)}
	p.sessions[id] = s
	p.order = append(p.order, s)
	p.touch(s, now)
	p.assignSlot(s)
	if p.selected == nil && len(p.sessions) == 1 {
		p.selected = s
	}
	return s, true
}

// freeSlot is the lowest empty slot, or -1 when every slot is taken.
func (p *Plane) freeSlot() int {
	for i, o := range p.slots {
		if o == nil {
			return i
		}
	}
	return -1
}

// assignSlot gives s (which has no slot) a visible slot if possible (§9.6).
func (p *Plane) assignSlot(s *session) {
	idx := p.freeSlot()
	if idx < 0 {
		var victim *session
		for _, o := range p.slots {
			if o == p.selected || o.state == wire.StateWaitingForApproval {
				continue
			}
			if victim == nil || o.lastSeen < victim.lastSeen {
				victim = o
			}
		}
		if victim == nil {
			return
		}
		idx = victim.slot
		victim.slot = wire.NoSlot
	}
	p.slots[idx] = s
	s.slot = idx
	p.assignAccent(s)
}

// assignAccent runs whenever s gets a slot (§9.7).
func (p *Plane) assignAccent(s *session) {
	var used [wire.MaxCapacity]string
	n := 0
	for _, o := range p.slots {
		if o != nil && o != s {
			used[n] = o.accent
			n++
		}
	}
	isUsed := func(a string) bool {
		for _, u := range used[:n] {
			if u == a {
				return true
			}
		}
		return false
	}
	preferred := s.accent
	if preferred == "" && p.cfg.Store != nil {
		preferred = p.cfg.Store.Lookup(s.id.Backend, s.id.SessionID)
	}
	inPalette := false
	for _, a := range p.cfg.Accents {
		if a == preferred {
			inPalette = true
			break
		}
	}
	if !inPalette || isUsed(preferred) {
		preferred = ""
		for _, a := range p.cfg.Accents {
			if !isUsed(a) {
				preferred = a
				break
			}
		}
	}
	s.accent = preferred
	if p.cfg.Store != nil && preferred != "" {
		_ = p.cfg.Store.Remember(s.id.Backend, s.id.SessionID, preferred) // §9.8: I/O errors are swallowed
	}
}

// remove deletes a session and everything that points at it (§9.9).
func (p *Plane) remove(id wire.Identity) bool {
	s, ok := p.sessions[id]
	if !ok {
		return false
	}
	delete(p.sessions, id)
	copy(p.order[s.index:], p.order[s.index+1:])
	p.order[len(p.order)-1] = nil
	p.order = p.order[:len(p.order)-1]
	for i := s.index; i < len(p.order); i++ {
		p.order[i].index = i
	}
	if s.slot != wire.NoSlot {
		p.slots[s.slot] = nil
	}
	if p.selected == s {
		p.selected = nil
	}
	for conn := range p.byAgent[id] {
		delete(p.subs, conn)
	}
	delete(p.byAgent, id)
	for l, a := range p.leaseAgents {
		if a == id {
			delete(p.leaseAgents, l)
		}
	}
	for _, a := range wire.Actions() {
		delete(p.debounce, debounceKey{id, a})
	}
	p.refill()
	return true
}

// refill moves overflow sessions into free slots: waiting_for_approval
// first, then most recently touched first (§9.6).
func (p *Plane) refill() {
	free := 0
	for _, o := range p.slots {
		if o == nil {
			free++
		}
	}
	if free == 0 {
		return
	}
	var over []*session
	for _, s := range p.order {
		if s.slot == wire.NoSlot {
			over = append(over, s)
		}
	}
	if len(over) == 0 {
		return
	}
	sort.Slice(over, func(i, j int) bool {
		ai := over[i].state == wire.StateWaitingForApproval
		aj := over[j].state == wire.StateWaitingForApproval
		if ai != aj {
			return ai
		}
		return over[i].lastSeen > over[j].lastSeen
	})
	for _, s := range over {
		idx := p.freeSlot()
		if idx < 0 {
			return
		}
		p.slots[idx] = s
		s.slot = idx
		p.assignAccent(s)
	}
}

func (p *Plane) hasPendingApproval(id wire.Identity) bool {
	for _, sub := range p.byAgent[id] {
		if sub.pendingApproval() {
			return true
		}
	}
	return false
}

// leased reports whether a lease with a live owner is bound to id (§9.11).
func (p *Plane) leased(id wire.Identity) bool {
	for l, a := range p.leaseAgents {
		if a == id {
			if _, live := p.leaseClients[l]; live {
				return true
			}
		}
	}
	return false
}

func (p *Plane) leasedSet() map[wire.Identity]bool {
	set := make(map[wire.Identity]bool, len(p.leaseClients))
	for l := range p.leaseClients {
		if a, ok := p.leaseAgents[l]; ok {
			set[a] = true
		}
	}
	return set
}

// Label returns the display label of a metadata map and session id (§9.13).
func Label(meta wire.Metadata, sessionID string) string {
	if l, ok := meta.Get("label"); ok && l != "" {
		return l
	}
	if cwd, ok := meta.Get("cwd"); ok && cwd != "" {
		clean := path.Clean(cwd)
		base := clean
		for i := len(clean) - 1; i >= 0; i-- {
			if clean[i] == '/' {
				base = clean[i+1:]
				break
			}
		}
		if base != "" {
			return base
		}
	}
	n := 0
	for i := range sessionID { // code points; an invalid byte counts as one
		if n == 8 {
			return sessionID[:i]
		}
		n++
	}
	return sessionID
}

func (p *Plane) ack(s *session, leased bool) wire.StateAck {
	return wire.StateAck{
		Backend:   s.id.Backend,
		SessionID: s.id.SessionID,
		State:     s.state,
		Slot:      s.slot,
		Accent:    s.accent,
		Selected:  p.selected == s,
		Leased:    leased,
		Label:     Label(s.metadata, s.id.SessionID),
	}
}

// Snapshot returns the state_ack payload of a session, if it exists.
func (p *Plane) Snapshot(id wire.Identity) (wire.StateAck, bool) {
	s, ok := p.sessions[id]
	if !ok {
		return wire.StateAck{}, false
	}
	return p.ack(s, p.leased(id)), true
}

func (p *Plane) earcon(name string, slot int) {
	if p.cfg.AudioFeedback && p.cfg.Earcons != nil {
		p.cfg.Earcons.Earcon(name, slot)
	}
}

func stateEarcon(st wire.State) string {
	switch st {
	case wire.StateWaitingForReply:
		return EarconQuestion
	case wire.StateWaitingForApproval:
		return EarconApproval
	case wire.StateSuccess:
		return EarconSuccess
	case wire.StateError:
		return EarconError
	case wire.StateCancelled:
		return EarconCancelled
	}
	return ""
}

func defaultAgent(id wire.Identity) wire.Identity {
	if id.IsZero() {
		return wire.DefaultIdentity()
	}
	return id
}
