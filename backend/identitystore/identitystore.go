// Package identitystore remembers which accent colour each agent identity had,
// so a returning agent gets the same colour on the pad (wire-protocol-1 §9.8).
//
// Identities are never written in clear: an entry's key is the lowercase hex
// SHA-256 of backend + "\x00" + session_id. The file is a small JSON document
// (version 1) rewritten atomically (temporary file, fsync, rename) with mode
// 0600; its parent folder is created with mode 0700. A missing or corrupt file
// is treated as an empty store, never as an error.
//
// # When the file is written
//
// The reference rewrites the file, with fsync, inside every remember. The
// daemon remembers whenever an agent moves into a slot, which with more
// agents than slots is nearly every state message, so a store opened with a
// FlushDelay is write-behind instead: Remember only updates the map in
// memory, and the store's Run goroutine writes the whole file FlushDelay
// after the first unsaved change (every change until then goes into the
// same write; a change made while a write is in progress waits for that
// write too) and once more when it stops. A crash loses at most the last
// FlushDelay or so of changes, never the file: each write is atomic.
// Without a FlushDelay, Remember writes at once, as the reference does.
//
// A Store is safe for concurrent use: the daemon's owner goroutine (through
// the control plane) remembers and looks up, and the store's writer
// goroutine snapshots the map under a short lock and does the disk I/O
// outside it, so Remember and Lookup never wait for the disk.
package identitystore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
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
	// DefaultFlushDelay is the write-behind delay the daemon uses: a
	// change reaches the disk at most this long after it was made.
	DefaultFlushDelay = time.Second
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

// Options configure a Store. The zero value means DefaultCapacity, the wall
// clock, and a file written at once by every Remember.
type Options struct {
	// Capacity is the maximum number of entries kept (DefaultCapacity if ≤ 0).
	Capacity int
	// Now gives the wall-clock time recorded as last_used (time.Now if nil).
	Now func() time.Time
	// FlushDelay > 0 makes the store write-behind: Remember only records the
	// change and Run writes the file at most FlushDelay later (see the
	// package comment). 0 writes inside every Remember.
	FlushDelay time.Duration
	// After returns a channel that receives once d has passed; Run waits on
	// it for a delayed write. nil uses time.After. Tests pass a fake to
	// decide when a write is due.
	After func(d time.Duration) <-chan time.Time
	// WriteFile replaces the file with data atomically; nil uses
	// atomicfile.Write. Tests pass slow or failing writers.
	WriteFile func(path string, data []byte, perm fs.FileMode) error
	// Log receives write failures of Run (which never stop anything,
	// §9.8); nil discards them.
	Log *slog.Logger
}

type entry struct {
	accent   string
	lastUsed float64
}

// Store is a persistent map from identity key to accent preference.
type Store struct {
	path      string // "" keeps the store in memory only
	capacity  int
	now       func() time.Time
	delay     time.Duration
	after     func(time.Duration) <-chan time.Time
	writeFile func(string, []byte, fs.FileMode) error
	log       *slog.Logger

	// changed holds one pending "there is something to write" signal for
	// Run; Remember never blocks on it.
	changed chan struct{}

	mu      sync.Mutex // guards entries, order and gen; never held during I/O
	entries map[string]*entry
	order   []string // insertion order, used to break last_used ties
	gen     uint64   // number of changes made so far

	writeMu  sync.Mutex // serialises writes of the file
	savedGen uint64     // gen of the last successful write; guarded by writeMu

	failing bool // Run's last write failed (Run's goroutine only)
}

// Open loads the store at path. It never fails: a missing, unreadable or
// malformed file yields an empty store (the file is replaced by the next
// write). An empty path gives a store that is kept in memory only.
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
	s := &Store{
		path:      path,
		capacity:  opts.Capacity,
		now:       opts.Now,
		delay:     max(opts.FlushDelay, 0),
		after:     opts.After,
		writeFile: opts.WriteFile,
		log:       opts.Log,
		changed:   make(chan struct{}, 1),
		entries:   map[string]*entry{},
	}
	if s.capacity <= 0 {
		s.capacity = DefaultCapacity
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.after == nil {
		s.after = time.After
	}
	if s.writeFile == nil {
		s.writeFile = atomicfile.Write
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// Path returns the file the store writes ("" for a memory store).
func (s *Store) Path() string { return s.path }

// Len returns the number of remembered identities.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

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
	k := Key(backend, sessionID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.entries[k]; ok {
		return e.accent
	}
	return ""
}

// Remember records accent for the identity with the current wall-clock time
// and forgets the least recently used entries beyond the capacity. Without
// a FlushDelay it then rewrites the file and returns the write's error (the
// in-memory state is updated even when the write fails); with one it only
// tells Run that there is something to write, and returns nil.
func (s *Store) Remember(backend, sessionID, accent string) error {
	k := Key(backend, sessionID)
	t := float64(s.now().UnixNano()) / 1e9
	s.mu.Lock()
	if e, ok := s.entries[k]; ok {
		e.accent, e.lastUsed = accent, t
	} else {
		s.entries[k] = &entry{accent: accent, lastUsed: t}
		s.order = append(s.order, k)
	}
	s.trim()
	s.gen++
	s.mu.Unlock()
	if s.path == "" {
		return nil
	}
	if s.delay == 0 {
		return s.Flush()
	}
	select {
	case s.changed <- struct{}{}:
	default: // a signal is already pending; that write will include this change
	}
	return nil
}

// Flush writes the file now if anything changed since the last successful
// write. Concurrent calls are serialised; Remember and Lookup do not wait
// for it.
func (s *Store) Flush() error {
	if s.path == "" {
		return nil
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	gen := s.gen
	if gen == s.savedGen {
		s.mu.Unlock()
		return nil
	}
	snap := s.snapshot()
	s.mu.Unlock()
	if err := s.save(encode(snap)); err != nil {
		return err
	}
	s.savedGen = gen
	return nil
}

// Run is the write-behind writer of a store opened with a FlushDelay: after
// a change it waits FlushDelay, collecting every further change, and writes
// the file once; when ctx ends it writes what is still unsaved and returns.
// Write failures are logged and otherwise ignored (§9.8); the next change,
// or the stop, tries again. Without a FlushDelay or a path, Run only waits
// for ctx. It returns nil.
func (s *Store) Run(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			s.flushLogged()
			return nil
		case <-s.changed:
		}
		select {
		case <-ctx.Done():
			s.flushLogged()
			return nil
		case <-s.after(s.delay):
		}
		s.flushLogged()
	}
}

// flushLogged writes and reports a failure once per run of failures, so
// a full disk does not fill the log.
func (s *Store) flushLogged() {
	err := s.Flush()
	switch {
	case err != nil && !s.failing:
		s.failing = true
		s.log.Warn("could not save accent preferences; agents keep their colours until the daemon restarts, and every later change tries again",
			"path", s.path, "err", err)
	case err == nil && s.failing:
		s.failing = false
		s.log.Info("accent preferences are saved again", "path", s.path)
	}
}

// trim drops entries with the smallest last_used (ties: earliest inserted)
// until at most capacity remain; s.mu must be held.
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
	s.mu.Lock()
	snap := s.snapshot()
	s.mu.Unlock()
	return encode(snap)
}

// keyedEntry is one entry of a snapshot.
type keyedEntry struct {
	key string
	entry
}

// snapshot copies the entries; s.mu must be held.
func (s *Store) snapshot() []keyedEntry {
	snap := make([]keyedEntry, 0, len(s.entries))
	for k, e := range s.entries {
		snap = append(snap, keyedEntry{key: k, entry: *e})
	}
	return snap
}

// encode renders a snapshot as the file (the reference's json.dumps with
// indent=2 and sort_keys=True, plus a newline).
func encode(snap []keyedEntry) []byte {
	sort.Slice(snap, func(i, j int) bool { return snap[i].key < snap[j].key })
	var b bytes.Buffer
	b.Grow(64 + len(snap)*128)
	b.WriteString("{\n  \"identities\": {")
	for i, e := range snap {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    ")
		writeJSONString(&b, e.key)
		b.WriteString(": {\n      \"accent\": ")
		writeJSONString(&b, e.accent)
		b.WriteString(",\n      \"last_used\": ")
		b.WriteString(pyFloat(e.lastUsed))
		b.WriteString("\n    }")
	}
	if len(snap) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("},\n  \"version\": ")
	b.WriteString(strconv.Itoa(Version))
	b.WriteString("\n}\n")
	return b.Bytes()
}

func (s *Store) save(data []byte) error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save accent preferences: create folder %s (check its permissions): %w", dir, err)
	}
	_ = os.Chmod(dir, 0o700) // best effort, as the reference does
	if err := s.writeFile(s.path, data, 0o600); err != nil {
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
