package web

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// Protocol constants (§9).
const (
	// ProtocolVersion is the "protocol" value of every message.
	ProtocolVersion = 1
	// MaxMessageBytes limits incoming and outgoing messages.
	MaxMessageBytes = 16384
	// MaxCredentialRunes is the longest credential, in code points.
	MaxCredentialRunes = 256
)

// Client message types (§7) and the Lets extensions (doc.go).
const (
	TypeAuthenticate    = "authenticate"
	TypeAction          = "action"
	TypeSelectSession   = "select_session"
	TypeCreatePairing   = "create_pairing"
	TypeRevokeRemote    = "revoke_remote"
	TypeStartExperience = "start_experience"
	TypeStopExperience  = "stop_experience"
	TypeListDevices     = "list_devices"  // Lets extension, admin
	TypeRevokeDevice    = "revoke_device" // Lets extension, admin
	TypeGetLAN          = "get_lan"       // Lets extension, admin
	TypeSetLAN          = "set_lan"       // Lets extension, admin of this computer's user
)

// Server message types (§8) and the Lets extensions.
const (
	TypeAuthenticated    = "authenticated"
	TypePairing          = "pairing"
	TypeSurface          = "surface"
	TypeExperienceState  = "experience_state"
	TypePerformanceFrame = "performance_frame"
	TypeRemoteRevoked    = "remote_revoked"
	TypeError            = "error"
	TypeDevices          = "devices"        // Lets extension, admins that sent list_devices
	TypeDeviceRevoked    = "device_revoked" // Lets extension, reply to revoke_device
	TypeLAN              = "lan"            // Lets extension, admins that sent get_lan or set_lan
)

// Error codes (§8.7).
const (
	CodeConnectionLimit        = "connection_limit"
	CodeAuthenticationTimeout  = "authentication_timeout"
	CodeAuthenticationRequired = "authentication_required"
	CodeForbidden              = "forbidden"
	CodeRateLimited            = "rate_limited"
	CodeAdminRequired          = "admin_required"
	CodeLANDisabled            = "lan_disabled"
	CodeFrameTooLarge          = "frame_too_large"
	CodeInvalidEncoding        = "invalid_encoding"
	CodeInvalidJSON            = "invalid_json"
	CodeUnsupportedProtocol    = "unsupported_protocol"
	CodeInvalidMessage         = "invalid_message"
)

// ProtocolError is an error message the server sends: a code of §8.7 and
// its human text.
type ProtocolError struct {
	Code string
	Text string
}

func (e *ProtocolError) Error() string { return e.Code + ": " + e.Text }

func perr(code, text string) *ProtocolError { return &ProtocolError{Code: code, Text: text} }

// The fixed error texts of §8.7.
var (
	errConnectionLimit  = perr(CodeConnectionLimit, "browser connection limit reached")
	errAuthTimeout      = perr(CodeAuthenticationTimeout, "authentication timed out")
	errAuthRequired     = perr(CodeAuthenticationRequired, "authenticate before sending commands")
	errForbidden        = perr(CodeForbidden, "invalid or expired credential")
	errRateLimited      = perr(CodeRateLimited, "browser command rate exceeded")
	errAdminRequired    = perr(CodeAdminRequired, "local administrator required")
	errLANDisabled      = perr(CodeLANDisabled, "LAN access is not enabled")
	errFrameTooLarge    = perr(CodeFrameTooLarge, "message exceeds size limit")
	errInvalidEncoding  = perr(CodeInvalidEncoding, "message must be UTF-8")
	errInvalidJSON      = perr(CodeInvalidJSON, "message must be valid JSON")
	errNotObject        = perr(CodeInvalidMessage, "message must be a JSON object")
	errUnsupported      = perr(CodeUnsupportedProtocol, "unsupported web protocol")
	errUnknownType      = perr(CodeInvalidMessage, "unknown message type")
	errBadCredential    = perr(CodeInvalidMessage, "credential must be a non-empty string")
	errUnknownAction    = perr(CodeInvalidMessage, "unknown action")
	errBadSlot          = perr(CodeInvalidMessage, "slot must be an integer from 0 to 7")
	errBadKind          = perr(CodeInvalidMessage, "experience kind must be demo or show")
	errAlreadyAuth      = perr(CodeInvalidMessage, "client is already authenticated")
	errUnknownDevice    = perr(CodeInvalidMessage, "unknown device")
	errBadEnabled       = perr(CodeInvalidMessage, "enabled must be true or false")
	errFrameTooLargeOut = errFrameTooLarge
)

// ClientMessage is a decoded client message. Only the fields of its Type
// are set.
type ClientMessage struct {
	Type string
	// Credential is authenticate's credential; nil when absent or null.
	Credential *string
	// Action is action's action.
	Action wire.Action
	// Slot is select_session's slot, 0…7.
	Slot int
	// Kind is start_experience's kind, "demo" or "show".
	Kind string
	// Device is revoke_device's device id.
	Device string
	// Enabled is set_lan's enabled.
	Enabled bool
}

// messageFields are the field names (besides protocol and type) each client
// type requires and allows.
var messageFields = map[string]struct{ required, optional []string }{
	TypeAuthenticate:    {optional: []string{"credential"}},
	TypeAction:          {required: []string{"action"}},
	TypeSelectSession:   {required: []string{"slot"}},
	TypeCreatePairing:   {},
	TypeRevokeRemote:    {},
	TypeStartExperience: {required: []string{"kind"}},
	TypeStopExperience:  {},
	TypeListDevices:     {},
	TypeRevokeDevice:    {required: []string{"device"}},
	TypeGetLAN:          {},
	TypeSetLAN:          {required: []string{"enabled"}},
}

// DecodeClientMessage decodes one client message in the normative order of
// §5.3 (the first failure wins): size, UTF-8, JSON, object, protocol, type,
// missing fields (alphabetically first), unknown fields (alphabetically
// first), field values. Integer-valued numbers count as integers
// ("protocol": 1.0, "slot": 1e0); booleans never do. A null credential is
// treated as no credential.
func DecodeClientMessage(data []byte) (ClientMessage, *ProtocolError) {
	var m ClientMessage
	if len(data) > MaxMessageBytes {
		return m, errFrameTooLarge
	}
	if !utf8.Valid(data) {
		return m, errInvalidEncoding
	}
	if !json.Valid(data) {
		return m, errInvalidJSON
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return m, errNotObject
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return m, errInvalidJSON
	}
	if n, ok := jsonInteger(obj["protocol"]); !ok || n != ProtocolVersion {
		return m, errUnsupported
	}
	var typ string
	if raw, ok := obj["type"]; !ok || json.Unmarshal(raw, &typ) != nil {
		return m, errUnknownType
	}
	fields, ok := messageFields[typ]
	if !ok {
		return m, errUnknownType
	}
	m.Type = typ
	var missing, extra []string
	for _, f := range fields.required {
		if _, ok := obj[f]; !ok {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return m, perr(CodeInvalidMessage, "missing field: "+missing[0])
	}
	for k := range obj {
		if k == "protocol" || k == "type" || contains(fields.required, k) || contains(fields.optional, k) {
			continue
		}
		extra = append(extra, k)
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return m, perr(CodeInvalidMessage, "unknown field: "+extra[0])
	}
	switch typ {
	case TypeAuthenticate:
		raw, ok := obj["credential"]
		if !ok || isNull(raw) {
			return m, nil
		}
		var s string
		if json.Unmarshal(raw, &s) != nil || s == "" || utf8.RuneCountInString(s) > MaxCredentialRunes {
			return m, errBadCredential
		}
		m.Credential = &s
	case TypeAction:
		var s string
		if json.Unmarshal(obj["action"], &s) != nil {
			return m, errUnknownAction
		}
		switch a := wire.Action(s); a {
		case wire.ActionApprove, wire.ActionReject, wire.ActionStop, wire.ActionRetry:
			m.Action = a
		default:
			return m, errUnknownAction
		}
	case TypeSelectSession:
		n, ok := jsonInteger(obj["slot"])
		if !ok || n < 0 || n > 7 {
			return m, errBadSlot
		}
		m.Slot = int(n)
	case TypeStartExperience:
		var s string
		if json.Unmarshal(obj["kind"], &s) != nil || (s != "demo" && s != "show") {
			return m, errBadKind
		}
		m.Kind = s
	case TypeRevokeDevice:
		var s string
		if json.Unmarshal(obj["device"], &s) != nil || !validDeviceID(s) {
			return m, errUnknownDevice
		}
		m.Device = s
	case TypeSetLAN:
		switch string(bytes.TrimSpace(obj["enabled"])) {
		case "true":
			m.Enabled = true
		case "false":
		default:
			return m, errBadEnabled
		}
	}
	return m, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// jsonInteger returns the value of a JSON number that is a whole number
// (1, 1.0, 1e0, -0); strings, booleans and null are not numbers.
func jsonInteger(raw json.RawMessage) (int64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// Server message encoding (§5.2): compact JSON, ASCII-only strings, keys in
// the reference order.

func appendHead(b []byte, typ string) []byte {
	b = append(b, `{"protocol":1,"type":`...)
	return wire.AppendString(b, typ)
}

func appendNullableString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return wire.AppendString(b, *s)
}

func appendNullableInt(b []byte, n *int) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(*n), 10)
}

func encodeAuthenticated(admin bool, sessionToken string, lanEnabled bool) []byte {
	b := appendHead(make([]byte, 0, 160), TypeAuthenticated)
	b = append(b, `,"admin":`...)
	b = strconv.AppendBool(b, admin)
	b = append(b, `,"session_token":`...)
	if sessionToken == "" {
		b = append(b, "null"...)
	} else {
		b = wire.AppendString(b, sessionToken)
	}
	b = append(b, `,"lan_enabled":`...)
	b = strconv.AppendBool(b, lanEnabled)
	return append(b, '}')
}

func encodePairing(p Pairing) []byte {
	b := appendHead(make([]byte, 0, 256+len(p.QRDataURI)+len(p.URL)), TypePairing)
	b = append(b, `,"pin":`...)
	b = wire.AppendString(b, p.PIN)
	b = append(b, `,"pairing_url":`...)
	b = wire.AppendString(b, p.URL)
	b = append(b, `,"qr_data_uri":`...)
	b = wire.AppendString(b, p.QRDataURI)
	b = append(b, `,"expires_in":`...)
	b = strconv.AppendInt(b, int64(p.ExpiresIn), 10)
	return append(b, '}')
}

// encodeLAN is the Lets extension lan message: phone access as the
// administrator's page shows it.
func encodeLAN(st LANState) []byte {
	b := appendHead(make([]byte, 0, 160+len(st.URL)+len(st.Problem)), TypeLAN)
	b = append(b, `,"enabled":`...)
	b = strconv.AppendBool(b, st.Enabled)
	b = append(b, `,"switchable":`...)
	b = strconv.AppendBool(b, st.Switchable)
	b = append(b, `,"lan_url":`...)
	if st.URL == "" {
		b = append(b, "null"...)
	} else {
		b = wire.AppendString(b, st.URL)
	}
	b = append(b, `,"problem":`...)
	if st.Problem == "" {
		b = append(b, "null"...)
	} else {
		b = wire.AppendString(b, st.Problem)
	}
	return append(b, '}')
}

func encodeSimple(typ string) []byte {
	return append(appendHead(nil, typ), '}')
}

// encodeError returns the error message; one whose encoding exceeds the
// outbound limit is replaced by frame_too_large (§5.2).
func encodeError(e *ProtocolError) []byte {
	b := appendHead(make([]byte, 0, 96+len(e.Text)), TypeError)
	b = append(b, `,"code":`...)
	b = wire.AppendString(b, e.Code)
	b = append(b, `,"error":`...)
	b = wire.AppendString(b, e.Text)
	b = append(b, '}')
	if len(b) > MaxMessageBytes {
		return encodeError(errFrameTooLargeOut)
	}
	return b
}

// appendTempo writes a float as Python's repr does for the values the
// daemon uses (1.0, 1.25): integral values keep ".0".
func appendTempo(b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) || f <= 0 {
		f = 1
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e16 {
		b = strconv.AppendFloat(b, f, 'f', -1, 64)
		return append(b, ".0"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// EncodeExperienceState returns the experience_state message of v (§8.4);
// all 15 fields are always present.
func EncodeExperienceState(v visual.ExperienceView) []byte {
	b := appendHead(make([]byte, 0, 512), TypeExperienceState)
	status := v.Status
	switch status {
	case visual.ExperienceIdle, visual.ExperienceBlocked, visual.ExperienceStarting, visual.ExperiencePlaying:
	default:
		status = visual.ExperienceIdle
	}
	b = append(b, `,"status":`...)
	b = wire.AppendString(b, status)
	b = append(b, `,"kind":`...)
	if v.Kind != nil && (*v.Kind == "demo" || *v.Kind == "show") {
		b = wire.AppendString(b, *v.Kind)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"title":`...)
	b = appendNullableString(b, v.Title)
	b = append(b, `,"cue_index":`...)
	b = appendNullableInt(b, nonNegative(v.CueIndex, 0, math.MaxInt))
	b = append(b, `,"caption":`...)
	b = appendNullableString(b, v.Caption)
	b = append(b, `,"detail":`...)
	b = appendNullableString(b, v.Detail)
	b = append(b, `,"elapsed_ms":`...)
	b = strconv.AppendInt(b, int64(max(v.ElapsedMS, 0)), 10)
	b = append(b, `,"duration_ms":`...)
	b = appendNullableInt(b, nonNegative(v.DurationMS, 1, math.MaxInt))
	b = append(b, `,"tempo":`...)
	b = appendTempo(b, v.Tempo)
	b = append(b, `,"audio_asset":`...)
	b = appendNullableString(b, v.AudioAsset)
	b = append(b, `,"audio_cue":`...)
	b = appendNullableString(b, v.AudioCue)
	b = append(b, `,"audio_slot":`...)
	b = appendNullableInt(b, nonNegative(v.AudioSlot, 0, 7))
	b = append(b, `,"audio_sequence":`...)
	b = strconv.AppendInt(b, int64(max(v.AudioSequence, 0)), 10)
	b = append(b, `,"start_delay_ms":`...)
	b = strconv.AppendInt(b, int64(max(v.StartDelayMS, 0)), 10)
	b = append(b, `,"reason":`...)
	b = appendNullableString(b, v.Reason)
	return append(b, '}')
}

// nonNegative returns n if it lies in lo…hi, else nil (the schema's
// bounds; producers never exceed them).
func nonNegative(n *int, lo, hi int) *int {
	if n == nil || *n < lo || *n > hi {
		return nil
	}
	return n
}

// EncodePerformanceFrame returns the performance_frame message of f
// (§8.5): lower-case #rrggbb colours, grid[row][column], top by column,
// right by row.
func EncodePerformanceFrame(f *visual.ShowFrame) []byte {
	b := appendHead(make([]byte, 0, 900), TypePerformanceFrame)
	b = append(b, `,"grid":[`...)
	for y := range f.Grid {
		if y > 0 {
			b = append(b, ',')
		}
		b = appendColours(b, f.Grid[y][:])
	}
	b = append(b, `],"top":`...)
	b = appendColours(b, f.Top[:])
	b = append(b, `,"right":`...)
	b = appendColours(b, f.Right[:])
	return append(b, '}')
}

func appendColours(b []byte, cs []visual.ShowColor) []byte {
	b = append(b, '[')
	for i, c := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, c.Hex()...)
		b = append(b, '"')
	}
	return append(b, ']')
}

// initialExperience is 8.4.1: what every client gets before anything ran.
func initialExperience() []byte {
	return EncodeExperienceState(visual.ExperienceView{Status: visual.ExperienceIdle, Tempo: 1})
}
