package wire

import (
	"unicode/utf8"
)

// IsBlankLine reports whether a line (without its newline) is empty or only
// ASCII whitespace (space, \t, \n, \r, \v, \f); the daemon skips such lines
// silently (spec §3.1 step 5).
func IsBlankLine(line []byte) bool {
	for _, c := range line {
		switch c {
		case ' ', '\t', '\n', '\r', '\v', '\f':
		default:
			return false
		}
	}
	return true
}

func invalid(text string) *ProtocolError {
	return &ProtocolError{Code: CodeInvalidMessage, Text: text}
}

// allowedMembers never changes: the member set of each client type (§6).
var allowedMembers = map[string][]string{
	TypeState:            {"protocol", "type", "state", "agent", "lease_id", "reply"},
	TypeSessionEnd:       {"protocol", "type", "agent"},
	TypeStatus:           {"protocol", "type"},
	TypePing:             {"protocol", "type"},
	TypeSessionLease:     {"protocol", "type", "lease_id", "agent", "metadata"},
	TypeSubscribeActions: {"protocol", "type", "agent", "actions", "request_id", "one_shot"},
	TypePreview:          {"protocol", "type", "preview_id", "state", "ttl"},
	TypePreviewEnd:       {"protocol", "type", "preview_id"},
}

// decodeObject runs the checks every line shares, in the order of §3.2:
// size, UTF-8, JSON, object, protocol 1. Daemon and client decoding both
// start here.
func decodeObject(line []byte) (jvalue, *ProtocolError) {
	if len(line) > MaxFrameBytes {
		return jvalue{}, ErrFrameTooLarge()
	}
	if !utf8.Valid(line) {
		return jvalue{}, invalid(TextInvalidJSON)
	}
	root, ok := parseJSON(line)
	if !ok {
		return jvalue{}, invalid(TextInvalidJSON)
	}
	if root.kind != jObject {
		return jvalue{}, invalid(TextNotObject)
	}
	proto, _ := root.get("protocol")
	if !isProtocolOne(proto) {
		return jvalue{}, &ProtocolError{
			Code: CodeUnsupportedProtocol,
			Text: "unsupported wire protocol " + pyReprString(proto) + "; expected 1",
		}
	}
	return root, nil
}

// DecodeLine decodes one client line (without its newline) into a typed
// Command, or returns the protocol error to send, following the exact
// precedence of spec §3.2: size, UTF-8, JSON, object, protocol, type,
// unknown members, then per-field validation in the order of §6. The
// control-plane conflicts of step 9 are the caller's. Blank lines should be
// skipped with IsBlankLine before calling.
func DecodeLine(line []byte) (Command, *ProtocolError) {
	root, perr := decodeObject(line)
	if perr != nil {
		return nil, perr
	}
	typ, _ := root.get("type")
	var allowed []string
	if typ != nil && typ.kind == jString {
		allowed = allowedMembers[typ.s]
	}
	if allowed == nil {
		return nil, &ProtocolError{Code: CodeUnknownMessageType, Text: "unknown message type: " + pyStr(typ)}
	}
	if name, ok := firstUnknownMember(&root, allowed); ok {
		return nil, invalid("unknown field: " + name)
	}
	switch typ.s {
	case TypeState:
		return decodeState(&root)
	case TypeSessionEnd:
		agent, _ := root.get("agent")
		if agent == nil || agent.kind == jNull {
			return nil, invalid(TextAgentNotObject)
		}
		id, err := decodeIdentity(agent)
		if err != nil {
			return nil, err
		}
		return SessionEndCommand{Agent: id}, nil
	case TypeStatus:
		return StatusCommand{}, nil
	case TypePing:
		return PingCommand{}, nil
	case TypeSessionLease:
		return decodeSessionLease(&root)
	case TypeSubscribeActions:
		return decodeSubscribe(&root)
	case TypePreview:
		return decodePreview(&root)
	default: // TypePreviewEnd
		id, err := nonEmptyString(&root, "preview_id", TextPreviewID, true)
		if err != nil {
			return nil, err
		}
		return PreviewEndCommand{PreviewID: id}, nil
	}
}

// isProtocolOne: a JSON number numerically equal to 1 (1, 1.0, 1e0,
// 10e-1); booleans, strings, null and everything else fail.
func isProtocolOne(v *jvalue) bool {
	if v == nil || v.kind != jNumber {
		return false
	}
	if v.isInt {
		return v.s == "1"
	}
	return v.float() == 1
}

// firstUnknownMember returns the smallest (code-point order) member name
// outside allowed.
func firstUnknownMember(obj *jvalue, allowed []string) (string, bool) {
	best, found := "", false
	for i := range obj.obj {
		k := obj.obj[i].key
		known := false
		for _, a := range allowed {
			if a == k {
				known = true
				break
			}
		}
		if !known && (!found || k < best) {
			best, found = k, true
		}
	}
	return best, found
}

// decodeIdentity parses a present, non-null agent value; extra members are
// ignored here.
func decodeIdentity(agent *jvalue) (Identity, *ProtocolError) {
	if agent.kind != jObject {
		return Identity{}, invalid(TextAgentNotObject)
	}
	b, _ := agent.get("backend")
	if b == nil || b.kind != jString || b.s == "" {
		return Identity{}, invalid(TextAgentBackend)
	}
	s, _ := agent.get("session_id")
	if s == nil || s.kind != jString || s.s == "" {
		return Identity{}, invalid(TextAgentSessionID)
	}
	return Identity{Backend: b.s, SessionID: s.s}, nil
}

// optionalIdentity: absent/null → (zero, false).
func optionalIdentity(obj *jvalue) (Identity, bool, *ProtocolError) {
	agent, ok := obj.present("agent")
	if !ok {
		return Identity{}, false, nil
	}
	id, err := decodeIdentity(agent)
	return id, true, err
}

// nonEmptyString reads an optional (or required) non-empty string member.
func nonEmptyString(obj *jvalue, key, text string, required bool) (string, *ProtocolError) {
	v, ok := obj.present(key)
	if !ok {
		if required {
			return "", invalid(text)
		}
		return "", nil
	}
	if v.kind != jString || v.s == "" {
		return "", invalid(text)
	}
	return v.s, nil
}

// optionalBool: absent/null → false; otherwise a JSON boolean.
func optionalBool(obj *jvalue, key, text string) (bool, *ProtocolError) {
	v, ok := obj.present(key)
	if !ok {
		return false, nil
	}
	if v.kind != jBool {
		return false, invalid(text)
	}
	return v.b, nil
}

func decodeStateValue(obj *jvalue) (State, *ProtocolError) {
	v, _ := obj.get("state")
	if v != nil && v.kind == jString {
		if st, ok := ParseState(v.s); ok {
			return st, nil
		}
	}
	return "", invalid("unknown state: " + pyStr(v))
}

// metadataMembers validates string→string members (document order); skip
// names the identity members when decoding agent metadata.
func metadataMembers(obj *jvalue, skipIdentity bool, keysText, valuesText string) (Metadata, *ProtocolError) {
	var md Metadata
	for i := range obj.obj {
		m := &obj.obj[i]
		if skipIdentity && (m.key == "backend" || m.key == "session_id") {
			continue
		}
		if m.key == "" {
			return nil, invalid(keysText)
		}
		if m.val.kind != jString || m.val.s == "" {
			return nil, invalid(valuesText)
		}
		// Keys are already unique (the parser merged duplicates).
		md = append(md, MetaEntry{Key: m.key, Value: m.val.s})
	}
	return md, nil
}

func decodeState(root *jvalue) (Command, *ProtocolError) {
	cmd := StateCommand{Agent: DefaultIdentity()}
	agent, hasAgent := root.present("agent")
	if hasAgent {
		id, err := decodeIdentity(agent)
		if err != nil {
			return nil, err
		}
		cmd.Agent = id
	}
	st, err := decodeStateValue(root)
	if err != nil {
		return nil, err
	}
	cmd.State = st
	if hasAgent {
		md, err := metadataMembers(agent, true, TextAgentMetadataKeys, TextAgentMetadataValues)
		if err != nil {
			return nil, err
		}
		cmd.Metadata = md
	}
	if cmd.LeaseID, err = nonEmptyString(root, "lease_id", TextLeaseID, false); err != nil {
		return nil, err
	}
	if cmd.Reply, err = optionalBool(root, "reply", TextReply); err != nil {
		return nil, err
	}
	return cmd, nil
}

func decodeSessionLease(root *jvalue) (Command, *ProtocolError) {
	var cmd SessionLeaseCommand
	var err *ProtocolError
	if cmd.LeaseID, err = nonEmptyString(root, "lease_id", TextLeaseID, true); err != nil {
		return nil, err
	}
	if cmd.Agent, _, err = optionalIdentity(root); err != nil {
		return nil, err
	}
	if md, ok := root.present("metadata"); ok {
		if md.kind != jObject {
			return nil, invalid(TextMetadataNotObject)
		}
		if cmd.Metadata, err = metadataMembers(md, false, TextMetadataKeys, TextMetadataValues); err != nil {
			return nil, err
		}
	}
	return cmd, nil
}

func decodeSubscribe(root *jvalue) (Command, *ProtocolError) {
	cmd := SubscribeActionsCommand{Agent: DefaultIdentity()}
	id, ok, err := optionalIdentity(root)
	if err != nil {
		return nil, err
	}
	if ok {
		cmd.Agent = id
	}
	acts, _ := root.get("actions")
	if acts == nil || acts.kind != jArray || len(acts.arr) == 0 {
		return nil, invalid(TextActionsArray)
	}
	cmd.Actions = make([]Action, 0, len(acts.arr))
	for i := range acts.arr {
		el := &acts.arr[i]
		a, ok := Action(""), false
		if el.kind == jString {
			a, ok = ParseAction(el.s)
		}
		if !ok {
			return nil, invalid(TextActionsUnknown)
		}
		cmd.Actions = append(cmd.Actions, a)
	}
	if cmd.RequestID, err = nonEmptyString(root, "request_id", TextRequestID, false); err != nil {
		return nil, err
	}
	if cmd.OneShot, err = optionalBool(root, "one_shot", TextOneShot); err != nil {
		return nil, err
	}
	return cmd, nil
}

func decodePreview(root *jvalue) (Command, *ProtocolError) {
	var cmd PreviewCommand
	var err *ProtocolError
	if cmd.PreviewID, err = nonEmptyString(root, "preview_id", TextPreviewID, true); err != nil {
		return nil, err
	}
	if cmd.State, err = decodeStateValue(root); err != nil {
		return nil, err
	}
	ttl, _ := root.get("ttl")
	if ttl == nil || ttl.kind != jNumber {
		return nil, invalid(TextTTL)
	}
	f := ttl.float()
	if !(f > 0 && f <= MaxPreviewTTL) {
		return nil, invalid(TextTTL)
	}
	cmd.TTL = f
	return cmd, nil
}
