package wire

// Message type names (spec §6, §7).
const (
	TypeState             = "state"
	TypeSessionEnd        = "session_end"
	TypeStatus            = "status" // both the request and the response
	TypePing              = "ping"
	TypeSessionLease      = "session_lease"
	TypeSubscribeActions  = "subscribe_actions"
	TypePreview           = "preview"
	TypePreviewEnd        = "preview_end"
	TypeStateAck          = "state_ack"
	TypePong              = "pong"
	TypeAction            = "action"
	TypeSessionLeaseAck   = "session_lease_ack"
	TypeSessionLeaseBound = "session_lease_bound"
	TypePreviewAck        = "preview_ack"
	TypePreviewEndAck     = "preview_end_ack"
	TypeError             = "error"
)

// Message is any Wire Protocol 1 message.
type Message interface {
	// Type is the message's "type" member.
	Type() string
	// AppendJSON appends the compact JSON object (no newline) to b.
	AppendJSON(b []byte) []byte
	// Encode returns the frame: the JSON object plus "\n". It fails with a
	// *ProtocolError frame_too_large when the frame would exceed
	// MaxEncodedBytes (65537 bytes including the newline).
	Encode() ([]byte, error)
}

// Command is a client → daemon message (spec §6).
type Command interface {
	Message
	isCommand()
}

// Reply is a daemon → client message (spec §7).
type Reply interface {
	Message
	isReply()
}

// ---- daemon → client (spec §7) ----

// Type implements Message.
func (StateAck) Type() string { return TypeStateAck }
func (StateAck) isReply()     {}

// AppendJSON implements Message: protocol, type, backend, session_id, state,
// slot, scene, accent, selected, leased, label.
func (a StateAck) AppendJSON(b []byte) []byte {
	b = appendHead(b, TypeStateAck)
	b = appendStrField(b, "backend", a.Backend)
	b = appendStrField(b, "session_id", a.SessionID)
	b = appendStrField(b, "state", string(a.State))
	b = appendNullableInt(b, "slot", a.Slot, a.Slot < 0)
	b = appendNullableInt(b, "scene", a.Slot+1, a.Slot < 0)
	b = appendNullableStr(b, "accent", a.Accent)
	b = appendBoolField(b, "selected", a.Selected)
	b = appendBoolField(b, "leased", a.Leased)
	b = appendStrField(b, "label", a.Label)
	return append(b, '}')
}

// Encode implements Message.
func (a StateAck) Encode() ([]byte, error) { return frame(a.AppendJSON(nil)) }

// Type implements Message.
func (Status) Type() string { return TypeStatus }
func (Status) isReply()     {}

// AppendJSON implements Message, members in the order of spec §10.
func (s Status) AppendJSON(b []byte) []byte {
	b = appendHead(b, TypeStatus)
	b = appendStrField(b, "profile", s.Profile)
	b = appendIntField(b, "visual_protocol", s.VisualProtocol)
	b = appendStrField(b, "input", s.Input)
	b = appendStrField(b, "output", s.Output)
	b = appendKey(b, "surfaces")
	b = append(b, '[')
	for i, d := range s.Surfaces {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"kind":`...)
		b = AppendString(b, d.Kind)
		b = appendStrField(b, "profile", d.Profile)
		b = appendIntField(b, "visual_protocol", d.VisualProtocol)
		b = appendStrField(b, "input", d.Input)
		b = appendStrField(b, "output", d.Output)
		b = append(b, '}')
	}
	b = append(b, ']')
	b = appendKey(b, "selected")
	if s.Selected == nil {
		b = append(b, "null"...)
	} else {
		b = appendIdentity(b, *s.Selected)
	}
	b = appendIntField(b, "overflow_count", s.OverflowCount)
	b = appendBoolField(b, "activity_motion", s.ActivityMotion)
	b = appendBoolField(b, "audio_feedback", s.AudioFeedback)
	b = appendNullableStr(b, "experience", s.Experience)
	b = appendBoolField(b, "preview_active", s.PreviewActive)
	b = AppendPythonFloat(appendKey(b, "session_ttl"), s.SessionTTL)
	b = appendKey(b, "sessions")
	b = append(b, '[')
	for i, e := range s.Sessions {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"backend":`...)
		b = AppendString(b, e.Backend)
		b = appendStrField(b, "session_id", e.SessionID)
		b = appendStrField(b, "state", string(e.State))
		b = appendNullableInt(b, "slot", e.Slot, e.Slot < 0)
		b = appendNullableStr(b, "accent", e.Accent)
		b = appendBoolField(b, "selected", e.Selected)
		b = appendBoolField(b, "leased", e.Leased)
		b = appendStrField(b, "label", e.Label)
		b = appendMetadata(appendKey(b, "metadata"), e.Metadata)
		b = append(b, '}')
	}
	b = append(b, ']')
	return append(b, '}')
}

// Encode implements Message.
func (s Status) Encode() ([]byte, error) { return frame(s.AppendJSON(nil)) }

// Pong is the reply to ping.
type Pong struct{}

// Type implements Message.
func (Pong) Type() string { return TypePong }
func (Pong) isReply()     {}

// AppendJSON implements Message.
func (Pong) AppendJSON(b []byte) []byte { return append(appendHead(b, TypePong), '}') }

// Encode implements Message.
func (p Pong) Encode() ([]byte, error) { return frame(p.AppendJSON(nil)) }

// ActionEvent is an action delivered to one subscriber (spec §7.4).
type ActionEvent struct {
	Action Action
	Agent  Identity
	// RequestID is the receiving subscription's request id; "" omits the
	// member (it is never null).
	RequestID string
}

// Type implements Message.
func (ActionEvent) Type() string { return TypeAction }
func (ActionEvent) isReply()     {}

// AppendJSON implements Message: protocol, type, action, agent, request_id.
func (e ActionEvent) AppendJSON(b []byte) []byte {
	b = appendHead(b, TypeAction)
	b = appendStrField(b, "action", string(e.Action))
	b = appendIdentity(appendKey(b, "agent"), e.Agent)
	if e.RequestID != "" {
		b = appendStrField(b, "request_id", e.RequestID)
	}
	return append(b, '}')
}

// Encode implements Message.
func (e ActionEvent) Encode() ([]byte, error) { return frame(e.AppendJSON(nil)) }

// SessionLeaseAck acknowledges session_lease (spec §7.5).
type SessionLeaseAck struct {
	LeaseID string
	// Session is present when the lease is bound to an existing session.
	Session *StateAck
}

// Type implements Message.
func (SessionLeaseAck) Type() string { return TypeSessionLeaseAck }
func (SessionLeaseAck) isReply()     {}

// AppendJSON implements Message.
func (a SessionLeaseAck) AppendJSON(b []byte) []byte {
	b = appendHead(b, TypeSessionLeaseAck)
	b = appendStrField(b, "lease_id", a.LeaseID)
	if a.Session != nil {
		b = a.Session.AppendJSON(appendKey(b, "session"))
	}
	return append(b, '}')
}

// Encode implements Message.
func (a SessionLeaseAck) Encode() ([]byte, error) { return frame(a.AppendJSON(nil)) }

// SessionLeaseBound is the unsolicited binding notification (spec §7.6).
type SessionLeaseBound struct {
	LeaseID string
	Session StateAck
}

// Type implements Message.
func (SessionLeaseBound) Type() string { return TypeSessionLeaseBound }
func (SessionLeaseBound) isReply()     {}

// AppendJSON implements Message.
func (m SessionLeaseBound) AppendJSON(b []byte) []byte {
	b = appendHead(b, TypeSessionLeaseBound)
	b = appendStrField(b, "lease_id", m.LeaseID)
	b = m.Session.AppendJSON(appendKey(b, "session"))
	return append(b, '}')
}

// Encode implements Message.
func (m SessionLeaseBound) Encode() ([]byte, error) { return frame(m.AppendJSON(nil)) }

// PreviewAck acknowledges a preview (spec §7.7); the ttl is not echoed.
type PreviewAck struct {
	PreviewID string
	State     State
}

// Type implements Message.
func (PreviewAck) Type() string { return TypePreviewAck }
func (PreviewAck) isReply()     {}

// AppendJSON implements Message.
func (a PreviewAck) AppendJSON(b []byte) []byte {
	b = appendHead(b, TypePreviewAck)
	b = appendStrField(b, "preview_id", a.PreviewID)
	b = appendStrField(b, "state", string(a.State))
	return append(b, '}')
}

// Encode implements Message.
func (a PreviewAck) Encode() ([]byte, error) { return frame(a.AppendJSON(nil)) }

// PreviewEndAck acknowledges preview_end (spec §7.8).
type PreviewEndAck struct {
	PreviewID string
}

// Type implements Message.
func (PreviewEndAck) Type() string { return TypePreviewEndAck }
func (PreviewEndAck) isReply()     {}

// AppendJSON implements Message.
func (a PreviewEndAck) AppendJSON(b []byte) []byte {
	b = appendHead(b, TypePreviewEndAck)
	b = appendStrField(b, "preview_id", a.PreviewID)
	return append(b, '}')
}

// Encode implements Message.
func (a PreviewEndAck) Encode() ([]byte, error) { return frame(a.AppendJSON(nil)) }

// ErrorMessage is the error message (spec §7.9).
type ErrorMessage struct {
	Code string
	Text string // the "error" member
}

// Type implements Message.
func (ErrorMessage) Type() string { return TypeError }
func (ErrorMessage) isReply()     {}

// AppendJSON implements Message: protocol, type, code, error.
func (e ErrorMessage) AppendJSON(b []byte) []byte {
	b = appendHead(b, TypeError)
	b = appendStrField(b, "code", e.Code)
	b = appendStrField(b, "error", e.Text)
	return append(b, '}')
}

// Encode implements Message.
func (e ErrorMessage) Encode() ([]byte, error) { return frame(e.AppendJSON(nil)) }

// Err returns e as a *ProtocolError.
func (e ErrorMessage) Err() *ProtocolError { return &ProtocolError{Code: e.Code, Text: e.Text} }

// ---- client → daemon (spec §6) ----

// StateCommand reports an agent state (spec §6.1).
type StateCommand struct {
	State State
	// Agent is the identity; decoding fills in DefaultIdentity when the
	// message has none. When encoding, the zero Identity omits agent
	// (unless Metadata is set, which then goes with DefaultIdentity).
	Agent Identity
	// Metadata is every member of agent other than backend/session_id, in
	// document order.
	Metadata Metadata
	LeaseID  string // "" = none
	Reply    bool
}

// Type implements Message.
func (StateCommand) Type() string { return TypeState }
func (StateCommand) isCommand()   {}

// AppendJSON implements Message: protocol, type, state, agent, lease_id,
// reply (reply only when true).
func (c StateCommand) AppendJSON(b []byte) []byte {
	b = appendHead(b, TypeState)
	b = appendStrField(b, "state", string(c.State))
	agent := c.Agent
	if agent.IsZero() && len(c.Metadata) > 0 {
		agent = DefaultIdentity()
	}
	if !agent.IsZero() {
		b = appendKey(b, "agent")
		b = append(b, `{"backend":`...)
		b = AppendString(b, agent.Backend)
		b = appendStrField(b, "session_id", agent.SessionID)
		b = appendMetadataMembers(b, c.Metadata)
		b = append(b, '}')
	}
	if c.LeaseID != "" {
		b = appendStrField(b, "lease_id", c.LeaseID)
	}
	if c.Reply {
		b = appendBoolField(b, "reply", true)
	}
	return append(b, '}')
}

// Encode implements Message; it refuses a command the daemon would reject.
func (c StateCommand) Encode() ([]byte, error) {
	if !c.State.Valid() {
		return nil, &ProtocolError{Code: CodeInvalidMessage, Text: "unknown state: " + string(c.State)}
	}
	if !c.Agent.IsZero() {
		if err := checkIdentity(c.Agent); err != nil {
			return nil, err
		}
	}
	for _, e := range c.Metadata {
		if e.Key == "" || e.Key == "backend" || e.Key == "session_id" {
			return nil, &ProtocolError{Code: CodeInvalidMessage, Text: TextAgentMetadataKeys}
		}
		if e.Value == "" {
			return nil, &ProtocolError{Code: CodeInvalidMessage, Text: TextAgentMetadataValues}
		}
	}
	return frame(c.AppendJSON(nil))
}

// SessionEndCommand ends a session (spec §6.2).
type SessionEndCommand struct {
	Agent Identity
}

// Type implements Message.
func (SessionEndCommand) Type() string { return TypeSessionEnd }
func (SessionEndCommand) isCommand()   {}

// AppendJSON implements Message.
func (c SessionEndCommand) AppendJSON(b []byte) []byte {
	b = appendHead(b, TypeSessionEnd)
	b = appendIdentity(appendKey(b, "agent"), c.Agent)
	return append(b, '}')
}

// Encode implements Message.
func (c SessionEndCommand) Encode() ([]byte, error) {
	if err := checkIdentity(c.Agent); err != nil {
		return nil, err
	}
	return frame(c.AppendJSON(nil))
}

// StatusCommand asks for the status (spec §6.3).
type StatusCommand struct{}

// Type implements Message.
func (StatusCommand) Type() string { return TypeStatus }
func (StatusCommand) isCommand()   {}

// AppendJSON implements Message.
func (StatusCommand) AppendJSON(b []byte) []byte { return append(appendHead(b, TypeStatus), '}') }

// Encode implements Message.
func (c StatusCommand) Encode() ([]byte, error) { return frame(c.AppendJSON(nil)) }

// PingCommand asks for a pong (spec §6.4).
type PingCommand struct{}

// Type implements Message.
func (PingCommand) Type() string { return TypePing }
func (PingCommand) isCommand()   {}

// AppendJSON implements Message.
func (PingCommand) AppendJSON(b []byte) []byte { return append(appendHead(b, TypePing), '}') }

// Encode implements Message.
func (c PingCommand) Encode() ([]byte, error) { return frame(c.AppendJSON(nil)) }

// SessionLeaseCommand registers a lease (spec §6.5).
type SessionLeaseCommand struct {
	LeaseID string
	// Agent is the known identity, or the zero Identity for none.
	Agent    Identity
	Metadata Metadata
}

// Type implements Message.
func (SessionLeaseCommand) Type() string { return TypeSessionLease }
func (SessionLeaseCommand) isCommand()   {}

// AppendJSON implements Message: protocol, type, lease_id, agent, metadata
// (agent and metadata only when set).
func (c SessionLeaseCommand) AppendJSON(b []byte) []byte {
	b = appendHead(b, TypeSessionLease)
	b = appendStrField(b, "lease_id", c.LeaseID)
	if !c.Agent.IsZero() {
		b = appendIdentity(appendKey(b, "agent"), c.Agent)
	}
	if len(c.Metadata) > 0 {
		b = appendMetadata(appendKey(b, "metadata"), c.Metadata)
	}
	return append(b, '}')
}

// Encode implements Message.
func (c SessionLeaseCommand) Encode() ([]byte, error) {
	if c.LeaseID == "" {
		return nil, &ProtocolError{Code: CodeInvalidMessage, Text: TextLeaseID}
	}
	if !c.Agent.IsZero() {
		if err := checkIdentity(c.Agent); err != nil {
			return nil, err
		}
	}
	for _, e := range c.Metadata {
		if e.Key == "" {
			return nil, &ProtocolError{Code: CodeInvalidMessage, Text: TextMetadataKeys}
		}
		if e.Value == "" {
			return nil, &ProtocolError{Code: CodeInvalidMessage, Text: TextMetadataValues}
		}
	}
	return frame(c.AppendJSON(nil))
}

// SubscribeActionsCommand subscribes the connection to actions (spec §6.6).
type SubscribeActionsCommand struct {
	// Agent: decoding fills in DefaultIdentity when absent; when encoding,
	// the zero Identity is sent as DefaultIdentity (the schema requires it).
	Agent Identity
	// Actions in message order; duplicates are kept as sent.
	Actions   []Action
	RequestID string // "" = none
	OneShot   bool
}

// Type implements Message.
func (SubscribeActionsCommand) Type() string { return TypeSubscribeActions }
func (SubscribeActionsCommand) isCommand()   {}

// AppendJSON implements Message: protocol, type, agent, actions, request_id,
// one_shot (request_id only when set, one_shot only when true).
func (c SubscribeActionsCommand) AppendJSON(b []byte) []byte {
	b = appendHead(b, TypeSubscribeActions)
	agent := c.Agent
	if agent.IsZero() {
		agent = DefaultIdentity()
	}
	b = appendIdentity(appendKey(b, "agent"), agent)
	b = appendKey(b, "actions")
	b = append(b, '[')
	for i, a := range c.Actions {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, string(a))
	}
	b = append(b, ']')
	if c.RequestID != "" {
		b = appendStrField(b, "request_id", c.RequestID)
	}
	if c.OneShot {
		b = appendBoolField(b, "one_shot", true)
	}
	return append(b, '}')
}

// Encode implements Message.
func (c SubscribeActionsCommand) Encode() ([]byte, error) {
	if !c.Agent.IsZero() {
		if err := checkIdentity(c.Agent); err != nil {
			return nil, err
		}
	}
	if len(c.Actions) == 0 {
		return nil, &ProtocolError{Code: CodeInvalidMessage, Text: TextActionsArray}
	}
	for _, a := range c.Actions {
		if !a.Valid() {
			return nil, &ProtocolError{Code: CodeInvalidMessage, Text: TextActionsUnknown}
		}
	}
	return frame(c.AppendJSON(nil))
}

// ActionSet returns the distinct actions in spec order.
func (c SubscribeActionsCommand) ActionSet() []Action {
	var out []Action
	for _, a := range allActions {
		for _, b := range c.Actions {
			if a == b {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// PreviewCommand sets or refreshes a preview (spec §6.7).
type PreviewCommand struct {
	PreviewID string
	State     State
	TTL       float64 // seconds, 0 < TTL ≤ 30
}

// Type implements Message.
func (PreviewCommand) Type() string { return TypePreview }
func (PreviewCommand) isCommand()   {}

// AppendJSON implements Message: protocol, type, preview_id, state, ttl.
func (c PreviewCommand) AppendJSON(b []byte) []byte {
	b = appendHead(b, TypePreview)
	b = appendStrField(b, "preview_id", c.PreviewID)
	b = appendStrField(b, "state", string(c.State))
	b = AppendPythonFloat(appendKey(b, "ttl"), c.TTL)
	return append(b, '}')
}

// Encode implements Message.
func (c PreviewCommand) Encode() ([]byte, error) {
	if c.PreviewID == "" {
		return nil, &ProtocolError{Code: CodeInvalidMessage, Text: TextPreviewID}
	}
	if !c.State.Valid() {
		return nil, &ProtocolError{Code: CodeInvalidMessage, Text: "unknown state: " + string(c.State)}
	}
	if !(c.TTL > 0 && c.TTL <= MaxPreviewTTL) {
		return nil, &ProtocolError{Code: CodeInvalidMessage, Text: TextTTL}
	}
	return frame(c.AppendJSON(nil))
}

// PreviewEndCommand ends a preview (spec §6.8).
type PreviewEndCommand struct {
	PreviewID string
}

// Type implements Message.
func (PreviewEndCommand) Type() string { return TypePreviewEnd }
func (PreviewEndCommand) isCommand()   {}

// AppendJSON implements Message.
func (c PreviewEndCommand) AppendJSON(b []byte) []byte {
	b = appendHead(b, TypePreviewEnd)
	b = appendStrField(b, "preview_id", c.PreviewID)
	return append(b, '}')
}

// Encode implements Message.
func (c PreviewEndCommand) Encode() ([]byte, error) {
	if c.PreviewID == "" {
		return nil, &ProtocolError{Code: CodeInvalidMessage, Text: TextPreviewID}
	}
	return frame(c.AppendJSON(nil))
}

func checkIdentity(id Identity) *ProtocolError {
	if id.Backend == "" {
		return &ProtocolError{Code: CodeInvalidMessage, Text: TextAgentBackend}
	}
	if id.SessionID == "" {
		return &ProtocolError{Code: CodeInvalidMessage, Text: TextAgentSessionID}
	}
	return nil
}
