package visual

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lets-app/lets/backend/wire"
)

// JSON form of §4.3 (Web Surface Protocol 1 §8.3): compact separators,
// ASCII-only strings (Python ensure_ascii escaping), keys in reference
// order.

// MaxLabelRunes is the longest label a surface message carries.
const MaxLabelRunes = 80

// MaxMessageBytes is the outbound limit of a browser message.
const MaxMessageBytes = 16384

// AppendJSON appends the frame's JSON object:
// {"state":[[7 tokens]×8],"selectors":[...],"statuses":[...],
// "actions":{"approve":..,"reject":..,"stop":..,"retry":..},"overflow":..}.
// Selectors and statuses have Capacity entries (the browser surface has
// capacity 8, which the reference schema requires).
func (f *Frame) AppendJSON(b []byte) []byte {
	b = append(b, `{"state":[`...)
	for y := range f.State {
		if y > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for x := range f.State[y] {
			if x > 0 {
				b = append(b, ',')
			}
			b = wire.AppendString(b, string(orOff(f.State[y][x])))
		}
		b = append(b, ']')
	}
	n := f.Capacity
	if n < 0 {
		n = 0
	}
	if n > MaxSelectors {
		n = MaxSelectors
	}
	b = append(b, `],"selectors":`...)
	b = appendTokens(b, f.Selectors[:n])
	b = append(b, `,"statuses":`...)
	b = appendTokens(b, f.Statuses[:n])
	b = append(b, `,"actions":{`...)
	for i, a := range ActionOrder() {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendString(b, string(a))
		b = append(b, ':')
		b = wire.AppendString(b, string(orOff(f.Actions[i])))
	}
	b = append(b, `},"overflow":`...)
	b = wire.AppendString(b, string(orOff(f.Overflow)))
	return append(b, '}')
}

// MarshalJSON returns AppendJSON's form.
func (f Frame) MarshalJSON() ([]byte, error) { return f.AppendJSON(make([]byte, 0, 2048)), nil }

func appendTokens(b []byte, ts []Token) []byte {
	b = append(b, '[')
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendString(b, string(orOff(t)))
	}
	return append(b, ']')
}

// AppendSurfaceMessage appends the browser's `surface` message for view on
// a surface with capacity slots (web_protocol.surface_message):
// {"protocol":1,"type":"surface","visual_protocol":1,"view":{...},
// "visual_frame":{...}} without a trailing newline.
//
// The view part lists the sessions the frame draws, one per slot in slot
// order (a later duplicate wins, as in the frame), with the accent the
// frame uses and the sanitised label (SanitizeLabel); available_actions is
// sorted by name; a negative frame or overflow count is written as 0 (the
// reference never produces one).
func AppendSurfaceMessage(b []byte, view View, capacity int) []byte {
	f := Compile(view, capacity)
	b = append(b, `{"protocol":1,"type":"surface","visual_protocol":1,"view":{"selected_state":`...)
	if stateIndex(view.Selected) >= 0 {
		b = wire.AppendString(b, string(view.Selected))
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"frame":`...)
	b = strconv.AppendInt(b, int64(max(view.Frame, 0)), 10)
	b = append(b, `,"sessions":[`...)
	var bySlot [MaxSelectors]int // index+1 into view.Sessions; 0 = none
	for i := range view.Sessions {
		s := &view.Sessions[i]
		if s.Slot >= 0 && s.Slot < f.Capacity && stateIndex(s.State) >= 0 {
			bySlot[s.Slot] = i + 1
		}
	}
	first := true
	for slot, k := range bySlot {
		if k == 0 {
			continue
		}
		s := &view.Sessions[k-1]
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"slot":`...)
		b = strconv.AppendInt(b, int64(slot), 10)
		b = append(b, `,"state":`...)
		b = wire.AppendString(b, string(s.State))
		b = append(b, `,"selected":`...)
		b = strconv.AppendBool(b, s.Selected)
		b = append(b, `,"accent":`...)
		b = wire.AppendString(b, effectiveAccent(s.Accent, slot))
		b = append(b, `,"label":`...)
		b = wire.AppendString(b, SanitizeLabel(s.Label, slot))
		b = append(b, '}')
	}
	b = append(b, `],"available_actions":[`...)
	first = true
	for _, a := range [4]wire.Action{wire.ActionApprove, wire.ActionReject, wire.ActionRetry, wire.ActionStop} {
		if !view.Available.Has(a) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = wire.AppendString(b, string(a))
	}
	b = append(b, `],"overflow_count":`...)
	b = strconv.AppendInt(b, int64(max(view.OverflowCount, 0)), 10)
	b = append(b, `,"activity_motion":`...)
	b = strconv.AppendBool(b, view.ActivityMotion)
	b = append(b, `},"visual_frame":`...)
	b = f.AppendJSON(b)
	return append(b, '}')
}

// effectiveAccent is the accent name the compiler uses for a session in
// slot: the given name if it is an identity accent, else the slot's.
func effectiveAccent(name string, slot int) string {
	if accentIndex(name) >= 0 {
		return name
	}
	return wire.IdentityAccents()[slot]
}

// SanitizeLabel is the browser label rule (Web Surface Protocol 1 §8.3):
// every run of whitespace (unicode.IsSpace plus U+001C…U+001F, Python's
// str.split set) becomes one space and the ends are trimmed; an empty
// result becomes "Session <slot+1>"; then the first MaxLabelRunes runes
// are kept. Invalid UTF-8 bytes count as one rune each (they are written
// as U+FFFD).
func SanitizeLabel(label string, slot int) string {
	if cleanLabel(label) {
		return label
	}
	fields := strings.FieldsFunc(label, isPySpace)
	s := strings.Join(fields, " ")
	if s == "" {
		return "Session " + strconv.Itoa(slot+1)
	}
	if utf8.RuneCountInString(s) <= MaxLabelRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxLabelRunes {
			return s[:i]
		}
		n++
	}
	return s
}

// cleanLabel reports whether label needs no change: non-empty printable
// ASCII without leading, trailing or double spaces, at most MaxLabelRunes.
func cleanLabel(label string) bool {
	if label == "" || len(label) > MaxLabelRunes || label[0] == ' ' || label[len(label)-1] == ' ' {
		return false
	}
	for i := 0; i < len(label); i++ {
		c := label[i]
		if c < 0x21 || c > 0x7e {
			if c != ' ' || label[i-1] == ' ' {
				return false
			}
		}
	}
	return true
}

func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}
