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
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"
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

// NewStore returns a store for dir; the folder is created on first save.
func NewStore(dir string, opts Options) *Store {
	return &Store{dir: dir}
}

// Save stores envelope (the JSON of a LIP envelope) for unique. current is
// the window's current session id ("" if none): an export or snapshot
// updates that session when its file exists, otherwise a new session is
// made. Export sets handoff: true; a snapshot keeps the flag of the
// session it updates (false for a new one). now feeds the id.
func (s *Store) Save(unique, current string, kind Kind, envelope []byte, now time.Time) (Info, error) {
	return Info{}, errors.New("sessions: not implemented yet")
}

// Get reads one session of unique: id, or Last ("" also means Last) for
// the newest. An error wraps ErrNotFound when there is none.
func (s *Store) Get(unique, id string) (Session, error) {
	return Session{}, errors.New("sessions: not implemented yet")
}

// List returns the saved sessions of unique, newest first; unique "" lists
// every unique's. Unreadable files are skipped with a warning.
func (s *Store) List(unique string) ([]Info, error) {
	return nil, errors.New("sessions: not implemented yet")
}

// Summary computes the summary of a unique's data object: data.summary if
// it is a non-empty string, else the first SummaryMax characters of a text
// rendering of data.
func Summary(data json.RawMessage) string { return "" }
