// Package wire is the codec of Pad-Lattice Wire Protocol 1: the constants and
// domain values (spec §1, §5), the decoding pipeline for client lines with its
// exact error precedence (§3.2, §6, §8), and the Python-compatible encoder for
// every message (§4, §7). It is pure: no sockets, no clocks, no globals.
//
// The types in this file are plain data so that the control plane can build
// them and the daemon can encode them.
package wire

import (
	"strconv"
	"time"
)

// Constants of spec §1.
const (
	// ProtocolVersion is the integer wire protocol version carried by every
	// message as "protocol".
	ProtocolVersion = 1
	// MaxFrameBytes is the largest inbound line content (newline not counted).
	MaxFrameBytes = 65536
	// MaxEncodedBytes is the largest outbound frame including its trailing
	// newline.
	MaxEncodedBytes = 65537
	// ReadChunkBytes is how much the daemon reads per recv (§3.1).
	ReadChunkBytes = 4096
	// MaxPreviewTTL is the largest preview ttl in seconds (inclusive; a ttl
	// must also be > 0).
	MaxPreviewTTL = 30.0
	// DefaultSessionTTL is the default inactivity expiry in seconds; 0
	// disables expiry.
	DefaultSessionTTL = 86400.0
	// DefaultTerminalHold is how long (seconds) a terminal state is shown
	// before falling back to waiting_for_reply.
	DefaultTerminalHold = 2.0
	// DefaultActionDebounce is the per (identity, action) debounce window in
	// seconds.
	DefaultActionDebounce = 0.25
	// DaemonPollInterval is the reference loop wake-up interval in seconds.
	DaemonPollInterval = 0.03
	// MinCapacity and MaxCapacity bound the number of visible slots.
	MinCapacity = 1
	MaxCapacity = 8
	// IdentityStoreCapacity is the number of remembered identities.
	IdentityStoreCapacity = 256
	// IdentityStoreVersion is the identity store file format version.
	IdentityStoreVersion = 1
	// SocketFileMode is the mode of the daemon socket file.
	SocketFileMode = 0o600
	// DefaultBackend and DefaultSessionID form the default agent identity.
	DefaultBackend   = "local"
	DefaultSessionID = "default"
	// VisualProtocolVersion is reported in status.
	VisualProtocolVersion = 1
	// ClientRequestTimeout is the request/response timeout of clients.
	ClientRequestTimeout = 2 * time.Second
	// LeaseClientTimeout and LeaseReconnectInterval are the lease client's
	// socket timeout and reconnect interval.
	LeaseClientTimeout     = 1 * time.Second
	LeaseReconnectInterval = 1 * time.Second
	// ApprovalTimeout is how long a permission hook waits for a decision.
	ApprovalTimeout = 60 * time.Second
	// SymbolsDefaultHold is the default per-state hold of `symbols`
	// (seconds); each preview uses ttl = hold + 1.0.
	SymbolsDefaultHold = 0.7
	// SocketFileName is the socket name inside XDG_RUNTIME_DIR.
	SocketFileName = "pad-lattice.sock"
	// EnvSocket overrides the socket path when set and non-empty.
	EnvSocket = "PAD_LATTICE_SOCKET"
	// EnvRuntimeDir is the XDG runtime directory variable.
	EnvRuntimeDir = "XDG_RUNTIME_DIR"
)

// NoSlot is the Slot value of a session in overflow (JSON null).
const NoSlot = -1

// State is an agent state (spec §5.1).
type State string

// The seven states, in spec order (also the `symbols` preview order).
const (
	StateRunning            State = "running"
	StateWaitingForReply    State = "waiting_for_reply"
	StateUserTyping         State = "user_typing"
	StateWaitingForApproval State = "waiting_for_approval"
	StateSuccess            State = "success"
	StateError              State = "error"
	StateCancelled          State = "cancelled"
)

// allStates never changes.
var allStates = [...]State{
	StateRunning, StateWaitingForReply, StateUserTyping, StateWaitingForApproval,
	StateSuccess, StateError, StateCancelled,
}

// States returns the seven states in spec order (a fresh slice).
func States() []State { s := allStates; return s[:] }

// ParseState returns the state named s (exact, case-sensitive).
func ParseState(s string) (State, bool) {
	for _, st := range allStates {
		if string(st) == s {
			return st, true
		}
	}
	return "", false
}

// Valid reports whether s is one of the seven states.
func (s State) Valid() bool { _, ok := ParseState(string(s)); return ok }

// IsTerminal reports whether s is success, error or cancelled.
func (s State) IsTerminal() bool {
	return s == StateSuccess || s == StateError || s == StateCancelled
}

// IsTerminal reports whether s is a terminal state.
func IsTerminal(s State) bool { return s.IsTerminal() }

// Action is a control action (spec §5.2).
type Action string

// The four actions in spec order (the default "all actions" order).
const (
	ActionApprove Action = "approve"
	ActionReject  Action = "reject"
	ActionStop    Action = "stop"
	ActionRetry   Action = "retry"
)

var allActions = [...]Action{ActionApprove, ActionReject, ActionStop, ActionRetry}

// Actions returns the four actions in spec order (a fresh slice).
func Actions() []Action { a := allActions; return a[:] }

// ParseAction returns the action named s (exact, case-sensitive).
func ParseAction(s string) (Action, bool) {
	for _, a := range allActions {
		if string(a) == s {
			return a, true
		}
	}
	return "", false
}

// Valid reports whether a is one of the four actions.
func (a Action) Valid() bool { _, ok := ParseAction(string(a)); return ok }

// Permits reports whether a session in state may receive action (§5.2):
// approve/reject only in waiting_for_approval, stop only in running, retry
// only in error or cancelled.
func Permits(state State, action Action) bool {
	switch action {
	case ActionApprove, ActionReject:
		return state == StateWaitingForApproval
	case ActionStop:
		return state == StateRunning
	case ActionRetry:
		return state == StateError || state == StateCancelled
	}
	return false
}

// Identity identifies an agent session: both members are non-empty and
// compared byte for byte (§5.3). The zero Identity means "none".
type Identity struct {
	Backend   string
	SessionID string
}

// DefaultIdentity is local/default, used when a state or subscribe_actions
// message omits agent.
func DefaultIdentity() Identity {
	return Identity{Backend: DefaultBackend, SessionID: DefaultSessionID}
}

// IsZero reports whether id is the zero ("none") identity.
func (id Identity) IsZero() bool { return id.Backend == "" && id.SessionID == "" }

// Valid reports whether both members are non-empty.
func (id Identity) Valid() bool { return id.Backend != "" && id.SessionID != "" }

// String renders id as backend/session_id for logs and the CLI.
func (id Identity) String() string { return id.Backend + "/" + id.SessionID }

// Accent names (spec §1), in identity accent order.
const (
	AccentCyan    = "cyan"
	AccentMagenta = "magenta"
	AccentLime    = "lime"
	AccentOrange  = "orange"
	AccentViolet  = "violet"
	AccentTeal    = "teal"
	AccentRose    = "rose"
	AccentSky     = "sky"
)

var identityAccents = [...]string{
	AccentCyan, AccentMagenta, AccentLime, AccentOrange,
	AccentViolet, AccentTeal, AccentRose, AccentSky,
}

// IdentityAccents returns the eight identity accents in order (a fresh
// slice). The palette of a surface with capacity n is the first n.
func IdentityAccents() []string { a := identityAccents; return a[:] }

// AccentPalette returns the first capacity accents, or nil when capacity is
// outside 1…8.
func AccentPalette(capacity int) []string {
	if capacity < MinCapacity || capacity > MaxCapacity {
		return nil
	}
	return IdentityAccents()[:capacity]
}

// MetaEntry is one metadata member.
type MetaEntry struct {
	Key   string
	Value string
}

// Metadata is a flat string→string map that keeps first-insertion order
// (spec §5.4, §10): setting an existing key replaces its value in place.
// The zero value is an empty map. It is a plain slice: copy with Clone
// before mutating a shared value.
type Metadata []MetaEntry

// indexThreshold is the size above which Merge builds a temporary index.
const indexThreshold = 16

// Len returns the number of keys.
func (m Metadata) Len() int { return len(m) }

// Get returns the value of key.
func (m Metadata) Get(key string) (string, bool) {
	for _, e := range m {
		if e.Key == key {
			return e.Value, true
		}
	}
	return "", false
}

// Set inserts key at the end or replaces its value in place.
func (m *Metadata) Set(key, value string) {
	for i := range *m {
		if (*m)[i].Key == key {
			(*m)[i].Value = value
			return
		}
	}
	*m = append(*m, MetaEntry{Key: key, Value: value})
}

// Merge sets every entry of other, in other's order (insert or overwrite,
// never delete).
func (m *Metadata) Merge(other Metadata) {
	if len(other) == 0 {
		return
	}
	if len(*m)*len(other) <= indexThreshold*indexThreshold {
		for _, e := range other {
			m.Set(e.Key, e.Value)
		}
		return
	}
	idx := make(map[string]int, len(*m)+len(other))
	for i, e := range *m {
		idx[e.Key] = i
	}
	for _, e := range other {
		if i, ok := idx[e.Key]; ok {
			(*m)[i].Value = e.Value
			continue
		}
		idx[e.Key] = len(*m)
		*m = append(*m, e)
	}
}

// Clone returns an independent copy (nil stays nil).
func (m Metadata) Clone() Metadata {
	if m == nil {
		return nil
	}
	return append(Metadata(make([]MetaEntry, 0, len(m))), m...)
}

// Keys returns the keys in order.
func (m Metadata) Keys() []string {
	keys := make([]string, len(m))
	for i, e := range m {
		keys[i] = e.Key
	}
	return keys
}

// Equal reports whether m and o hold the same entries in the same order
// (nil and empty are equal).
func (m Metadata) Equal(o Metadata) bool {
	if len(m) != len(o) {
		return false
	}
	for i := range m {
		if m[i] != o[i] {
			return false
		}
	}
	return true
}

// SurfaceKindMIDI and SurfaceKindWeb are the surface kinds in status.
const (
	SurfaceKindMIDI = "midi"
	SurfaceKindWeb  = "web"
)

// Experience names reported in status ("" is JSON null).
const (
	ExperienceDemo = "demo"
	ExperienceShow = "show"
)

// SurfaceDescriptor is one entry of status.surfaces, fields in wire order.
type SurfaceDescriptor struct {
	Kind           string // "midi" or "web"
	Profile        string
	VisualProtocol int // always 1
	Input          string
	Output         string
}

// StatusSession is one entry of status.sessions, fields in wire order
// (there is no scene member in status entries).
type StatusSession struct {
	Backend   string
	SessionID string
	State     State
	Slot      int    // zero-based, NoSlot (-1) in overflow (JSON null)
	Accent    string // "" is JSON null
	Selected  bool
	Leased    bool
	Label     string
	Metadata  Metadata // first-insertion order
}

// Identity returns the entry's identity.
func (s StatusSession) Identity() Identity {
	return Identity{Backend: s.Backend, SessionID: s.SessionID}
}

// Scene returns slot+1, or 0 in overflow.
func (s StatusSession) Scene() int { return sceneOf(s.Slot) }

// Status is the status response (spec §7.2, §10), fields in wire order.
type Status struct {
	Profile        string
	VisualProtocol int // always 1
	Input          string
	Output         string
	Surfaces       []SurfaceDescriptor // at least one
	Selected       *Identity           // nil is JSON null
	OverflowCount  int
	ActivityMotion bool
	AudioFeedback  bool
	Experience     string // "", "demo" or "show"; "" is JSON null
	PreviewActive  bool
	SessionTTL     float64 // seconds, rendered like Python float repr
	Sessions       []StatusSession
}

// StateAck is the state_ack message (spec §7.1), also embedded as the
// session of session_lease_ack and session_lease_bound. Scene is derived
// from Slot when encoding.
type StateAck struct {
	Backend   string
	SessionID string
	State     State  // the effective state
	Slot      int    // zero-based, NoSlot (-1) in overflow (JSON null)
	Accent    string // "" is JSON null
	Selected  bool
	Leased    bool
	Label     string
}

// Identity returns the ack's identity.
func (a StateAck) Identity() Identity {
	return Identity{Backend: a.Backend, SessionID: a.SessionID}
}

// Scene returns slot+1, or 0 in overflow (JSON null).
func (a StateAck) Scene() int { return sceneOf(a.Slot) }

func sceneOf(slot int) int {
	if slot < 0 {
		return 0
	}
	return slot + 1
}

// Error codes (spec §8).
const (
	CodeFrameTooLarge       = "frame_too_large"
	CodeInvalidMessage      = "invalid_message"
	CodeUnsupportedProtocol = "unsupported_protocol"
	CodeUnknownMessageType  = "unknown_message_type"
	CodePreviewConflict     = "preview_conflict"
	CodePreviewNotOwned     = "preview_not_owned"
	// Client-side only.
	CodeUnexpectedMessageType = "unexpected_message_type"
	CodeDaemonError           = "daemon_error"
	// Never sent; the default code of the reference's control-plane error.
	CodeInvalidOperation = "invalid_operation"
)

// ProtocolError is a protocol failure with a machine-readable code and the
// human text sent as the error message's "error" member.
type ProtocolError struct {
	Code string
	Text string
}

func (e *ProtocolError) Error() string { return e.Code + ": " + e.Text }

// Message returns the error message to send for e.
func (e *ProtocolError) Message() ErrorMessage {
	return ErrorMessage{Code: e.Code, Text: e.Text}
}

// Fixed error texts (spec §8).
const (
	TextFrameTooLarge         = "protocol message exceeds the size limit"
	TextInvalidJSON           = "invalid JSON message"
	TextNotObject             = "protocol message must be a JSON object"
	TextAgentNotObject        = "agent must be a JSON object"
	TextAgentBackend          = "agent.backend must be a non-empty string"
	TextAgentSessionID        = "agent.session_id must be a non-empty string"
	TextAgentMetadataKeys     = "agent metadata keys must be non-empty strings"
	TextAgentMetadataValues   = "agent metadata values must be non-empty strings"
	TextMetadataNotObject     = "metadata must be a JSON object"
	TextMetadataKeys          = "metadata keys must be non-empty strings"
	TextMetadataValues        = "metadata values must be non-empty strings"
	TextLeaseID               = "lease_id must be a non-empty string"
	TextRequestID             = "request_id must be a non-empty string"
	TextPreviewID             = "preview_id must be a non-empty string"
	TextReply                 = "reply must be a boolean"
	TextOneShot               = "one_shot must be a boolean"
	TextActionsArray          = "actions must be a non-empty JSON array"
	TextActionsUnknown        = "actions contains an unknown control action"
	TextTTL                   = "ttl must be greater than zero and at most 30"
	TextPreviewOwnedByOther   = "surface preview is already owned by another client"
	TextPreviewDifferentOwned = "client already owns a different surface preview"
	TextPreviewNotOwned       = "surface preview is not owned by this client"
)

// ErrFrameTooLarge is the frame_too_large protocol error.
func ErrFrameTooLarge() *ProtocolError {
	return &ProtocolError{Code: CodeFrameTooLarge, Text: TextFrameTooLarge}
}

// ErrPreviewConflictOther is preview_conflict for a preview owned by another
// connection.
func ErrPreviewConflictOther() *ProtocolError {
	return &ProtocolError{Code: CodePreviewConflict, Text: TextPreviewOwnedByOther}
}

// ErrPreviewConflictDifferent is preview_conflict for a connection that
// already owns a preview with another id.
func ErrPreviewConflictDifferent() *ProtocolError {
	return &ProtocolError{Code: CodePreviewConflict, Text: TextPreviewDifferentOwned}
}

// ErrPreviewNotOwned is preview_not_owned.
func ErrPreviewNotOwned() *ProtocolError {
	return &ProtocolError{Code: CodePreviewNotOwned, Text: TextPreviewNotOwned}
}

// knownCodes never changes.
var knownCodes = [...]string{
	CodeFrameTooLarge, CodeInvalidMessage, CodeUnsupportedProtocol, CodeUnknownMessageType,
	CodePreviewConflict, CodePreviewNotOwned, CodeUnexpectedMessageType, CodeDaemonError,
	CodeInvalidOperation,
}

// IsKnownCode reports whether code is one of the codes of spec §8.
func IsKnownCode(code string) bool {
	for _, c := range knownCodes {
		if c == code {
			return true
		}
	}
	return false
}

// ResolveSocketPath returns the daemon socket path (spec §2.1):
// PAD_LATTICE_SOCKET if non-empty, else $XDG_RUNTIME_DIR/pad-lattice.sock if
// XDG_RUNTIME_DIR is non-empty, else /tmp/pad-lattice-<uid>.sock where uid
// is the real user id. Paths are used verbatim (no ~ expansion). Lets'
// daemon and clients pass the result through ChooseSocketPath, which keeps
// it unless another user holds the /tmp default.
func ResolveSocketPath(getenv func(string) string, uid int) string {
	if getenv != nil {
		if p := getenv(EnvSocket); p != "" {
			return p
		}
		if d := getenv(EnvRuntimeDir); d != "" {
			if d[len(d)-1] == '/' {
				return d + SocketFileName
			}
			return d + "/" + SocketFileName
		}
	}
	return "/tmp/pad-lattice-" + strconv.Itoa(uid) + ".sock"
}

// MetadataOf builds metadata from key, value pairs in order (a later
// duplicate key overwrites in place; a trailing unpaired key is ignored).
func MetadataOf(pairs ...string) Metadata {
	var m Metadata
	for i := 0; i+1 < len(pairs); i += 2 {
		m.Set(pairs[i], pairs[i+1])
	}
	return m
}
