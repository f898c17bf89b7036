// Package control is the Pad-Lattice control plane (wire-protocol-1 §9–§11):
// the registry of agent sessions, visible slots and accents, selection,
// action subscriptions and delivery, session leases, previews, expiry, the
// status response and the surface-facing view. It is pure Go: no sockets, no
// goroutines, no clocks. Every operation takes `now`, float64 seconds of a
// monotonic clock (the daemon samples it once per inbound message or surface
// event, spec §11.8), and connections are identified by an int64 chosen by
// the daemon.
//
// # Using it from the daemon
//
// A *Plane is NOT safe for concurrent use. The daemon's single owner goroutine
// creates it with New(cfg) and is the only caller. Each inbound message that
// passed wire validation maps to one method; the method returns a Result
// whose Out slice lists the messages to write, in order, each addressed to a
// connection (Outbound{Conn, Msg}). The daemon only encodes and queues them.
//
//	wire message        Plane call                                   Result.Out
//	state               Update(now, conn, wire.StateCommand)         [SessionLeaseBound → lease owner] [StateAck → conn if Reply]
//	session_end         End(now, id)                                 nothing
//	status              Status() → wire.Status                       (daemon encodes it)
//	ping                —                                            (daemon answers wire.Pong itself)
//	session_lease       RegisterLease(now, conn, wire.SessionLeaseCommand)  SessionLeaseAck → conn
//	subscribe_actions   Subscribe(now, conn, wire.SubscribeActionsCommand)  nothing
//	preview             SetPreview(now, conn, wire.PreviewCommand)   PreviewAck or ErrorMessage → conn
//	preview_end         EndPreview(now, conn, previewID)             PreviewEndAck or ErrorMessage → conn
//	connection closed   Disconnect(now, conn)                        nothing
//	surface Scene press SelectSlot(now, slot)                        nothing (Delivered = selected; earcon)
//	surface action      Press(now, action)                           ActionEvent → the one chosen subscriber
//	named answer        PressFor(now, id, requestID, action)         ActionEvent → the one chosen subscriber, or a *PressError
//	loop iteration      Tick(now)                                    nothing (expiry; Changed/ExperienceStopped)
//
// Outbound.Msg is a wire.Message (wire.StateAck, wire.SessionLeaseAck,
// wire.SessionLeaseBound, wire.ActionEvent, wire.PreviewAck,
// wire.PreviewEndAck, wire.ErrorMessage): call Encode and queue the bytes on
// connection Conn. A message for a connection that is already gone is
// dropped by the daemon.
//
// Ordering (§11.4): for a `state` with a live-owned lease_id, Update returns
// the session_lease_bound for the owner BEFORE the sender's state_ack; write
// Out in order.
//
// Re-rendering: Result.Changed reports that the surface view may have
// changed; Plane.Version() increases on every such change, so a daemon may
// instead compare versions after a batch. View() returns the surface-facing
// view (§9.16): centre state, indicators per visible slot, available actions,
// overflow count.
//
// Ticks: call Tick(now) at least every 30 ms (§9.15): preview expiry, the
// terminal-hold fallback to waiting_for_reply, TTL expiry, experience
// preemption.
//
// Audio: when Config.AudioFeedback is true and Config.Earcons is set, the
// plane calls Earcons.Earcon(name, slot) synchronously (the sink must not
// block) for: a `state` message whose effective state differs from the last
// one announced for that session (question/approval/success/error/
// cancelled, slot = the session's slot), a Scene selection
// (session_selected), a delivered action (approve/reject/stop/retry) and an
// undelivered press (unavailable), both with the selected session's slot
// (experiences spec §8.5). slot is wire.NoSlot for "none".
//
// Experiences (Demo/Show): the plane only tracks which one runs (reported in
// status.experience). StartExperience returns ExperienceBlocked while an
// agent waits for a reply or approval (report BlockedText) and
// ExperienceIgnored when one already runs; StopExperience records an end
// (admin stop, completion, shutdown). Update and Tick stop a running one as
// soon as such a session exists and report it in Result.ExperienceStopped
// (ReasonAgentAttention) so the daemon stops the real controller and renders
// the live view. While one runs, SelectSlot and Press return Consumed=true
// and change nothing: the daemon forwards those events to the controller.
//
// Named answers: PressFor is the approval card's Allow/Deny in a window
// bound to one agent session. It passes the same gates as a surface press
// but aims at the named session (never changing the selection), prefers the
// subscription carrying the named request id and refuses when that request
// is over; a refusal is a *PressError whose Reason (ErrUnknownSession,
// ErrNotPermitted, ErrNoSubscriber, ErrRequestOver, ErrPreviewActive,
// ErrDebounced, ErrUnknownAction) says why. It is not a surface event, so
// it is delivered while a Demo/Show runs. Answerable(id, requestID) lists
// what such a card may still offer.
//
// Other helpers: Available() (lit actions), Snapshot(id) (a state_ack
// payload), Selected(), Len(), OverflowCount(), PreviewActive(),
// SetSurface(Surface) (status surfaces, e.g. when the web port is known),
// Label(metadata, sessionID) (§9.13), and Check() (invariants, for tests).
//
// Accent preferences persist through Config.Store (an AccentStore, e.g. a
// *identitystore.Store); I/O errors of the store are ignored (§9.8).
package control
