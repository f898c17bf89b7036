package lip

import (
	"encoding/json"
	"fmt"
	"time"
)

// Message is the typed data of a core message. LIPType is the envelope type
// the data belongs to.
type Message interface {
	LIPType() string
}

// NewEnvelope builds an envelope of m's type with m as data. from and win
// may be empty; the host stamps them on receipt anyway.
func NewEnvelope(id string, now time.Time, dir Dir, m Message) (Envelope, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return Envelope{}, fmt.Errorf("encode %s data: %w", m.LIPType(), err)
	}
	return Envelope{LIP: Version, ID: id, TS: now.UnixMilli(), Dir: dir, Type: m.LIPType(), Data: data}, nil
}

// NewEvent builds an up-event from src (id ev_…, from and win stamped).
func NewEvent(ids *IDs, now time.Time, src Source, m Message) (Envelope, error) {
	e, err := NewEnvelope(ids.Event(now), now, Up, m)
	if err != nil {
		return e, err
	}
	e.From = src.From()
	e.Win = src.Window
	return e, nil
}

// NewCommand builds a down-command from src to window win (id cm_…).
func NewCommand(ids *IDs, now time.Time, src Source, win string, m Message) (Envelope, error) {
	e, err := NewEnvelope(ids.Command(now), now, Down, m)
	if err != nil {
		return e, err
	}
	e.From = src.From()
	e.Win = win
	return e, nil
}

// ErrorEnvelope builds the lip.error the host answers with over /lip/ws:
// dir down, from "host", to window win, re the offending envelope's id.
func ErrorEnvelope(ids *IDs, now time.Time, win string, e *Error, re string) Envelope {
	env, _ := NewCommand(ids, now, Source{Kind: KindHost}, win, ErrorData{Code: e.Code, Message: e.Message, Re: re})
	env.Re = re
	return env
}

// DecodeData decodes an envelope's data into m (a pointer to one of the
// typed shapes). Unknown data fields are ignored.
func DecodeData(e *Envelope, m any) error {
	if err := json.Unmarshal(e.DataOrEmpty(), m); err != nil {
		return fmt.Errorf("%s data: %w", e.Type, err)
	}
	return nil
}

// DataField returns the raw value of one top-level data key.
func DataField(data json.RawMessage, key string) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if len(data) == 0 || json.Unmarshal(data, &m) != nil {
		return nil, false
	}
	v, ok := m[key]
	return v, ok
}

// SetDataField returns data with key set to value (raw JSON): replaced in
// place when present, else appended as the last key. Other keys keep their
// order and bytes.
func SetDataField(data json.RawMessage, key string, value json.RawMessage) (json.RawMessage, error) {
	return editData(data, key, value, false)
}

// PrependDataField returns data with key set to value as its first key
// (any previous occurrence removed). Used for a saved session's
// data.session (spec §4.2: "whose first key is session").
func PrependDataField(data json.RawMessage, key string, value json.RawMessage) (json.RawMessage, error) {
	return editData(data, key, value, true)
}

func editData(data json.RawMessage, key string, value json.RawMessage, first bool) (json.RawMessage, error) {
	if len(data) == 0 {
		data = json.RawMessage(`{}`)
	}
	if !json.Valid(data) || !json.Valid(value) {
		return nil, fmt.Errorf("data and the new value must be valid JSON")
	}
	i := skipWS(data, 0)
	if data[i] != '{' {
		return nil, fmt.Errorf("data is not a JSON object")
	}
	i++
	kv := appendString(nil, key)
	value = compact(value)
	out := make([]byte, 0, len(data)+len(kv)+len(value)+2)
	out = append(out, '{')
	n := 0
	add := func(k, v []byte) {
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, k...)
		out = append(out, ':')
		out = append(out, v...)
		n++
	}
	if first {
		add(kv, value)
	}
	replaced := first
	for {
		i = skipWS(data, i)
		if data[i] == '}' {
			break
		}
		kend := skipString(data, i)
		rawKey := data[i:kend]
		k, _ := jsonString(rawKey)
		i = skipWS(data, skipWS(data, kend)+1)
		vend := skipValue(data, i)
		v := data[i:vend]
		i = skipWS(data, vend)
		if data[i] == ',' {
			i++
		}
		if k == key {
			if !replaced {
				add(kv, value)
				replaced = true
			}
			continue
		}
		add(rawKey, compact(v))
	}
	if !replaced {
		add(kv, value)
	}
	return append(out, '}'), nil
}

// ---- lip.* (spec §4.1) ----

// Hello is lip.hello: the shell's first frame on /lip/ws.
type Hello struct {
	Shell   string   `json:"shell"`
	Version string   `json:"version"`
	Window  string   `json:"window"`
	Resume  *uint64  `json:"resume,omitempty"` // last down seq the shell applied
	Medium  string   `json:"medium"`           // "screen"
	Caps    []string `json:"caps"`
}

// UniqueInfo names the unique in lip.welcome.
type UniqueInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Title   string `json:"title"`
}

// Limits are the host's limits announced in lip.welcome.
type Limits struct {
	MaxEnvelopeBytes int   `json:"maxEnvelopeBytes"`
	MaxBatchBytes    int   `json:"maxBatchBytes"`
	MaxBatchLen      int   `json:"maxBatchLen"`
	RatePerSecond    int   `json:"ratePerSecond"`
	RateBurst        int   `json:"rateBurst"`
	UploadMaxBytes   int64 `json:"uploadMaxBytes"`
	PingSeconds      int   `json:"pingSeconds"`
}

// DefaultLimits are the limits of spec §2, §6 and §8.2.
func DefaultLimits() Limits {
	return Limits{MaxEnvelopeBytes: MaxEnvelopeBytes, MaxBatchBytes: MaxBatchBytes, MaxBatchLen: MaxBatchLen,
		RatePerSecond: 200, RateBurst: 400, UploadMaxBytes: 25 << 20, PingSeconds: 20}
}

// SessionInfo describes a (resumed) saved session in lip.welcome.
type SessionInfo struct {
	ID      string `json:"id"`
	Summary string `json:"summary,omitempty"`
	Handoff bool   `json:"handoff"`
	Resumed bool   `json:"resumed,omitempty"`
}

// Welcome is lip.welcome: the host's answer to hello.
type Welcome struct {
	Host    string         `json:"host"`
	Version string         `json:"version"`
	Window  string         `json:"window"`
	Unique  UniqueInfo     `json:"unique"`
	Session *SessionInfo   `json:"session,omitempty"`
	Persona *EntityPersona `json:"persona,omitempty"`
	Theme   *UITheme       `json:"theme,omitempty"`
	Limits  Limits         `json:"limits"`
}

// Ready is lip.ready: the unique's SDK finished loading.
type Ready struct{}

// Ack is lip.ack: the shell applied these down-commands.
type Ack struct {
	IDs []string `json:"ids"`
}

// ErrorData is lip.error's data: a §12 code, a message, and the id it answers.
type ErrorData struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Re      string `json:"re,omitempty"`
}

// Expired is lip.expired: down-commands dropped by ttl before delivery.
type Expired struct {
	IDs []string `json:"ids"`
}

// Ping is lip.ping (keep-alive every 20 s).
type Ping struct{}

// Pong is lip.pong.
type Pong struct{}

// ---- session.* (spec §4.2) ----

// Close and closed reasons.
const (
	ReasonHuman   = "human"
	ReasonHandoff = "handoff"
	ReasonClaude  = "claude"
	ReasonCrash   = "crash"
	ReasonHost    = "host"
)

// SessionOpen is session.open (host, up): the window is up.
type SessionOpen struct {
	Unique  string `json:"unique"`
	Window  string `json:"window"`
	Resumed string `json:"resumed,omitempty"` // saved session id
}

// SessionClose is session.close (down): the window must close.
// Reason: handoff, claude or host.
type SessionClose struct {
	Reason string `json:"reason"`
}

// SessionClosed is session.closed (host, up).
// Reason: human, handoff, claude, crash or host.
type SessionClosed struct {
	Reason string `json:"reason"`
}

// SessionFocus is session.focus (shell, up; coalesced 400 ms).
type SessionFocus struct{}

// SessionBlur is session.blur (shell, up; coalesced 400 ms).
type SessionBlur struct{}

// SessionSaved is session.saved (host, up): an export or snapshot was saved.
type SessionSaved struct {
	ID      string `json:"id"`
	Unique  string `json:"unique"`
	Summary string `json:"summary"`
	Handoff bool   `json:"handoff"`
}

// ---- entity.* (seed §3.2) ----

// Moods of entity.mood.
var moods = [...]string{"idle", "happy", "curious", "thinking", "busy", "proud", "sleepy", "alert"}

// Moods lists the companion moods of seed §3.2.
func Moods() []string { return append([]string(nil), moods[:]...) }

// Reactions of entity.react (seed §3.2).
var reactions = [...]string{"dizzy", "whoa", "startled", "gasp", "oops", "wink", "cheer", "blush", "boop",
	"yawn", "peek", "nod", "shake-no", "wave", "spin", "dance", "disco", "sparkle"}

// Reactions lists the expressions of entity.react.
func Reactions() []string { return append([]string(nil), reactions[:]...) }

// EntitySummon is entity.summon (up): right click / hotkey at x,y; context is
// whatever the unique attached.
type EntitySummon struct {
	X       float64         `json:"x"`
	Y       float64         `json:"y"`
	Context json.RawMessage `json:"context,omitempty"`
}

// EntityDismiss is entity.dismiss (up).
type EntityDismiss struct{}

// EntityClick is entity.click (up): the human clicked the companion.
type EntityClick struct {
	X       float64         `json:"x"`
	Y       float64         `json:"y"`
	Context json.RawMessage `json:"context,omitempty"`
}

// EntityPick is entity.pick (up): the human picked a suggestion.
type EntityPick struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Region is one cell of the 4×4 grid in entity.profile (row, col 0–3) with
// the time the pointer spent there.
type Region struct {
	Row int   `json:"row"`
	Col int   `json:"col"`
	Ms  int64 `json:"ms"`
}

// EntityProfile is entity.profile (up): aggregated interaction stats, at
// most every 60 s and on close. Never raw moves.
type EntityProfile struct {
	Pace      float64  `json:"pace"`      // px/s, median pointer speed
	ClickRate float64  `json:"clickRate"` // clicks/min
	Dwell     float64  `json:"dwell"`     // ms, median between moves
	Regions   []Region `json:"regions"`   // top 5 of a 4×4 grid by time
	IdleMs    int64    `json:"idleMs"`
	SessionMs int64    `json:"sessionMs"`
	Keys      float64  `json:"keys"` // keystrokes/min (counts only)
}

// EntitySecret is entity.secret (up): a secret move was discovered.
type EntitySecret struct {
	Name string `json:"name"`
}

// EntitySay is entity.say (down): a speech bubble (ttl default 6000 ms).
type EntitySay struct {
	Text string `json:"text"`
	Mood string `json:"mood,omitempty"`
	TTL  int64  `json:"ttl,omitempty"`
}

// EntityMood is entity.mood (down).
type EntityMood struct {
	Mood string `json:"mood"`
}

// Suggestion is one item of entity.suggest.
type Suggestion struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Hint  string `json:"hint,omitempty"`
}

// EntitySuggest is entity.suggest (down): populate the click menu.
type EntitySuggest struct {
	Items   []Suggestion `json:"items"`
	Replace bool         `json:"replace,omitempty"`
}

// EntityMove is entity.move (down): either a point (X and Y) or To:
// "cursor", "center" or a CSS selector.
type EntityMove struct {
	X  *float64 `json:"x,omitempty"`
	Y  *float64 `json:"y,omitempty"`
	To string   `json:"to,omitempty"`
}

// MoveTo is entity.move to a point.
func MoveTo(x, y float64) EntityMove { return EntityMove{X: &x, Y: &y} }

// EntityShow is entity.show (down).
type EntityShow struct{}

// EntityHide is entity.hide (down).
type EntityHide struct{}

// EntityPersona is entity.persona (down): look and behaviour.
type EntityPersona struct {
	Name   string         `json:"name"`
	Traits map[string]any `json:"traits"`
}

// EntityReact is entity.react (down): a short expression.
type EntityReact struct {
	Name string `json:"name"`
	Ms   int64  `json:"ms,omitempty"`
}

// ---- chat.* (seed §3.3) ----

// Attachment is a file attached to a chat message.
type Attachment struct {
	Path string `json:"path"`
	Mime string `json:"mime"`
}

// ChatMessage is chat.message (up).
type ChatMessage struct {
	Text        string       `json:"text"`
	Attachments []Attachment `json:"attachments,omitempty"`
}

// ChatOpen is chat.open (down).
type ChatOpen struct{}

// ChatClose is chat.close (down).
type ChatClose struct{}

// ChatSay is chat.say (down): one chunk of a reply streamed with the same re.
type ChatSay struct {
	Text string `json:"text"`
	Seq  int    `json:"seq,omitempty"`
	Done bool   `json:"done,omitempty"`
}

// ChatTyping is chat.typing (down).
type ChatTyping struct {
	On bool `json:"on"`
}

// ---- component.* (seed §3.4) ----

// Slots of component.create.
const (
	SlotDock   = "dock"
	SlotFloat  = "float"
	SlotPanel  = "panel"
	SlotInline = "inline"
)

// Point is a position in CSS pixels.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// ComponentCreate is component.create (down). Props is a JSON object; for
// the built-in types build it with NewComponent.
type ComponentCreate struct {
	ID    string          `json:"id"`
	Type  string          `json:"type"`
	Props json.RawMessage `json:"props"`
	Slot  string          `json:"slot,omitempty"`
	At    *Point          `json:"at,omitempty"`
}

// ComponentUpdate is component.update (down): props merged into the
// component's props.
type ComponentUpdate struct {
	ID    string          `json:"id"`
	Props json.RawMessage `json:"props"`
}

// ComponentRemove is component.remove (down).
type ComponentRemove struct {
	ID string `json:"id"`
}

// Component actions (spec §4.3).
const (
	ActionChange  = "change"
	ActionCommit  = "commit"
	ActionSelect  = "select"
	ActionSubmit  = "submit"
	ActionCancel  = "cancel"
	ActionCopy    = "copy"
	ActionDrop    = "drop"
	ActionDismiss = "dismiss"
)

// ComponentAction is component.action (up).
type ComponentAction struct {
	ID     string          `json:"id"`
	Action string          `json:"action"`
	Value  json.RawMessage `json:"value,omitempty"`
}

// ---- media.* (seed §3.5) ----

// MediaImage is media.image (up): an uploaded image, by path.
type MediaImage struct {
	Path        string `json:"path"`
	W           int    `json:"w"`
	H           int    `json:"h"`
	Mime        string `json:"mime"`
	Bytes       int64  `json:"bytes"`
	Source      string `json:"source"` // paste, drop or file
	ComponentID string `json:"componentId,omitempty"`
}

// ---- ui.* (seed §3.6) ----

// Toast levels.
const (
	LevelInfo  = "info"
	LevelOK    = "ok"
	LevelWarn  = "warn"
	LevelError = "error"
)

// UIToast is ui.toast (down); ttl default 4000 ms.
type UIToast struct {
	Text  string `json:"text"`
	Level string `json:"level,omitempty"`
	TTL   int64  `json:"ttl,omitempty"`
}

// UITheme is ui.theme (down): a theme name and --lets-* CSS variable
// overrides (see CheckThemeVar).
type UITheme struct {
	Name string            `json:"name,omitempty"` // light, dark or system
	Vars map[string]string `json:"vars,omitempty"`
}

func (Hello) LIPType() string           { return TypeHello }
func (Welcome) LIPType() string         { return TypeWelcome }
func (Ready) LIPType() string           { return TypeReady }
func (Ack) LIPType() string             { return TypeAck }
func (ErrorData) LIPType() string       { return TypeError }
func (Expired) LIPType() string         { return TypeExpired }
func (Ping) LIPType() string            { return TypePing }
func (Pong) LIPType() string            { return TypePong }
func (SessionOpen) LIPType() string     { return TypeSessionOpen }
func (SessionClose) LIPType() string    { return TypeSessionClose }
func (SessionClosed) LIPType() string   { return TypeSessionClosed }
func (SessionFocus) LIPType() string    { return TypeSessionFocus }
func (SessionBlur) LIPType() string     { return TypeSessionBlur }
func (SessionSaved) LIPType() string    { return TypeSessionSaved }
func (EntitySummon) LIPType() string    { return TypeEntitySummon }
func (EntityDismiss) LIPType() string   { return TypeEntityDismiss }
func (EntityClick) LIPType() string     { return TypeEntityClick }
func (EntityPick) LIPType() string      { return TypeEntityPick }
func (EntityProfile) LIPType() string   { return TypeEntityProfile }
func (EntitySecret) LIPType() string    { return TypeEntitySecret }
func (EntitySay) LIPType() string       { return TypeEntitySay }
func (EntityMood) LIPType() string      { return TypeEntityMood }
func (EntitySuggest) LIPType() string   { return TypeEntitySuggest }
func (EntityMove) LIPType() string      { return TypeEntityMove }
func (EntityShow) LIPType() string      { return TypeEntityShow }
func (EntityHide) LIPType() string      { return TypeEntityHide }
func (EntityPersona) LIPType() string   { return TypeEntityPersona }
func (EntityReact) LIPType() string     { return TypeEntityReact }
func (ChatMessage) LIPType() string     { return TypeChatMessage }
func (ChatOpen) LIPType() string        { return TypeChatOpen }
func (ChatClose) LIPType() string       { return TypeChatClose }
func (ChatSay) LIPType() string         { return TypeChatSay }
func (ChatTyping) LIPType() string      { return TypeChatTyping }
func (ComponentCreate) LIPType() string { return TypeComponentCreate }
func (ComponentUpdate) LIPType() string { return TypeComponentUpdate }
func (ComponentRemove) LIPType() string { return TypeComponentRemove }
func (ComponentAction) LIPType() string { return TypeComponentAction }
func (MediaImage) LIPType() string      { return TypeMediaImage }
func (UIToast) LIPType() string         { return TypeUIToast }
func (UITheme) LIPType() string         { return TypeUITheme }
