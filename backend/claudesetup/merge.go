package claudesetup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/lets-app/lets/backend/jsonobject"
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

// parseObject reads exactly one JSON object, its members in order and
// their values as written, in the words of this package's errors.
func parseObject(data []byte) (jsonobject.Object, error) {
	o, err := jsonobject.Parse(data)
	var trailing *jsonobject.TrailingError
	switch {
	case errors.Is(err, jsonobject.ErrNotObject):
		return nil, errors.New("must be a JSON object, like {}")
	case errors.As(err, &trailing) && trailing.Err == nil:
		return nil, errors.New("has more after the closing }")
	case errors.As(err, &trailing):
		return nil, trailing.Err
	}
	return o, err
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
	top := jsonobject.Object{}
	if len(bytes.TrimSpace(settings)) > 0 {
		var err error
		if top, err = parseObject(settings); err != nil {
			return nil, false, settingsError(settings, err)
		}
	}
	at, err := top.Index("hooks")
	if err != nil {
		return nil, false, &SettingsError{Msg: err.Error()}
	}
	hooks := jsonobject.Object{}
	if at >= 0 {
		if hooks, err = parseObject(top[at].Value); err != nil {
			return nil, false, &SettingsError{Msg: `"hooks" must be an object of event names, like "hooks": {}`}
		}
	}
	own := newOwner(ours)
	changed := false
	var kept jsonobject.Object
	for _, m := range hooks {
		if _, err := hooks.Index(m.Key); err != nil {
			return nil, false, &SettingsError{Msg: `"hooks": ` + err.Error()}
		}
		var want []Group
		if add {
			want = ours[Event(m.Key)]
		}
		value, emptied, ch, err := editEvent(m.Key, m.Value, want, own)
		if err != nil {
			return nil, false, err
		}
		changed = changed || ch
		if !emptied {
			kept = append(kept, jsonobject.Member{Key: m.Key, Value: value})
		}
	}
	if add {
		for _, e := range orderedEvents(ours) {
			if i, _ := hooks.Index(string(e)); i >= 0 || len(ours[e]) == 0 {
				continue
			}
			kept = append(kept, jsonobject.Member{Key: string(e), Value: encodeArray(encodeGroups(ours[e]))})
			changed = true
		}
	}
	if !changed {
		return settings, false, nil
	}
	switch {
	case len(kept) > 0 && at >= 0:
		top[at].Value = kept.Encode()
	case len(kept) > 0:
		top = append(top, jsonobject.Member{Key: "hooks", Value: kept.Encode()})
	case at >= 0:
		top = append(top[:at:at], top[at+1:]...)
	}
	return format(top.Encode(), settings), true, nil
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
	at, err := g.Index("hooks")
	if err != nil || at < 0 {
		return raw, false, false
	}
	handlers, ok := parseArray(g[at].Value)
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
	g[at].Value = encodeArray(keep)
	return g.Encode(), false, true
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
