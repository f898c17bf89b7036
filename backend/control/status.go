package control

import (
	"fmt"
	"sort"

	"github.com/lets-app/lets/backend/wire"
)

// Status returns the status response (§10): sessions visible first by slot,
// then overflow sessions by last_seen ascending. Metadata is copied, so the
// result stays valid after later calls.
func (p *Plane) Status() wire.Status {
	st := wire.Status{
		Profile:        p.cfg.Surface.Profile,
		VisualProtocol: wire.VisualProtocolVersion,
		Input:          p.cfg.Surface.Input,
		Output:         p.cfg.Surface.Output,
		Surfaces:       append([]wire.SurfaceDescriptor(nil), p.cfg.Surface.Descriptors...),
		ActivityMotion: p.cfg.ActivityMotion,
		AudioFeedback:  p.cfg.AudioFeedback,
		Experience:     p.experience,
		PreviewActive:  p.preview != nil,
		SessionTTL:     p.cfg.SessionTTL,
		Sessions:       make([]wire.StatusSession, 0, len(p.order)),
	}
	if p.selected != nil {
		id := p.selected.id
		st.Selected = &id
	}
	leased := p.leasedSet()
	entry := func(s *session) wire.StatusSession {
		return wire.StatusSession{
			Backend:   s.id.Backend,
			SessionID: s.id.SessionID,
			State:     s.state,
			Slot:      s.slot,
			Accent:    s.accent,
			Selected:  p.selected == s,
			Leased:    leased[s.id],
			Label:     Label(s.metadata, s.id.SessionID),
			Metadata:  s.metadata.Clone(),
		}
	}
	for _, s := range p.slots {
		if s != nil {
			st.Sessions = append(st.Sessions, entry(s))
		}
	}
	over := p.overflow()
	st.OverflowCount = len(over)
	for _, s := range over {
		st.Sessions = append(st.Sessions, entry(s))
	}
	return st
}

// overflow returns the sessions without a slot, least recently touched first.
func (p *Plane) overflow() []*session {
	var over []*session
	for _, s := range p.order {
		if s.slot == wire.NoSlot {
			over = append(over, s)
		}
	}
	sort.Slice(over, func(i, j int) bool { return over[i].lastSeen < over[j].lastSeen })
	return over
}

// OverflowCount returns the number of sessions without a slot.
func (p *Plane) OverflowCount() int {
	n := 0
	for _, s := range p.order {
		if s.slot == wire.NoSlot {
			n++
		}
	}
	return n
}

// Len returns the number of sessions.
func (p *Plane) Len() int { return len(p.order) }

// Selected returns the selected identity, if any.
func (p *Plane) Selected() (wire.Identity, bool) {
	if p.selected == nil {
		return wire.Identity{}, false
	}
	return p.selected.id, true
}

// Indicator is one visible session on the surface.
type Indicator struct {
	Slot     int
	Identity wire.Identity
	State    wire.State
	Selected bool
	Accent   string
	Label    string
}

// View is the surface-facing view (§9.16).
type View struct {
	// Centre is the preview state while a preview is active, else the
	// selected session's state, else "" (idle glyph).
	Centre wire.State
	// PreviewActive reports that Centre comes from a preview.
	PreviewActive bool
	// Indicators lists the visible sessions by slot ascending.
	Indicators []Indicator
	// Available are the actions to light, in spec order (empty during a
	// preview or without a selection).
	Available []wire.Action
	// OverflowCount is the number of sessions without a slot.
	OverflowCount int
	// ActivityMotion enables the running-activity animation (off while a
	// preview is active).
	ActivityMotion bool
	// Experience is the running Demo/Show ("" for none); surfaces show the
	// experience instead of this view while it runs.
	Experience string
	// Capacity is the number of visible slots.
	Capacity int
}

// View returns the current surface-facing view.
func (p *Plane) View() View {
	v := View{
		PreviewActive:  p.preview != nil,
		Available:      p.Available(),
		OverflowCount:  p.OverflowCount(),
		ActivityMotion: p.cfg.ActivityMotion && p.preview == nil,
		Experience:     p.experience,
		Capacity:       p.cfg.Capacity,
	}
	switch {
	case p.preview != nil:
		v.Centre = p.preview.state
	case p.selected != nil:
		v.Centre = p.selected.state
	}
	for _, s := range p.slots {
		if s == nil {
			continue
		}
		v.Indicators = append(v.Indicators, Indicator{
			Slot: s.slot, Identity: s.id, State: s.state, Selected: p.selected == s,
			Accent: s.accent, Label: Label(s.metadata, s.id.SessionID),
		})
	}
	return v
}

// Experience outcomes and texts (experiences spec §7.1).
const (
	// ReasonAgentAttention is the stop reason when an agent needs a reply or
	// an approval while an experience runs.
	ReasonAgentAttention = "agent_attention_required"
	// BlockedText is the block message when an experience cannot start.
	BlockedText = "An agent is waiting for approval or a reply."
)

// ExperienceStart is the outcome of StartExperience.
type ExperienceStart int

const (
	// ExperienceStarted: the experience now runs.
	ExperienceStarted ExperienceStart = iota
	// ExperienceBlocked: a session waits for a reply or approval; the
	// daemon reports BlockedText to the browser.
	ExperienceBlocked
	// ExperienceIgnored: something already runs; the request is ignored.
	ExperienceIgnored
)

// StartExperience records that a Demo ("demo") or Show ("show") starts, if
// no agent needs attention and nothing runs yet.
func (p *Plane) StartExperience(now float64, kind string) (ExperienceStart, error) {
	if kind != wire.ExperienceDemo && kind != wire.ExperienceShow {
		return ExperienceIgnored, fmt.Errorf("start experience %q: want %q or %q", kind, wire.ExperienceDemo, wire.ExperienceShow)
	}
	if p.needsAttention() {
		return ExperienceBlocked, nil
	}
	if p.experience != "" {
		return ExperienceIgnored, nil
	}
	p.experience = kind
	p.changed(nil)
	return ExperienceStarted, nil
}

// StopExperience records that the running experience ended (stopped by an
// administrator, completed, or the daemon shutting down). It reports whether
// one was running.
func (p *Plane) StopExperience() bool {
	if p.experience == "" {
		return false
	}
	p.experience = ""
	p.changed(nil)
	return true
}

// Experience returns the running experience ("demo", "show" or "").
func (p *Plane) Experience() string { return p.experience }

func (p *Plane) needsAttention() bool {
	for _, s := range p.order {
		if s.state == wire.StateWaitingForReply || s.state == wire.StateWaitingForApproval {
			return true
		}
	}
	return false
}

// preempt stops a running experience when an agent needs attention.
func (p *Plane) preempt() string {
	if p.experience == "" || !p.needsAttention() {
		return ""
	}
	p.experience = ""
	p.changed(nil)
	return ReasonAgentAttention
}

// Check verifies the registry invariants (used by tests and fuzzing): slot
// table consistency, unique visible accents from the palette, the selection
// is a visible live session, creation order is consistent, and every
// subscription's agent exists.
func (p *Plane) Check() error {
	if len(p.order) != len(p.sessions) {
		return fmt.Errorf("order has %d sessions, registry %d", len(p.order), len(p.sessions))
	}
	for i, s := range p.order {
		if s.index != i || p.sessions[s.id] != s {
			return fmt.Errorf("session %s: order index %d inconsistent", s.id, i)
		}
		if s.slot != wire.NoSlot && (s.slot < 0 || s.slot >= len(p.slots) || p.slots[s.slot] != s) {
			return fmt.Errorf("session %s claims slot %d not pointing back", s.id, s.slot)
		}
	}
	accents := map[string]bool{}
	visible := 0
	for i, s := range p.slots {
		if s == nil {
			continue
		}
		visible++
		if s.slot != i || p.sessions[s.id] != s {
			return fmt.Errorf("slot %d holds %s with slot %d or a removed session", i, s.id, s.slot)
		}
		if s.accent == "" || accents[s.accent] {
			return fmt.Errorf("slot %d: accent %q missing or duplicated", i, s.accent)
		}
		accents[s.accent] = true
		found := false
		for _, a := range p.cfg.Accents {
			found = found || a == s.accent
		}
		if !found {
			return fmt.Errorf("slot %d: accent %q is not in the palette", i, s.accent)
		}
	}
	if visible > p.cfg.Capacity {
		return fmt.Errorf("%d visible sessions exceed capacity %d", visible, p.cfg.Capacity)
	}
	if visible < len(p.slots) && p.OverflowCount() > 0 {
		return fmt.Errorf("a slot is free while %d sessions wait in overflow", p.OverflowCount())
	}
	if p.selected != nil {
		if p.sessions[p.selected.id] != p.selected {
			return fmt.Errorf("selection %s is not in the registry", p.selected.id)
		}
		if p.selected.slot == wire.NoSlot {
			return fmt.Errorf("selection %s has no slot", p.selected.id)
		}
	}
	for conn, sub := range p.subs {
		if _, ok := p.sessions[sub.agent]; !ok {
			return fmt.Errorf("subscription of connection %d points at removed session %s", conn, sub.agent)
		}
		if p.byAgent[sub.agent][conn] != sub {
			return fmt.Errorf("subscription index out of date for connection %d", conn)
		}
	}
	for l, id := range p.leaseAgents {
		if _, ok := p.sessions[id]; !ok {
			return fmt.Errorf("lease %q bound to removed session %s", l, id)
		}
	}
	for conn, l := range p.clientLeases {
		if p.leaseClients[l] != conn {
			return fmt.Errorf("lease tables disagree for connection %d", conn)
		}
	}
	return nil
}
