// Package identitystore remembers which accent colour each agent identity had,
// so a returning agent gets the same colour on the pad (wire-protocol-1 §9.8).
//
// Identities are never written in clear: an entry's key is the lowercase hex
// SHA-256 of backend + "\x00" + session_id. The file is a small JSON document
// (version 1) rewritten atomically with mode 0600 on every Remember; its parent
// folder is created with mode 0700. A missing or corrupt file is treated as an
// empty store, never as an error.
//
// A Store is not safe for concurrent use; the daemon's owner goroutine (through
// the control plane) is its only user.
package identitystore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/lets-app/lets/backend/atomicfile"
)

const (
	// Version is the only file version this package reads and writes.
	Version = 1
	// DefaultCapacity is how many identities are kept before the least
	// recently used ones are forgotten.
	DefaultCapacity = 256
	// FileName is the file's name inside the state folder.
	FileName = "identities.json"
)

// DefaultPath is where the daemon keeps the store inside a state folder
// (config.Paths.StateDir()).
func DefaultPath(stateDir string) string { return filepath.Join(stateDir, FileName) }

// Key returns the stored key for an identity: lowercase hex SHA-256 of the
// UTF-8 bytes of backend, a NUL byte, and sessionID.
func Key(backend, sessionID string) string {
	h := sha256.New()
	h.Write([]byte(backend))
	h.Write([]byte{0})
	h.Write([]byte(sessionID))
	return hex.EncodeToString(h.Sum(nil))
}

// Options configure a Store. The zero value means DefaultCapacity and the
// wall clock.
type Options struct {
	// Capacity is the maximum number of entries kept (DefaultCapacity if ≤ 0).
	Capacity int
	// Now gives the wall-clock time recorded as last_used (time.Now if nil).
	Now func() time.Time
}

type entry struct {
	accent   string
	lastUsed float64
}

// Store is a persistent map from identity key to accent preference.
type Store struct {
	path     string // "" keeps the store in memory only
	capacity int
	now      func() time.Time
	entries  map[string]*entry
	order    []string // insertion order, used to break last_used ties
}

// Open loads the store at path. It never fails: a missing, unreadable or
// malformed file yields an empty store (the file is replaced by the next
// Remember). An empty path gives a store that is kept in memory only.
func Open(path string, opts Options) *Store {
	s := newStore(path, opts)
	if path == "" {
		return s
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return s
	}
	s.load(data)
	return s
}

// NewMemory returns a store that never touches the disk (for tests and for a
// daemon run without persistence).
func NewMemory(opts Options) *Store { return newStore("", opts) }

func newStore(path string, opts Options) *Store {
	capacity := opts.Capacity
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Store{path: path, capacity: capacity, now: now, entries: map[string]*entry{}}
}

// Path returns the file the store writes ("" for a memory store).
func (s *Store) Path() string { return s.path }

// Len returns the number of remembered identities.
func (s *Store) Len() int { return len(s.entries) }

// load fills the store from file bytes, keeping only well-formed entries.
func (s *Store) load(data []byte) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return
	}
	var version float64
	if raw, ok := top["version"]; !ok || json.Unmarshal(raw, &version) != nil || version != Version {
		return
	}
	var ids map[string]json.RawMessage
	if raw, ok := top["identities"]; !ok || json.Unmarshal(raw, &ids) != nil || ids == nil {
		return
	}
	keys := make([]string, 0, len(ids))
	for k := range ids {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the file is written with sorted keys; keep that order
	for _, k := range keys {
		var fields map[string]json.RawMessage
		if json.Unmarshal(ids[k], &fields) != nil || fields == nil {
			continue
		}
		var accent string
		if raw, ok := fields["accent"]; !ok || json.Unmarshal(raw, &accent) != nil || !isJSONString(raw) {
			continue
		}
		var lastUsed float64
		if raw, ok := fields["last_used"]; !ok || !isJSONNumber(raw) || json.Unmarshal(raw, &lastUsed) != nil {
			continue
		}
		s.entries[k] = &entry{accent: accent, lastUsed: lastUsed}
		s.order = append(s.order, k)
	}
}

func isJSONString(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '"'
}

func isJSONNumber(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'))
}

// Lookup returns the remembered accent for an identity, or "" when there is
// none (an entry whose accent is empty counts as none).
func (s *Store) Lookup(backend, sessionID string) string {
	if e, ok := s.entries[Key(backend, sessionID)]; ok {
		return e.accent
	}
	return ""
}

// Remember records accent for the identity with the current wall-clock time,
// forgets the least recently used entries beyond the capacity, and rewrites
// the file. The in-memory state is updated even when the write fails.
func (s *Store) Remember(backend, sessionID, accent string) error {
	k := Key(backend, sessionID)
	t := float64(s.now().UnixNano()) / 1e9
	if e, ok := s.entries[k]; ok {
		e.accent, e.lastUsed = accent, t
	} else {
		s.entries[k] = &entry{accent: accent, lastUsed: t}
		s.order = append(s.order, k)
	}
	s.trim()
	if s.path == "" {
		return nil
	}
	return s.save()
}

// trim drops entries with the smallest last_used (ties: earliest inserted)
// until at most capacity remain.
func (s *Store) trim() {
	excess := len(s.order) - s.capacity
	if excess <= 0 {
		return
	}
	byAge := make([]string, len(s.order))
	copy(byAge, s.order)
	sort.SliceStable(byAge, func(i, j int) bool {
		return s.entries[byAge[i]].lastUsed < s.entries[byAge[j]].lastUsed
	})
	drop := make(map[string]bool, excess)
	for _, k := range byAge[:excess] {
		drop[k] = true
		delete(s.entries, k)
	}
	kept := s.order[:0]
	for _, k := range s.order {
		if !drop[k] {
			kept = append(kept, k)
		}
	}
	s.order = kept
}

// Encode returns the file contents: two-space indented JSON with sorted keys
// and a trailing newline.
func (s *Store) Encode() []byte {
	keys := make([]string, 0, len(s.entries))
	for k := range s.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString("{\n  \"identities\": {")
	for i, k := range keys {
		e := s.entries[k]
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    ")
		writeJSONString(&b, k)
		b.WriteString(": {\n      \"accent\": ")
		writeJSONString(&b, e.accent)
		b.WriteString(",\n      \"last_used\": ")
		b.WriteString(pyFloat(e.lastUsed))
		b.WriteString("\n    }")
	}
	if len(keys) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("},\n  \"version\": ")
	b.WriteString(strconv.Itoa(Version))
	b.WriteString("\n}\n")
	return b.Bytes()
}

func (s *Store) save() error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save accent preferences: create folder %s (check its permissions): %w", dir, err)
	}
	_ = os.Chmod(dir, 0o700) // best effort, as the reference does
	if err := atomicfile.Write(s.path, s.Encode(), 0o600); err != nil {
		return fmt.Errorf("save accent preferences: %w", err)
	}
	return nil
}

func writeJSONString(b *bytes.Buffer, v string) {
	enc, err := json.Marshal(v)
	if err != nil { // unreachable for strings; keep the file valid anyway
		b.WriteString(`""`)
		return
	}
	b.Write(enc)
}

// pyFloat renders a float like Python's repr (what json.dumps writes):
// shortest round-trip digits, ".0" on integral values, exponent outside
// [1e-4, 1e16).
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	a := math.Abs(f)
	if a != 0 && (a < 1e-4 || a >= 1e16) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Go writes e+16 / e-05; Python writes e+16 / e-05 as well.
		return s
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !bytes.ContainsAny([]byte(s), ".") {
		s += ".0"
	}
	return s
}
