package claudesetup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
)

// ErrInvalidSettings is matched (errors.Is) by every *SettingsError.
var ErrInvalidSettings = errors.New("not a valid Claude Code settings file")

// SettingsError says why a settings file cannot be edited safely. The file
// is never written when this is returned.
type SettingsError struct {
	Path   string // "" when editing bytes
	Line   int    // 1-based; 0 when unknown
	Column int
	Msg    string
}

func (e *SettingsError) Error() string {
	name := e.Path
	if name == "" {
		name = "settings.json"
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", name, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s: %s", name, e.Msg)
}

func (e *SettingsError) Is(target error) bool { return target == ErrInvalidSettings }

// Merge adds ours to a settings file's "hooks" and returns the new text.
// Every other key and every other tool's hook entry stays, in its order;
// Lets' own entries — the commands in ours, and any command ParseLetsHook
// recognises — are replaced by ours. When ours are already exactly in
// place, changed is false and the text is returned as it was, so running
// setup twice changes nothing. Empty text counts as {}. Text that is not
// a JSON object (comments included: Claude Code reads plain JSON) gives a
// *SettingsError.
func Merge(settings []byte, ours HookSet) (out []byte, changed bool, err error) {
	return edit(settings, ours, true)
}

// Unmerge removes Lets' hook entries (those of ours, and any command
// ParseLetsHook recognises) and nothing else. A group, an event list or
// the "hooks" object left empty by the removal goes too.
func Unmerge(settings []byte, ours HookSet) (out []byte, changed bool, err error) {
	return edit(settings, ours, false)
}

// member is one key of a JSON object, its value kept as written.
type member struct {
	key   string
	value json.RawMessage
}

// object is a JSON object that keeps its key order.
type object []member

func (o object) index(key string) (int, error) {
	at := -1
	for i, m := range o {
		if m.key == key {
			if at >= 0 {
				return 0, fmt.Errorf("%q appears twice", key)
			}
			at = i
		}
	}
	return at, nil
}

func (o object) encode() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(m.key) // a string always encodes
		b.Write(key)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// parseObject reads exactly one JSON object.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("must be a JSON object, like {}")
	}
	o := object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("must be a JSON object, like {}")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, member{key: key, value: v})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("has more after the closing }")
		}
		return nil, err
	}
	return o, nil
}

func parseArray(data []byte) ([]json.RawMessage, bool) {
	var a []json.RawMessage
	if err := json.Unmarshal(data, &a); err != nil || a == nil {
		return nil, false
	}
	return a, true
}

func encodeArray(items []json.RawMessage) []byte {
	b := []byte{'['}
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, ']')
}

func settingsError(data []byte, err error) *SettingsError {
	se := &SettingsError{Msg: err.Error()}
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		se.Line, se.Column = lineCol(data, syn.Offset)
		se.Msg = syn.Error() + " (Claude Code settings are plain JSON: no comments, no trailing commas)"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		se.Msg = "the JSON ends too early"
	}
	return se
}

func lineCol(data []byte, offset int64) (int, int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	return bytes.Count(before, []byte("\n")) + 1, int(offset) - bytes.LastIndexByte(before, '\n')
}

// owner tells Lets' hook commands from everyone else's.
type owner map[string]bool

func newOwner(ours HookSet) owner {
	o := owner{}
	for _, groups := range ours {
		for _, g := range groups {
			for _, h := range g.Hooks {
				o[h.Command] = true
			}
		}
	}
	return o
}

// ours reports whether one handler (raw JSON) is a command hook of Lets.
func (o owner) ours(raw json.RawMessage) bool {
	var h struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	if json.Unmarshal(raw, &h) != nil || (h.Type != "command" && h.Type != "") {
		return false
	}
	if o[h.Command] {
		return true
	}
	_, _, ok := ParseLetsHook(h.Command)
	return ok
}

func edit(settings []byte, ours HookSet, add bool) ([]byte, bool, error) {
	top := object{}
	if len(bytes.TrimSpace(settings)) > 0 {
		var err error
		if top, err = parseObject(settings); err != nil {
			return nil, false, settingsError(settings, err)
		}
	}
	at, err := top.index("hooks")
	if err != nil {
		return nil, false, &SettingsError{Msg: err.Error()}
	}
	hooks := object{}
	if at >= 0 {
		if hooks, err = parseObject(top[at].value); err != nil {
			return nil, false, &SettingsError{Msg: `"hooks" must be an object of event names, like "hooks": {}`}
		}
	}
	own := newOwner(ours)
	changed := false
	var kept object
	for _, m := range hooks {
		if _, err := hooks.index(m.key); err != nil {
			return nil, false, &SettingsError{Msg: `"hooks": ` + err.Error()}
		}
		var want []Group
		if add {
			want = ours[Event(m.key)]
		}
		value, emptied, ch, err := editEvent(m.key, m.value, want, own)
		if err != nil {
			return nil, false, err
		}
		changed = changed || ch
		if !emptied {
			kept = append(kept, member{key: m.key, value: value})
		}
	}
	if add {
		for _, e := range orderedEvents(ours) {
			if i, _ := hooks.index(string(e)); i >= 0 || len(ours[e]) == 0 {
				continue
			}
			kept = append(kept, member{key: string(e), value: encodeArray(encodeGroups(ours[e]))})
			changed = true
		}
	}
	if !changed {
		return settings, false, nil
	}
	switch {
	case len(kept) > 0 && at >= 0:
		top[at].value = kept.encode()
	case len(kept) > 0:
		top = append(top, member{key: "hooks", value: kept.encode()})
	case at >= 0:
		top = append(top[:at:at], top[at+1:]...)
	}
	return format(top.encode(), settings), true, nil
}

// orderedEvents lists the events of ours: the known ones in Events()
// order, then any others by name.
func orderedEvents(ours HookSet) []Event {
	var out, extra []Event
	known := map[Event]bool{}
	for _, e := range Events() {
		known[e] = true
		if _, ok := ours[e]; ok {
			out = append(out, e)
		}
	}
	for e := range ours {
		if !known[e] {
			extra = append(extra, e)
		}
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i] < extra[j] })
	return append(out, extra...)
}

func encodeGroups(groups []Group) []json.RawMessage {
	out := make([]json.RawMessage, len(groups))
	for i, g := range groups {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(g) // plain strings and ints always encode
		out[i] = bytes.TrimSpace(b.Bytes())
	}
	return out
}

// editEvent takes Lets' handlers out of one event's list and, when want
// is set, appends want. It changes nothing when want is already there
// exactly and no other Lets handler is. emptied says the list became empty
// through the removal, so the event key should go.
func editEvent(event string, raw json.RawMessage, want []Group, own owner) (json.RawMessage, bool, bool, error) {
	groups, ok := parseArray(raw)
	if !ok {
		if len(want) == 0 {
			return raw, false, false, nil // someone else's odd value: not ours to judge
		}
		return nil, false, false, &SettingsError{Msg: fmt.Sprintf(`"hooks": {%q} must be a list, like %q: []`, event, event)}
	}
	if len(want) > 0 && inPlace(groups, want, own) {
		return raw, false, false, nil
	}
	var out []json.RawMessage
	removed := false
	for _, g := range groups {
		ng, drop, ch := withoutOurs(g, own)
		removed = removed || ch
		if !drop {
			out = append(out, ng)
		}
	}
	if len(want) > 0 {
		return encodeArray(append(out, encodeGroups(want)...)), false, true, nil
	}
	if !removed {
		return raw, false, false, nil
	}
	return encodeArray(out), len(out) == 0, true, nil
}

// withoutOurs removes Lets' handlers from one group. drop says the group
// held only Lets' handlers.
func withoutOurs(raw json.RawMessage, own owner) (out json.RawMessage, drop, changed bool) {
	g, err := parseObject(raw)
	if err != nil {
		return raw, false, false
	}
	at, err := g.index("hooks")
	if err != nil || at < 0 {
		return raw, false, false
	}
	handlers, ok := parseArray(g[at].value)
	if !ok {
		return raw, false, false
	}
	var keep []json.RawMessage
	for _, h := range handlers {
		if !own.ours(h) {
			keep = append(keep, h)
		}
	}
	if len(keep) == len(handlers) {
		return raw, false, false
	}
	if len(keep) == 0 {
		return nil, true, true
	}
	g[at].value = encodeArray(keep)
	return g.encode(), false, true
}

// inPlace reports whether the groups holding Lets' handlers are exactly
// want, in order, with nothing else in them.
func inPlace(groups []json.RawMessage, want []Group, own owner) bool {
	var mine []json.RawMessage
	for _, g := range groups {
		if _, _, ch := withoutOurs(g, own); ch {
			mine = append(mine, g)
		}
	}
	if len(mine) != len(want) {
		return false
	}
	encoded := encodeGroups(want)
	for i := range mine {
		if !sameJSON(mine[i], encoded[i]) {
			return false
		}
	}
	return true
}

// sameJSON compares two JSON values by meaning (key order and spacing do
// not matter).
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ca, err1 := json.Marshal(x)
	cb, err2 := json.Marshal(y)
	return err1 == nil && err2 == nil && bytes.Equal(ca, cb)
}

// format indents compact JSON by two spaces with a final newline, with
// CRLF line ends when the original text used them.
func format(compact, original []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		b.Reset()
		b.Write(compact)
	}
	b.WriteByte('\n')
	out := b.Bytes()
	if bytes.Contains(original, []byte("\r\n")) {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	return out
}
