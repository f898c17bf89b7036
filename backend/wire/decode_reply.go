package wire

import (
	"strconv"
	"unicode/utf8"
)

// This file decodes daemon → client lines for clients (the Go counterpart of
// the reference client's reader, spec §12). It is stricter than needed only
// where the reference client is: action events may carry no other members.

// TextDaemonErrorFallback is used when an error message has no "error".
const TextDaemonErrorFallback = "the daemon reported an error without a description"

// DecodeReply decodes one daemon line (without its newline) into a typed
// Reply. Failures are *ProtocolError values with the client-side codes:
// frame_too_large, invalid_message, unsupported_protocol (protocol not 1)
// and unexpected_message_type (a type that is not a daemon message). An
// error message from the daemon decodes into ErrorMessage (not an error);
// its Code is daemon_error when the daemon sent none.
func DecodeReply(line []byte) (Reply, *ProtocolError) {
	root, perr := decodeObject(line)
	if perr != nil {
		return nil, perr
	}
	typ, _ := root.get("type")
	if typ == nil || typ.kind != jString {
		return nil, &ProtocolError{Code: CodeUnexpectedMessageType, Text: "unexpected message type: " + pyStr(typ)}
	}
	switch typ.s {
	case TypeStateAck:
		ack, err := decodeStateAck(&root, "state_ack")
		if err != nil {
			return nil, err
		}
		return ack, nil
	case TypeStatus:
		return decodeStatus(&root)
	case TypePong:
		return Pong{}, nil
	case TypeAction:
		return decodeActionEvent(&root)
	case TypeSessionLeaseAck:
		id, err := replyString(&root, "lease_id", "session_lease_ack", false)
		if err != nil {
			return nil, err
		}
		ack := SessionLeaseAck{LeaseID: id}
		if s, ok := root.present("session"); ok {
			sess, err := decodeStateAck(s, "session_lease_ack.session")
			if err != nil {
				return nil, err
			}
			ack.Session = &sess
		}
		return ack, nil
	case TypeSessionLeaseBound:
		id, err := replyString(&root, "lease_id", "session_lease_bound", false)
		if err != nil {
			return nil, err
		}
		s, ok := root.present("session")
		if !ok {
			return nil, invalid("session_lease_bound.session must be a JSON object")
		}
		sess, err := decodeStateAck(s, "session_lease_bound.session")
		if err != nil {
			return nil, err
		}
		return SessionLeaseBound{LeaseID: id, Session: sess}, nil
	case TypePreviewAck:
		id, err := replyString(&root, "preview_id", "preview_ack", false)
		if err != nil {
			return nil, err
		}
		st, err := replyState(&root, "preview_ack")
		if err != nil {
			return nil, err
		}
		return PreviewAck{PreviewID: id, State: st}, nil
	case TypePreviewEndAck:
		id, err := replyString(&root, "preview_id", "preview_end_ack", false)
		if err != nil {
			return nil, err
		}
		return PreviewEndAck{PreviewID: id}, nil
	case TypeError:
		e := ErrorMessage{Code: CodeDaemonError, Text: TextDaemonErrorFallback}
		if c, ok := root.present("code"); ok && c.kind == jString && c.s != "" {
			e.Code = c.s
		}
		if t, ok := root.present("error"); ok && t.kind == jString && t.s != "" {
			e.Text = t.s
		}
		return e, nil
	}
	return nil, &ProtocolError{Code: CodeUnexpectedMessageType, Text: "unexpected message type: " + typ.s}
}

// replyString reads a string member of a daemon message; allowEmpty permits
// "" (labels, surface descriptions).
func replyString(obj *jvalue, key, where string, allowEmpty bool) (string, *ProtocolError) {
	v, _ := obj.get(key)
	if v == nil || v.kind != jString || (!allowEmpty && v.s == "") {
		if allowEmpty {
			return "", invalid(where + "." + key + " must be a string")
		}
		return "", invalid(where + "." + key + " must be a non-empty string")
	}
	return v.s, nil
}

func replyNullableString(obj *jvalue, key, where string) (string, *ProtocolError) {
	v, _ := obj.get(key)
	if v == nil || v.kind == jNull {
		return "", nil
	}
	if v.kind != jString {
		return "", invalid(where + "." + key + " must be a string or null")
	}
	return v.s, nil
}

func replyBool(obj *jvalue, key, where string) (bool, *ProtocolError) {
	v, _ := obj.get(key)
	if v == nil || v.kind != jBool {
		return false, invalid(where + "." + key + " must be a boolean")
	}
	return v.b, nil
}

func replyInt(obj *jvalue, key, where string) (int, *ProtocolError) {
	v, _ := obj.get(key)
	if v != nil && v.kind == jNumber && v.isInt {
		if n, err := strconv.Atoi(v.s); err == nil {
			return n, nil
		}
	}
	return 0, invalid(where + "." + key + " must be an integer")
}

// replySlot reads an integer ≥ 0 or null (NoSlot).
func replySlot(obj *jvalue, key, where string) (int, *ProtocolError) {
	v, _ := obj.get(key)
	if v == nil || v.kind == jNull {
		return NoSlot, nil
	}
	n, err := replyInt(obj, key, where)
	if err != nil || n < 0 {
		return 0, invalid(where + "." + key + " must be a non-negative integer or null")
	}
	return n, nil
}

func replyState(obj *jvalue, where string) (State, *ProtocolError) {
	v, _ := obj.get("state")
	if v != nil && v.kind == jString {
		if st, ok := ParseState(v.s); ok {
			return st, nil
		}
	}
	return "", invalid(where + ".state is not a known state: " + pyStr(v))
}

func decodeStateAck(obj *jvalue, where string) (StateAck, *ProtocolError) {
	var a StateAck
	var err *ProtocolError
	if obj.kind != jObject {
		return a, invalid(where + " must be a JSON object")
	}
	if a.Backend, err = replyString(obj, "backend", where, false); err != nil {
		return a, err
	}
	if a.SessionID, err = replyString(obj, "session_id", where, false); err != nil {
		return a, err
	}
	if a.State, err = replyState(obj, where); err != nil {
		return a, err
	}
	if a.Slot, err = replySlot(obj, "slot", where); err != nil {
		return a, err
	}
	if a.Accent, err = replyNullableString(obj, "accent", where); err != nil {
		return a, err
	}
	if a.Selected, err = replyBool(obj, "selected", where); err != nil {
		return a, err
	}
	if a.Leased, err = replyBool(obj, "leased", where); err != nil {
		return a, err
	}
	if a.Label, err = replyString(obj, "label", where, true); err != nil {
		return a, err
	}
	return a, nil
}

func decodeStatus(root *jvalue) (Reply, *ProtocolError) {
	const where = "status"
	var s Status
	var err *ProtocolError
	if s.Profile, err = replyString(root, "profile", where, true); err != nil {
		return nil, err
	}
	if s.VisualProtocol, err = replyInt(root, "visual_protocol", where); err != nil {
		return nil, err
	}
	if s.Input, err = replyString(root, "input", where, true); err != nil {
		return nil, err
	}
	if s.Output, err = replyString(root, "output", where, true); err != nil {
		return nil, err
	}
	surf, _ := root.get("surfaces")
	if surf == nil || surf.kind != jArray {
		return nil, invalid("status.surfaces must be a JSON array")
	}
	for i := range surf.arr {
		e := &surf.arr[i]
		w := "status.surfaces[" + strconv.Itoa(i) + "]"
		if e.kind != jObject {
			return nil, invalid(w + " must be a JSON object")
		}
		var d SurfaceDescriptor
		if d.Kind, err = replyString(e, "kind", w, false); err != nil {
			return nil, err
		}
		if d.Profile, err = replyString(e, "profile", w, true); err != nil {
			return nil, err
		}
		if d.VisualProtocol, err = replyInt(e, "visual_protocol", w); err != nil {
			return nil, err
		}
		if d.Input, err = replyString(e, "input", w, true); err != nil {
			return nil, err
		}
		if d.Output, err = replyString(e, "output", w, true); err != nil {
			return nil, err
		}
		s.Surfaces = append(s.Surfaces, d)
	}
	if sel, ok := root.present("selected"); ok {
		id, perr := decodeIdentity(sel)
		if perr != nil {
			return nil, invalid("status.selected: " + perr.Text)
		}
		s.Selected = &id
	}
	if s.OverflowCount, err = replyInt(root, "overflow_count", where); err != nil {
		return nil, err
	}
	if s.ActivityMotion, err = replyBool(root, "activity_motion", where); err != nil {
		return nil, err
	}
	if s.AudioFeedback, err = replyBool(root, "audio_feedback", where); err != nil {
		return nil, err
	}
	if s.Experience, err = replyNullableString(root, "experience", where); err != nil {
		return nil, err
	}
	if s.PreviewActive, err = replyBool(root, "preview_active", where); err != nil {
		return nil, err
	}
	ttl, _ := root.get("session_ttl")
	if ttl == nil || ttl.kind != jNumber {
		return nil, invalid("status.session_ttl must be a number")
	}
	s.SessionTTL = ttl.float()
	sessions, _ := root.get("sessions")
	if sessions == nil || sessions.kind != jArray {
		return nil, invalid("status.sessions must be a JSON array")
	}
	for i := range sessions.arr {
		e := &sessions.arr[i]
		w := "status.sessions[" + strconv.Itoa(i) + "]"
		if e.kind != jObject {
			return nil, invalid(w + " must be a JSON object")
		}
		var ss StatusSession
		if ss.Backend, err = replyString(e, "backend", w, false); err != nil {
			return nil, err
		}
		if ss.SessionID, err = replyString(e, "session_id", w, false); err != nil {
			return nil, err
		}
		if ss.State, err = replyState(e, w); err != nil {
			return nil, err
		}
		if ss.Slot, err = replySlot(e, "slot", w); err != nil {
			return nil, err
		}
		if ss.Accent, err = replyNullableString(e, "accent", w); err != nil {
			return nil, err
		}
		if ss.Selected, err = replyBool(e, "selected", w); err != nil {
			return nil, err
		}
		if ss.Leased, err = replyBool(e, "leased", w); err != nil {
			return nil, err
		}
		if ss.Label, err = replyString(e, "label", w, true); err != nil {
			return nil, err
		}
		if md, ok := e.present("metadata"); ok {
			if md.kind != jObject {
				return nil, invalid(w + ".metadata must be a JSON object")
			}
			for j := range md.obj {
				m := &md.obj[j]
				if m.val.kind != jString {
					return nil, invalid(w + ".metadata values must be strings")
				}
				ss.Metadata = append(ss.Metadata, MetaEntry{Key: m.key, Value: m.val.s})
			}
		}
		s.Sessions = append(s.Sessions, ss)
	}
	return s, nil
}

// decodeActionEvent is as strict as the reference client (spec §12): no
// members other than protocol, type, agent, action, request_id; a valid
// identity and action; request_id absent, null or a non-empty string.
func decodeActionEvent(root *jvalue) (Reply, *ProtocolError) {
	if name, ok := firstUnknownMember(root, []string{"protocol", "type", "agent", "action", "request_id"}); ok {
		return nil, invalid("unknown field: " + name)
	}
	var e ActionEvent
	agent, ok := root.present("agent")
	if !ok {
		return nil, invalid(TextAgentNotObject)
	}
	id, err := decodeIdentity(agent)
	if err != nil {
		return nil, err
	}
	e.Agent = id
	a, _ := root.get("action")
	act, valid := Action(""), false
	if a != nil && a.kind == jString {
		act, valid = ParseAction(a.s)
	}
	if !valid {
		return nil, invalid("unknown control action: " + pyStr(a))
	}
	e.Action = act
	if e.RequestID, err = nonEmptyString(root, "request_id", TextRequestID, false); err != nil {
		return nil, err
	}
	return e, nil
}

// LeaseSessionIdentity extracts the identity the way the reference lease
// client does (spec §12, case 112): from any JSON object line whose
// "session" member is an object with non-empty string backend and
// session_id. Nothing else about the line is checked.
func LeaseSessionIdentity(line []byte) (Identity, bool) {
	if len(line) > MaxFrameBytes || !utf8.Valid(line) {
		return Identity{}, false
	}
	root, ok := parseJSON(line)
	if !ok || root.kind != jObject {
		return Identity{}, false
	}
	s, ok := root.present("session")
	if !ok || s.kind != jObject {
		return Identity{}, false
	}
	id, err := decodeIdentity(s)
	if err != nil {
		return Identity{}, false
	}
	return id, true
}
