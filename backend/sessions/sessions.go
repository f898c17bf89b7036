// Package sessions is the handoff store of LIP 1 §4.2 (seed §3.1b): a
// unique's export and snapshot events saved as
// ~/.lets/sessions/<unique>/<id>.json.
//
// Each file holds the envelope as the host received it, with data gaining
// a first key
//
//	"session": {"id": "...", "handoff": true, "saved": true, "summary": "..."}
//
// written with an ordered encoder (the rest of the envelope and of data keep
// their order and bytes). Writes are atomic (temp file + fsync + rename)
// with mode 0600; a torn or unreadable file is skipped with a warning,
// never fatal.
package sessions

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/jsonobject"
	"github.com/lets-app/lets/backend/textsafe"
)

// Kind is what kind of event is being saved.
type Kind int

const (
	// Export is the unique's export type: the human pressed "Send to
	// Claude"; the session is marked handoff: true.
	Export Kind = iota + 1
	// Snapshot is the unique's snapshot type: the window's current
	// session is updated silently; a new one is created with
	// handoff: false when the window has none.
	Snapshot
)

// SummaryMax is the length (in characters) of a summary made from the data
// when the unique gives none.
const SummaryMax = 140

// Last asks Get for the newest session of a unique.
const Last = "last"

// Errors.
var (
	// ErrNotFound: no such session (or none saved for the unique).
	ErrNotFound = errors.New("session not found")
	// ErrBadEnvelope: the envelope is not a JSON object with an object
	// (or absent) data field.
	ErrBadEnvelope = errors.New("session envelope is not valid")
)

// Info describes a saved session (the session key, plus where and when).
type Info struct {
	ID      string `json:"id"`
	Unique  string `json:"unique"`
	Handoff bool   `json:"handoff"`
	Summary string `json:"summary"`
	// Type is the envelope type that was saved last (export or snapshot).
	Type string `json:"type,omitempty"`
	// Window is the envelope's win, if it had one.
	Window string `json:"window,omitempty"`
	// TS is the envelope's ts (ms since the epoch), or the file's
	// modification time when the envelope has none.
	TS int64 `json:"ts"`
}

// Session is a saved session read back.
type Session struct {
	Info
	// Envelope is the stored envelope, data's session key first.
	Envelope json.RawMessage `json:"envelope"`
	// Payload is data without the session key: what the restore command
	// carries back to the unique.
	Payload json.RawMessage `json:"payload"`
}

// Options configure a Store.
type Options struct {
	// Log receives warnings about skipped files; nil discards them.
	Log *slog.Logger
	// NewID makes a session id; nil uses "ss_" + a ULID made from now and
	// crypto/rand. Ids must match ^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$.
	NewID func(now time.Time) string
}

// Store keeps the sessions under one folder (config.Paths.SessionsDir()).
// Safe for concurrent use; several processes may share the folder (every
// write is a whole-file rename).
type Store struct {
	dir   string
	log   *slog.Logger
	newID func(time.Time) string
	mu    sync.Mutex
}

// Limits.
const (
	// MaxFileBytes caps a session file read back (the host caps one
	// envelope at 256 KiB; this leaves room).
	MaxFileBytes = 4 << 20
	// maxGivenSummary caps a summary the unique gives, so listings stay
	// short for Claude.
	maxGivenSummary = 500
)

var (
	uniqueRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]{1,31}$`) })
	idRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$`) })
)

// NewStore returns a store for dir; folders are created on first save.
func NewStore(dir string, opts Options) *Store {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	newID := opts.NewID
	if newID == nil {
		newID = NewID
	}
	return &Store{dir: dir, log: log, newID: newID}
}

// Dir is the folder of the store.
func (s *Store) Dir() string { return s.dir }

// NewID makes "ss_" + a ULID (48-bit millisecond time, 80 random bits,
// Crockford base32), so ids sort by creation time.
func NewID(now time.Time) string {
	var b [16]byte
	ms := uint64(now.UnixMilli())
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	_, _ = rand.Read(b[6:])
	const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	bit := func(n int) byte {
		if n < 0 {
			return 0
		}
		return (b[n/8] >> (7 - n%8)) & 1
	}
	out := make([]byte, 26)
	for i := range out {
		var v byte
		for j := 0; j < 5; j++ {
			v = v<<1 | bit(i*5-2+j)
		}
		out[i] = alphabet[v]
	}
	return "ss_" + string(out)
}

func (s *Store) path(unique, id string) string {
	return filepath.Join(s.dir, unique, id+".json")
}

func checkNames(unique, id string) error {
	if !uniqueRE().MatchString(unique) {
		return fmt.Errorf("%w: unique name %q", ErrNotFound, unique)
	}
	if id != "" && !idRE().MatchString(id) {
		return fmt.Errorf("%w: session id %q", ErrNotFound, id)
	}
	return nil
}

// Save stores envelope (the JSON of a LIP envelope) for unique. current is
// the window's current session id ("" if none): an export or snapshot
// updates that session, otherwise a new session is made. Export sets
// handoff: true; a snapshot keeps the flag of the session it updates
// (false for a new one). now feeds a new id.
func (s *Store) Save(unique, current string, kind Kind, envelope []byte, now time.Time) (Info, error) {
	if kind != Export && kind != Snapshot {
		return Info{}, fmt.Errorf("sessions: unknown kind %d", kind)
	}
	if !uniqueRE().MatchString(unique) {
		return Info{}, fmt.Errorf("sessions: %q is not a unique name", unique)
	}
	if current != "" && !idRE().MatchString(current) {
		return Info{}, fmt.Errorf("sessions: %q is not a session id", current)
	}
	env, err := parseObject(envelope)
	if err != nil {
		return Info{}, fmt.Errorf("%w: %v", ErrBadEnvelope, err)
	}
	data := []jsonobject.Member{}
	if raw, ok := env.Get("data"); ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		d, err := parseObject(raw)
		if err != nil {
			return Info{}, fmt.Errorf("%w: data: %v", ErrBadEnvelope, err)
		}
		data = d.Without("session")
	}
	payload := encodeObject(data)
	summary := Summary(payload)

	s.mu.Lock()
	defer s.mu.Unlock()
	id := current
	handoff := kind == Export
	if id == "" {
		id = s.newID(now)
		if !idRE().MatchString(id) {
			return Info{}, fmt.Errorf("sessions: the id maker gave %q, which is not a valid session id", id)
		}
	} else if kind == Snapshot {
		if old, err := readSession(s.path(unique, id), unique); err == nil {
			handoff = old.Handoff
		}
	}

	sess := encodeObject([]jsonobject.Member{
		{Key: "id", Value: mustJSON(id)},
		{Key: "handoff", Value: mustJSON(handoff)},
		{Key: "saved", Value: mustJSON(true)},
		{Key: "summary", Value: mustJSON(summary)},
	})
	newData := encodeObject(append([]jsonobject.Member{{Key: "session", Value: sess}}, data...))
	env = env.Set("data", newData)
	// Indenting keeps the order and makes the file pleasant to read.
	var out bytes.Buffer
	if err := json.Indent(&out, encodeObject(env), "", "  "); err != nil {
		return Info{}, fmt.Errorf("%w: %v", ErrBadEnvelope, err)
	}
	out.WriteByte('\n')

	if err := os.MkdirAll(filepath.Join(s.dir, unique), 0o700); err != nil {
		return Info{}, fmt.Errorf("sessions: create the folder for %s: %w", unique, err)
	}
	if err := atomicfile.Write(s.path(unique, id), out.Bytes(), 0o600); err != nil {
		return Info{}, fmt.Errorf("sessions: save %s/%s: %w", unique, id, err)
	}
	info := Info{ID: id, Unique: unique, Handoff: handoff, Summary: summary}
	fillFromEnvelope(&info, env)
	if info.TS == 0 {
		info.TS = now.UnixMilli()
	}
	return info, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// fillFromEnvelope takes type, win and ts from the envelope.
func fillFromEnvelope(info *Info, env jsonobject.Object) {
	if raw, ok := env.Get("type"); ok {
		_ = json.Unmarshal(raw, &info.Type)
	}
	if raw, ok := env.Get("win"); ok {
		_ = json.Unmarshal(raw, &info.Window)
	}
	if raw, ok := env.Get("ts"); ok {
		var ts json.Number
		if json.Unmarshal(raw, &ts) == nil {
			if n, err := ts.Int64(); err == nil {
				info.TS = n
			}
		}
	}
}

// readSession reads and checks one session file.
func readSession(path, unique string) (Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return Session{}, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return Session{}, err
	}
	if len(raw) > MaxFileBytes {
		return Session{}, fmt.Errorf("larger than %d bytes", MaxFileBytes)
	}
	env, err := parseObject(raw)
	if err != nil {
		return Session{}, fmt.Errorf("not a whole JSON object: %w", err)
	}
	dataRaw, ok := env.Get("data")
	if !ok {
		return Session{}, errors.New("no data")
	}
	data, err := parseObject(dataRaw)
	if err != nil {
		return Session{}, fmt.Errorf("data: %w", err)
	}
	if len(data) == 0 || data[0].Key != "session" {
		return Session{}, errors.New("data does not start with the session key")
	}
	var meta struct {
		ID      string `json:"id"`
		Handoff bool   `json:"handoff"`
		Summary string `json:"summary"`
	}
	if err := json.Unmarshal(data[0].Value, &meta); err != nil || meta.ID == "" {
		return Session{}, errors.New("data.session has no id")
	}
	sess := Session{
		Info:     Info{ID: meta.ID, Unique: unique, Handoff: meta.Handoff, Summary: meta.Summary},
		Envelope: json.RawMessage(bytes.TrimSpace(raw)),
		Payload:  encodeObject(data[1:]),
	}
	fillFromEnvelope(&sess.Info, env)
	if sess.TS == 0 {
		if fi, err := f.Stat(); err == nil {
			sess.TS = fi.ModTime().UnixMilli()
		}
	}
	return sess, nil
}

// Get reads one session of unique: id, or Last ("" also means Last) for
// the newest. An error wraps ErrNotFound when there is none (an unreadable
// file counts as none, with a warning).
func (s *Store) Get(unique, id string) (Session, error) {
	if id == "" || id == Last {
		if err := checkNames(unique, ""); err != nil {
			return Session{}, err
		}
		list, err := s.List(unique)
		if err != nil {
			return Session{}, err
		}
		for _, info := range list {
			sess, err := readSession(s.path(unique, info.ID), unique)
			if err == nil {
				return sess, nil
			}
		}
		return Session{}, fmt.Errorf("%w: %s has no saved session yet", ErrNotFound, unique)
	}
	if err := checkNames(unique, id); err != nil {
		return Session{}, err
	}
	sess, err := readSession(s.path(unique, id), unique)
	if errors.Is(err, fs.ErrNotExist) {
		return Session{}, fmt.Errorf("%w: %s has no session %s", ErrNotFound, unique, id)
	}
	if err != nil {
		s.log.Warn("skipping an unreadable session file", "path", s.path(unique, id), "err", err)
		return Session{}, fmt.Errorf("%w: session %s of %s is unreadable (%v)", ErrNotFound, id, unique, err)
	}
	return sess, nil
}

// List returns the saved sessions of unique, newest first; unique "" lists
// every unique's. Unreadable files are skipped with a warning.
func (s *Store) List(unique string) ([]Info, error) {
	var uniques []string
	if unique != "" {
		if err := checkNames(unique, ""); err != nil {
			return nil, err
		}
		uniques = []string{unique}
	} else {
		entries, err := os.ReadDir(s.dir)
		if errors.Is(err, fs.ErrNotExist) {
			return []Info{}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("sessions: read %s: %w", s.dir, err)
		}
		for _, e := range entries {
			if e.IsDir() && uniqueRE().MatchString(e.Name()) {
				uniques = append(uniques, e.Name())
			}
		}
	}
	out := []Info{}
	for _, u := range uniques {
		entries, err := os.ReadDir(filepath.Join(s.dir, u))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			s.log.Warn("skipping an unreadable sessions folder", "dir", filepath.Join(s.dir, u), "err", err)
			continue
		}
		for _, e := range entries {
			name := e.Name()
			id, ok := strings.CutSuffix(name, ".json")
			if !ok || strings.HasPrefix(name, ".") || !e.Type().IsRegular() || !idRE().MatchString(id) {
				continue
			}
			p := filepath.Join(s.dir, u, name)
			sess, err := readSession(p, u)
			if err != nil {
				s.log.Warn("skipping an unreadable session file", "path", p, "err", err)
				continue
			}
			if sess.ID != id {
				s.log.Warn("skipping a session file whose id does not match its name", "path", p, "id", sess.ID)
				continue
			}
			out = append(out, sess.Info)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].TS != out[j].TS {
			return out[i].TS > out[j].TS
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// Summary computes the summary of a unique's data object: data.summary if
// it is a non-empty string (at most 500 characters kept), else the first
// SummaryMax characters of a text rendering of data (keys and values in
// order, the session key left out).
func Summary(data json.RawMessage) string {
	obj, err := parseObject(data)
	if err != nil {
		return truncate(textsafe.Collapse(string(data)), SummaryMax)
	}
	if raw, ok := obj.Get("summary"); ok {
		var given string
		if json.Unmarshal(raw, &given) == nil {
			if given = textsafe.Collapse(given); given != "" {
				return truncate(given, maxGivenSummary)
			}
		}
	}
	var b strings.Builder
	renderObject(&b, obj.Without("session"), 0)
	return truncate(textsafe.Collapse(b.String()), SummaryMax)
}

// renderObject writes "key: value, key: value"; nested objects in (…),
// arrays in […]. It stops early once the text is long enough.
func renderObject(b *strings.Builder, obj []jsonobject.Member, depth int) {
	for i, m := range obj {
		if b.Len() > SummaryMax*4 {
			return
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.Key)
		b.WriteString(": ")
		renderValue(b, m.Value, depth+1)
	}
}

func renderValue(b *strings.Builder, raw json.RawMessage, depth int) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || b.Len() > SummaryMax*4 {
		return
	}
	switch raw[0] {
	case '{':
		obj, err := parseObject(raw)
		if err != nil || depth > 8 {
			b.WriteString("(…)")
			return
		}
		b.WriteString("(")
		renderObject(b, obj, depth)
		b.WriteString(")")
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil || depth > 8 {
			b.WriteString("[…]")
			return
		}
		b.WriteString("[")
		for i, it := range items {
			if b.Len() > SummaryMax*4 {
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			renderValue(b, it, depth+1)
		}
		b.WriteString("]")
	case '"':
		var str string
		_ = json.Unmarshal(raw, &str)
		b.WriteString(str)
	default:
		b.Write(raw)
	}
}

// truncate keeps the first n characters (runes), without a mark.
func truncate(s string, n int) string {
	if cut := textsafe.CutRunes(s, n); cut != s {
		return strings.TrimSpace(cut)
	}
	return s
}
