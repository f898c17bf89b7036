package daemon

import (
	"strconv"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/wire"
)

// Lets' hook reports: order and settled questions.
//
// Claude Code runs its PermissionRequest hook at the same time as its own
// terminal prompt and does not stop the hook when the person answers in
// the terminal; and each hook is a process of its own that reports on a
// connection of its own, so two reports can reach the daemon in the other
// order (Wire Protocol 1 promises no order across connections, §11.7).
//
// The protocol leaves room for neither (a state message has a fixed set of
// members), so Lets' reporters say it in the agent metadata, which the
// protocol lets a client fill freely (§5.4): SeqKey carries the report's
// place in the session's event order (the hook's start time in
// nanoseconds). A Python daemon just stores the member; this daemon takes
// it out before the control plane sees it and:
//
//   - drops a report older than one it already applied for the session
//     (a reply still gets its state_ack, with the session as it is);
//   - takes a newer report that is not waiting_for_approval as a sign
//     that every question the session asked is settled: it withdraws them
//     by closing the connections of their request-scoped approve/reject
//     subscriptions (the waiting hook sees its subscription end and exits
//     without an answer), then applies the report, which the pending
//     approvals can therefore no longer hold at waiting_for_approval
//     (§9.5 step 3).
//
// Reports without SeqKey (Python clients, Codex) are handled exactly as
// the protocol says.

// SeqKey is the agent metadata member that carries a report's place in
// its session's event order: a decimal integer, larger is later.
const SeqKey = "lets_seq"

// maxSeqs bounds how many sessions' last sequence numbers are kept; past
// it the oldest entry is forgotten (its session then takes any report).
const maxSeqs = 4096

// ask is a connection's action subscription as far as withdrawing it
// goes: a request-scoped subscription for approve or reject is a question.
type ask struct {
	agent    wire.Identity
	question bool
	oneShot  bool
}

// seqs remembers the last applied sequence number per session.
type seqs struct {
	last  map[wire.Identity]int64
	order []wire.Identity // insertion order, for the bound
}

func (s *seqs) get(id wire.Identity) (int64, bool) {
	v, ok := s.last[id]
	return v, ok
}

func (s *seqs) set(id wire.Identity, v int64) {
	if s.last == nil {
		s.last = map[wire.Identity]int64{}
	}
	if _, ok := s.last[id]; !ok {
		if len(s.order) >= maxSeqs {
			delete(s.last, s.order[0])
			s.order = s.order[1:]
		}
		s.order = append(s.order, id)
	}
	s.last[id] = v
}

// takeSeq removes SeqKey from the metadata and returns its value; ok is
// false when the report carries none (or one that is not a number, which
// then stays ordinary metadata).
func takeSeq(m wire.Metadata) (wire.Metadata, int64, bool) {
	v, found := m.Get(SeqKey)
	if !found {
		return m, 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return m, 0, false
	}
	out := make(wire.Metadata, 0, len(m)-1)
	for _, e := range m {
		if e.Key != SeqKey {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		out = nil
	}
	return out, n, true
}

// noteSubscription records (or replaces) connection c's subscription.
func (d *Daemon) noteSubscription(c int64, cmd wire.SubscribeActionsCommand) {
	q := false
	if cmd.RequestID != "" {
		for _, a := range cmd.Actions {
			if a == wire.ActionApprove || a == wire.ActionReject {
				q = true
			}
		}
		if cmd.Actions == nil { // absent: every action
			q = true
		}
	}
	if d.asks == nil {
		d.asks = map[int64]ask{}
	}
	d.asks[c] = ask{agent: cmd.Agent, question: q, oneShot: cmd.OneShot}
}

// noteDelivered disarms the record of a one-shot subscription that just
// got its action (§9.10: it no longer counts as a pending approval).
func (d *Daemon) noteDelivered(c int64) {
	if a, ok := d.asks[c]; ok && a.oneShot {
		a.question = false
		d.asks[c] = a
	}
}

// withdraw closes every connection whose subscription is a question of
// id, running the disconnect cleanup at once, so the control plane no
// longer counts them before the next update is applied.
func (d *Daemon) withdraw(id wire.Identity, except int64) {
	for cid, a := range d.asks {
		if cid == except || !a.question || a.agent != id {
			continue
		}
		c, ok := d.conns[cid]
		if !ok {
			delete(d.asks, cid)
			continue
		}
		d.log.Debug("withdrawing a settled question", "conn", cid, "backend", id.Backend, "session", id.SessionID)
		d.cleanup(c, true)
	}
}

// updateState applies a state message from connection c with Lets' order
// and settling rules (see the top of this file).
func (d *Daemon) updateState(now float64, c *conn, cmd wire.StateCommand) control.Result {
	meta, seq, ok := takeSeq(cmd.Metadata)
	if !ok {
		return d.plane.Update(now, c.id, cmd)
	}
	cmd.Metadata = meta
	if last, seen := d.seqs.get(cmd.Agent); seen && seq < last {
		d.log.Debug("dropped a report older than one already applied", "backend", cmd.Agent.Backend, "session", cmd.Agent.SessionID, "state", string(cmd.State))
		if cmd.State == wire.StateWaitingForApproval {
			// The question this report announces was settled by the
			// later report: its hook subscribed just before.
			d.withdraw(cmd.Agent, c.id)
		}
		var r control.Result
		if cmd.Reply {
			ack, exists := d.plane.Snapshot(cmd.Agent)
			if !exists { // ended meanwhile: say so without bringing it back
				ack = wire.StateAck{Backend: cmd.Agent.Backend, SessionID: cmd.Agent.SessionID, State: wire.StateWaitingForReply, Slot: wire.NoSlot}
			}
			r.Out = append(r.Out, control.Outbound{Conn: c.id, Msg: ack})
		}
		return r
	}
	d.seqs.set(cmd.Agent, seq)
	if cmd.State != wire.StateWaitingForApproval {
		d.withdraw(cmd.Agent, c.id)
	}
	return d.plane.Update(now, c.id, cmd)
}
