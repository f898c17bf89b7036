package control

import "github.com/lets-app/lets/backend/wire"

// Outbound is one message the daemon must encode and write to connection
// Conn. Msg is one of wire.StateAck, wire.SessionLeaseAck,
// wire.SessionLeaseBound, wire.ActionEvent, wire.PreviewAck,
// wire.PreviewEndAck or wire.ErrorMessage.
type Outbound struct {
	Conn int64
	Msg  wire.Message
}

// Result is what an operation asks the daemon to do.
type Result struct {
	// Out lists the messages to write, in this order.
	Out []Outbound
	// Changed reports that the surface view (View) may have changed and
	// surfaces should be re-rendered.
	Changed bool
	// ExperienceStopped is non-empty when this call stopped a running
	// Demo/Show; it holds the stop reason (ReasonAgentAttention). The daemon
	// stops the real experience controller and renders the live view.
	ExperienceStopped string
	// Consumed is true when a surface event (SelectSlot, Press) arrived while
	// an experience runs: the plane ignored it and the daemon should hand it
	// to the experience controller.
	Consumed bool
	// Delivered is true when Press delivered the action (Out then holds the
	// wire.ActionEvent) or SelectSlot selected a session.
	Delivered bool
}

func (r *Result) send(conn int64, msg wire.Message) {
	r.Out = append(r.Out, Outbound{Conn: conn, Msg: msg})
}
