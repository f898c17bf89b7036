package control

import (
	"github.com/lets-app/lets/backend/wire"
)

// Update applies a `state` message from connection conn (§6.1, §9.5):
// optional lease binding (with session_lease_bound to a live owner, snapshot
// taken before the update), the state update, experience preemption, the
// state earcon, and the state_ack to conn when cmd.Reply is set.
func (p *Plane) Update(now float64, conn int64, cmd wire.StateCommand) Result {
	var r Result
	id := defaultAgent(cmd.Agent)
	if cmd.LeaseID != "" {
		p.bind(now, cmd.LeaseID, id, cmd.Metadata)
		if owner, live := p.leaseClients[cmd.LeaseID]; live {
			r.send(owner, wire.SessionLeaseBound{LeaseID: cmd.LeaseID, Session: p.ack(p.sessions[id], true)})
		}
	}
	s, _ := p.ensure(id, now)
	p.touch(s, now)
	eff := cmd.State
	if eff != wire.StateWaitingForApproval && p.hasPendingApproval(id) {
		eff = wire.StateWaitingForApproval
	}
	s.state = eff
	s.metadata.Merge(cmd.Metadata)
	if eff.IsTerminal() {
		s.holdUntil, s.hasHold = now+p.cfg.TerminalHold, true
	} else {
		s.holdUntil, s.hasHold = 0, false
	}
	if s.slot == wire.NoSlot {
		p.assignSlot(s)
	}
	p.changed(&r)
	r.ExperienceStopped = p.preempt()
	if eff != s.announced { // experiences spec §8.5: only when it differs from the last announced state
		s.announced = eff
		if name := stateEarcon(eff); name != "" {
			p.earcon(name, s.slot)
		}
	}
	if cmd.Reply {
		r.send(conn, p.ack(s, p.leased(id)))
	}
	return r
}

// End removes the session of id (`session_end`, §6.2). Unknown identities
// are a silent no-op. Nothing is sent.
func (p *Plane) End(now float64, id wire.Identity) Result {
	var r Result
	if p.remove(id) {
		p.changed(&r)
	}
	return r
}

// SelectSlot handles a surface Scene press (§9.8a): an occupied slot in
// range becomes the selection, the session is touched and the selection
// earcon plays. Anything else does nothing. While an experience runs the
// event is Consumed and ignored.
func (p *Plane) SelectSlot(now float64, slot int) Result {
	var r Result
	if p.experience != "" {
		r.Consumed = true
		return r
	}
	if slot < 0 || slot >= len(p.slots) || p.slots[slot] == nil {
		return r
	}
	s := p.slots[slot]
	p.selected = s
	p.touch(s, now)
	p.changed(&r)
	r.Delivered = true
	p.earcon(EarconSessionSelected, slot)
	return r
}

// Subscribe handles `subscribe_actions` from conn (§9.10): creates the
// session if missing, touches it and replaces conn's subscription. Nothing
// is sent.
func (p *Plane) Subscribe(now float64, conn int64, cmd wire.SubscribeActionsCommand) Result {
	var r Result
	id := defaultAgent(cmd.Agent)
	s, _ := p.ensure(id, now)
	p.touch(s, now)
	p.dropSubscription(conn)
	var set actionSet
	for _, a := range cmd.Actions {
		set |= actionBit(a)
	}
	sub := &subscription{conn: conn, agent: id, actions: set, requestID: cmd.RequestID, oneShot: cmd.OneShot, subscribedAt: s.lastSeen}
	p.subs[conn] = sub
	m := p.byAgent[id]
	if m == nil {
		m = map[int64]*subscription{}
		p.byAgent[id] = m
	}
	m[conn] = sub
	p.changed(&r)
	return r
}

func (p *Plane) dropSubscription(conn int64) bool {
	old, ok := p.subs[conn]
	if !ok {
		return false
	}
	delete(p.subs, conn)
	if m := p.byAgent[old.agent]; m != nil {
		delete(m, conn)
		if len(m) == 0 {
			delete(p.byAgent, old.agent)
		}
	}
	return true
}

// RegisterLease handles `session_lease` from conn (§9.11) and answers with
// session_lease_ack.
func (p *Plane) RegisterLease(now float64, conn int64, cmd wire.SessionLeaseCommand) Result {
	var r Result
	l := cmd.LeaseID
	if l == "" {
		r.send(conn, wire.ErrorMessage{Code: wire.CodeInvalidMessage, Text: wire.TextLeaseID})
		return r
	}
	if old, ok := p.clientLeases[conn]; ok && old != l {
		p.release(conn, old)
	}
	if prev, ok := p.leaseClients[l]; ok && prev != conn {
		delete(p.clientLeases, prev) // takeover: the old owner is not told
	}
	p.leaseClients[l] = conn
	p.clientLeases[conn] = l
	p.leaseMetadata[l] = cmd.Metadata.Clone()
	ack := wire.SessionLeaseAck{LeaseID: l}
	if !cmd.Agent.IsZero() {
		p.bind(now, l, cmd.Agent, cmd.Metadata)
		a := p.ack(p.sessions[cmd.Agent], true)
		ack.Session = &a
	} else if id, ok := p.leaseAgents[l]; ok {
		if s, ok := p.sessions[id]; ok {
			if len(cmd.Metadata) > 0 {
				s.metadata.Merge(cmd.Metadata)
				s.lastActivity = now
			}
			a := p.ack(s, true)
			ack.Session = &a
		}
	}
	p.changed(&r)
	r.send(conn, ack)
	return r
}

// bind binds lease l to id (§9.11 "Binding").
func (p *Plane) bind(now float64, l string, id wire.Identity, meta wire.Metadata) {
	prev, hadPrev := p.leaseAgents[l]
	p.leaseAgents[l] = id
	s, _ := p.ensure(id, now)
	s.lastActivity = now
	s.metadata.Merge(p.leaseMetadata[l])
	s.metadata.Merge(meta)
	if hadPrev && prev != id && !p.leased(prev) {
		p.remove(prev)
	}
}

// release releases lease l owned by conn (§9.11 "Release").
func (p *Plane) release(conn int64, l string) {
	if owner, ok := p.leaseClients[l]; !ok || owner != conn {
		return
	}
	delete(p.leaseClients, l)
	delete(p.clientLeases, conn)
	id, had := p.leaseAgents[l]
	delete(p.leaseAgents, l)
	delete(p.leaseMetadata, l)
	if had && !p.leased(id) {
		p.remove(id)
	}
}

// Disconnect runs the cleanup for a closed connection (§9.12): its
// subscription goes, its lease is released (possibly removing the session),
// and its preview is cleared. Nothing is sent.
func (p *Plane) Disconnect(now float64, conn int64) Result {
	var r Result
	if p.dropSubscription(conn) {
		p.changed(&r)
	}
	if l, ok := p.clientLeases[conn]; ok {
		p.release(conn, l)
		p.changed(&r)
	}
	if p.preview != nil && p.preview.conn == conn {
		p.preview = nil
		p.changed(&r)
	}
	return r
}

// SetPreview handles `preview` from conn (§9.14) and answers preview_ack or
// a preview_conflict error.
func (p *Plane) SetPreview(now float64, conn int64, cmd wire.PreviewCommand) Result {
	var r Result
	switch {
	case cmd.PreviewID == "":
		r.send(conn, wire.ErrorMessage{Code: wire.CodeInvalidMessage, Text: wire.TextPreviewID})
		return r
	case !(cmd.TTL > 0 && cmd.TTL <= wire.MaxPreviewTTL):
		r.send(conn, wire.ErrorMessage{Code: wire.CodeInvalidMessage, Text: wire.TextTTL})
		return r
	case p.preview != nil && p.preview.conn != conn:
		r.send(conn, wire.ErrPreviewConflictOther().Message())
		return r
	case p.preview != nil && p.preview.id != cmd.PreviewID:
		r.send(conn, wire.ErrPreviewConflictDifferent().Message())
		return r
	}
	p.preview = &preview{conn: conn, id: cmd.PreviewID, state: cmd.State, expiresAt: now + cmd.TTL}
	p.changed(&r)
	r.send(conn, wire.PreviewAck{PreviewID: cmd.PreviewID, State: cmd.State})
	return r
}

// EndPreview handles `preview_end` from conn (§9.14).
func (p *Plane) EndPreview(now float64, conn int64, previewID string) Result {
	var r Result
	if p.preview == nil || p.preview.conn != conn || p.preview.id != previewID {
		r.send(conn, wire.ErrPreviewNotOwned().Message())
		return r
	}
	p.preview = nil
	p.changed(&r)
	r.send(conn, wire.PreviewEndAck{PreviewID: previewID})
	return r
}

// PreviewActive reports whether a preview is active.
func (p *Plane) PreviewActive() bool { return p.preview != nil }

// Available returns the actions the surface lights (§9.10), in spec order.
func (p *Plane) Available() []wire.Action { return p.available().list() }

func (p *Plane) available() actionSet {
	if p.preview != nil || p.selected == nil {
		return 0
	}
	var set actionSet
	for _, sub := range p.byAgent[p.selected.id] {
		set |= sub.actions
	}
	return set & permitted(p.selected.state)
}

// Press handles a surface action press (§9.10): the four gates, recipient
// choice (request-scoped first, then oldest subscription), one_shot
// disarming, debounce, and the earcon. Delivered reports success; Out then
// holds the single wire.ActionEvent for the chosen connection.
func (p *Plane) Press(now float64, action wire.Action) Result {
	var r Result
	if p.experience != "" {
		r.Consumed = true
		return r
	}
	t := p.selected
	slot := wire.NoSlot
	if t != nil {
		slot = t.slot
	}
	if t == nil || !p.available().has(action) {
		p.earcon(EarconUnavailable, slot)
		return r
	}
	best := p.recipient(t.id, action)
	if best == nil { // unreachable: available() found a subscriber
		p.earcon(EarconUnavailable, slot)
		return r
	}
	if p.debounced(t.id, action, now) {
		p.earcon(EarconUnavailable, slot)
		return r
	}
	p.deliver(&r, now, t, best, action)
	return r
}

// recipient picks the subscription for id that receives action (§9.10
// "Recipient choice"), or nil when none advertises it.
func (p *Plane) recipient(id wire.Identity, action wire.Action) *subscription {
	var best *subscription
	for _, sub := range p.byAgent[id] {
		if !sub.actions.has(action) {
			continue
		}
		if best == nil || better(sub, best) {
			best = sub
		}
	}
	return best
}

// debounced reports whether (id, action) was delivered less than the
// debounce interval before now (gate 4). Surface presses and PressFor share
// the record.
func (p *Plane) debounced(id wire.Identity, action wire.Action, now float64) bool {
	t0, ok := p.debounce[debounceKey{id, action}]
	return ok && now-t0 < p.cfg.ActionDebounce
}

// deliver is §9.10 "On delivery": record the debounce time, touch t, disarm
// a one-shot recipient before sending, send the action event with the
// recipient's request id as it was, and play the action's earcon.
func (p *Plane) deliver(r *Result, now float64, t *session, to *subscription, action wire.Action) {
	p.debounce[debounceKey{t.id, action}] = now
	p.touch(t, now)
	rid := to.requestID
	if to.oneShot {
		to.actions, to.requestID, to.oneShot = 0, "", false
	}
	r.send(to.conn, wire.ActionEvent{Action: action, Agent: t.id, RequestID: rid})
	r.Delivered = true
	p.changed(r)
	p.earcon(string(action), t.slot)
}

// better orders recipients: request-scoped before unscoped, then oldest
// subscribe_actions first.
func better(a, b *subscription) bool {
	if (a.requestID == "") != (b.requestID == "") {
		return a.requestID != ""
	}
	return a.subscribedAt < b.subscribedAt
}

// Tick runs the periodic expiry (§9.15): preview expiry, terminal-hold
// fallback, TTL removal in creation order, then experience preemption.
func (p *Plane) Tick(now float64) Result {
	var r Result
	if p.preview != nil && now >= p.preview.expiresAt {
		p.preview = nil
		p.changed(&r)
	}
	for _, s := range p.order {
		if s.hasHold && now >= s.holdUntil {
			s.state = wire.StateWaitingForReply
			s.hasHold = false
			p.changed(&r)
		}
	}
	if ttl := p.cfg.SessionTTL; ttl > 0 {
		var expired []wire.Identity
		leased := p.leasedSet()
		for _, s := range p.order {
			if !leased[s.id] && now-s.lastActivity >= ttl {
				expired = append(expired, s.id)
			}
		}
		for _, id := range expired {
			if p.remove(id) {
				p.changed(&r)
			}
		}
	}
	if reason := p.preempt(); reason != "" {
		r.ExperienceStopped = reason
		p.changed(&r)
	}
	return r
}
