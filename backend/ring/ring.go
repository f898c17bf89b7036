// Package ring is the host's up-event ring (spec lip-1 §5, seed §5): a
// bounded, seq-numbered buffer of up-events with an epoch per host run,
// named cursors that persist through a small interface, filtered listen that
// blocks with notification wake-up (no polling), gap reports, and the
// coalescing rules applied before events enter the ring.
//
// The package is pure: time comes from an injected Clock, persistence from
// an injected CursorStore, and it starts no goroutines.
//
// # Complexity
//
// Let n be the ring size, k the number of types in a listen filter (at most
// MaxTypes) and r the number of events a listen returns.
//
//   - Append: amortised O(1); O(log n + m) when it coalesces (m = events
//     appended after the replaced one, small: it is less than 400 ms old),
//     plus O(1) per eviction.
//   - Listen: O(k·log n + r·k). Events live in seq order in one list and in
//     per-type, per-window and per-window-and-type lists, so a filtered
//     listen jumps straight to matching events: events it does not return
//     cost nothing, however many there are. Without filters it is
//     O(log n + r).
//   - Memory: O(n) entries, each in at most 4 lists.
package ring

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/lip"
)

// Defaults and bounds (spec §5).
const (
	DefaultCapacity = 2000
	DefaultWait     = 25 * time.Second
	MaxWait         = 50 * time.Second
	DefaultMax      = 100
	MaxMax          = 2000
	MaxTypes        = 32
	// CoalesceWindow is how close a repeated coalescable event must follow
	// the previous one to replace it.
	CoalesceWindow = 400 * time.Millisecond
	// DefaultMaxCursors bounds the named cursors; the least recently used
	// one (never claude or hook) is forgotten beyond it.
	DefaultMaxCursors = 256
)

// Well-known cursor names.
const (
	CursorClaude = "claude"
	CursorHook   = "hook"
)

// ErrClosed is returned by Listen after Close.
var ErrClosed = errors.New("ring: closed (the host is stopping)")

// Config configures a Ring. The zero value works (capacity 2000, random
// epoch, system clock, no persistence).
type Config struct {
	Capacity   int         // up-events kept; default 2000
	Epoch      string      // id of this host run; default: 16 random hex digits
	Clock      clock.Clock // default clock.Real()
	Store      CursorStore // where cursors persist; nil: memory only
	MaxCursors int         // default 256
	Logger     *slog.Logger
}

// Ring is the up-event ring. Safe for concurrent use.
type Ring struct {
	mu         sync.Mutex
	capacity   int
	epoch      string
	clock      clock.Clock
	store      CursorStore
	maxCursors int
	log        *slog.Logger

	live        deque             // every live entry, ascending seq
	index       map[string]*deque // "t\x00type", "w\x00win", "wt\x00win\x00type"
	coal        map[string]*entry // coalescing key → latest entry with it
	lastSeq     uint64            // last seq assigned
	evicted     uint64            // entries evicted so far (capacity)
	lastEvicted uint64            // seq of the last evicted entry
	readThrough uint64            // highest cursor position (events ≤ it are read)
	cursors     map[string]*cursor
	notify      chan struct{} // closed and replaced on every change
	closed      bool
	waiting     int // listeners blocked right now

	saveMu   sync.Mutex
	gen      uint64 // bumped on every cursor change (under mu)
	savedGen uint64 // last generation handed to the store (under saveMu)
}

type entry struct {
	env     lip.Envelope
	seq     uint64
	at      time.Time // arrival on the ring's clock
	n       int       // events merged into this one (1 = none)
	key     string    // coalescing key, "" when not coalescable
	keys    [3]string // index keys
	evicted bool
	rank    uint64 // evicted count including this entry, once evicted
}

type cursor struct {
	name  string
	pos   uint64 // last seq read
	ent   *entry // the entry at pos when it was set (nil: none)
	rank0 uint64 // entries evicted at or below pos when ent is nil
	used  time.Time
}

// New returns an empty ring; cursors saved by cfg.Store are restored (at
// their position when the saved epoch equals this one, else at the oldest
// event, spec §5).
func New(cfg Config) *Ring {
	r := &Ring{
		capacity:   cfg.Capacity,
		epoch:      cfg.Epoch,
		clock:      clock.Or(cfg.Clock),
		store:      cfg.Store,
		maxCursors: cfg.MaxCursors,
		log:        cfg.Logger,
		index:      make(map[string]*deque),
		coal:       make(map[string]*entry),
		cursors:    make(map[string]*cursor),
		notify:     make(chan struct{}),
	}
	if r.capacity <= 0 {
		r.capacity = DefaultCapacity
	}
	if r.epoch == "" {
		r.epoch = NewEpoch()
	}
	if r.maxCursors <= 0 {
		r.maxCursors = DefaultMaxCursors
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.store != nil {
		saved, err := r.store.Load()
		if err != nil {
			r.log.Warn("ring: saved cursors unreadable; starting every cursor at the oldest event", "err", err)
		}
		now := r.clock.Now()
		for name, pos := range saved.Cursors {
			if !ValidCursorName(name) {
				continue
			}
			c := &cursor{name: name, used: now}
			if saved.Epoch == r.epoch {
				c.pos = pos
			}
			r.cursors[name] = c
		}
	}
	return r
}

// NewEpoch returns a fresh random epoch id (16 hex digits).
func NewEpoch() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Epoch is this ring's epoch (new per host start).
func (r *Ring) Epoch() string { return r.epoch }

// Stats describes the ring for /lip/status.
type Stats struct {
	Epoch    string            `json:"epoch"`
	Capacity int               `json:"capacity"`
	Size     int               `json:"size"`
	Oldest   uint64            `json:"oldest"` // seq of the oldest live event, 0 when empty
	Newest   uint64            `json:"newest"` // last seq assigned, 0 when none
	Evicted  uint64            `json:"evicted"`
	Waiting  int               `json:"waiting"` // listeners blocked right now
	Cursors  map[string]uint64 `json:"cursors"`
}

// Stats returns the ring's size, bounds and cursor positions.
func (r *Ring) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Stats{Epoch: r.epoch, Capacity: r.capacity, Size: r.live.len(), Newest: r.lastSeq, Evicted: r.evicted, Waiting: r.waiting,
		Cursors: make(map[string]uint64, len(r.cursors))}
	if f := r.live.front(); f != nil {
		s.Oldest = f.seq
	}
	for n, c := range r.cursors {
		s.Cursors[n] = c.pos
	}
	return s
}

// Close wakes every blocked Listen (they return ErrClosed) and makes later
// Listens fail. Append keeps working.
func (r *Ring) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		r.broadcast()
	}
}

func (r *Ring) broadcast() {
	close(r.notify)
	r.notify = make(chan struct{})
}

// ---- append and coalescing ----

// Appended tells what Append did with an event.
type Appended struct {
	Seq       uint64       // the event's seq (0 when dropped)
	Dropped   bool         // a pointer move: never enters the ring
	Coalesced int          // N of data._coalesced when it replaced earlier events, else 0
	Envelope  lip.Envelope // the stored envelope (with seq and _coalesced)
}

// Append stores an up-event the host accepted and stamped (from, win, ts):
// it gets the next seq, except that
//
//   - pointer moves (IsPointerMove) never enter the ring;
//   - a coalescable event (CoalesceKey) replaces a still-unread previous
//     event with the same key that arrived less than 400 ms before it; the
//     survivor is the new event, at the end of the ring with a new seq and
//     data._coalesced: N (N events merged). "Unread" means no cursor has
//     read past it yet.
//
// When the ring is full the oldest event is evicted. Blocked listeners wake.
func (r *Ring) Append(env lip.Envelope) Appended {
	if IsPointerMove(env.Type) {
		return Appended{Dropped: true}
	}
	now := r.clock.Now()
	key := CoalesceKey(&env)
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 1
	if key != "" {
		if prev := r.coal[key]; prev != nil && !prev.evicted && prev.seq > r.readThrough && now.Sub(prev.at) < CoalesceWindow && now.Sub(prev.at) >= 0 {
			n = prev.n + 1
			r.unlink(prev)
		}
	}
	env = env.Clone()
	if n > 1 {
		if d, err := lip.SetDataField(env.Data, "_coalesced", []byte(strconv.Itoa(n))); err == nil {
			env.Data = d
		}
	}
	r.lastSeq++
	env.Seq = r.lastSeq
	e := &entry{env: env, seq: r.lastSeq, at: now, n: n, key: key}
	e.keys = [3]string{"t\x00" + env.Type, "w\x00" + env.Win, "wt\x00" + env.Win + "\x00" + env.Type}
	r.live.push(e)
	for _, k := range e.keys {
		d := r.index[k]
		if d == nil {
			d = &deque{}
			r.index[k] = d
		}
		d.push(e)
	}
	if key != "" {
		r.coal[key] = e
	}
	for r.live.len() > r.capacity {
		r.evictFront()
	}
	r.broadcast()
	out := Appended{Seq: e.seq, Envelope: e.env}
	if n > 1 {
		out.Coalesced = n
	}
	return out
}

// unlink removes a coalesced-away entry from every list.
func (r *Ring) unlink(e *entry) {
	r.live.remove(e)
	for _, k := range e.keys {
		if d := r.index[k]; d != nil {
			d.remove(e)
			if d.len() == 0 {
				delete(r.index, k)
			}
		}
	}
	if r.coal[e.key] == e {
		delete(r.coal, e.key)
	}
}

func (r *Ring) evictFront() {
	e := r.live.popFront()
	for _, k := range e.keys {
		if d := r.index[k]; d != nil {
			if d.front() == e {
				d.popFront()
			} else {
				d.remove(e) // cannot happen: the oldest entry leads every list it is in
			}
			if d.len() == 0 {
				delete(r.index, k)
			}
		}
	}
	if e.key != "" && r.coal[e.key] == e {
		delete(r.coal, e.key)
	}
	r.evicted++
	e.evicted = true
	e.rank = r.evicted
	e.env = lip.Envelope{} // a cursor may still point here; drop the payload
	r.lastEvicted = e.seq
}

// IsPointerMove reports whether typ is a pointer-move type, which never
// enters the ring (spec §5): a last segment "pointermove", "mousemove",
// "pointer-move" or "mouse-move", or ending in ".pointer.move" or
// ".mouse.move" (e.g. "entity.pointer.move", "graph.pointermove").
func IsPointerMove(typ string) bool {
	last := typ
	if i := strings.LastIndexByte(typ, '.'); i >= 0 {
		last = typ[i+1:]
	}
	switch last {
	case "pointermove", "mousemove", "pointer-move", "mouse-move":
		return true
	}
	return strings.HasSuffix(typ, ".pointer.move") || strings.HasSuffix(typ, ".mouse.move")
}

// CoalesceKey is the key under which an event coalesces, or "" when it does
// not (spec §5): a type whose last segment is "changed", component.action
// with action "change" (per component id, so two sliders do not merge), and
// session.focus / session.blur — each per window and type.
func CoalesceKey(e *lip.Envelope) string {
	switch {
	case e.Type == lip.TypeSessionFocus, e.Type == lip.TypeSessionBlur, strings.HasSuffix(e.Type, ".changed"):
		return e.Win + "\x00" + e.Type
	case e.Type == lip.TypeComponentAction:
		var a struct {
			ID     string `json:"id"`
			Action string `json:"action"`
		}
		if lip.DecodeData(e, &a) == nil && a.Action == lip.ActionChange {
			return e.Win + "\x00" + e.Type + "\x00" + a.ID
		}
	}
	return ""
}

// ---- cursors ----

// ValidCursorName reports whether name matches ^[a-z][a-z0-9-]{0,31}$.
func ValidCursorName(name string) bool {
	if len(name) < 1 || len(name) > 32 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
			return false
		}
	}
	return true
}

// cursorLocked returns the named cursor, creating it at the oldest event.
func (r *Ring) cursorLocked(name string, now time.Time) *cursor {
	if c := r.cursors[name]; c != nil {
		c.used = now
		return c
	}
	if len(r.cursors) >= r.maxCursors {
		r.forgetLRU()
	}
	c := &cursor{name: name, used: now, rank0: r.evicted}
	if f := r.live.front(); f != nil {
		c.pos = f.seq - 1
	} else {
		c.pos = r.lastSeq
	}
	r.cursors[name] = c
	return c
}

func (r *Ring) forgetLRU() {
	var old *cursor
	for _, c := range r.cursors {
		if c.name == CursorClaude || c.name == CursorHook {
			continue
		}
		if old == nil || c.used.Before(old.used) {
			old = c
		}
	}
	if old != nil {
		delete(r.cursors, old.name)
	}
}

// Position returns a cursor's position (last seq read) and whether it exists.
func (r *Ring) Position(name string) (uint64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.cursors[name]
	if c == nil {
		return 0, false
	}
	return c.pos, true
}

// setPos moves a cursor forward to pos (never back).
func (r *Ring) setPos(c *cursor, pos uint64) {
	if pos <= c.pos {
		return
	}
	c.pos = pos
	c.ent = nil
	c.rank0 = r.evicted
	// The entry at pos, when live, lets a later gap count evictions exactly.
	if i := r.live.search(pos - 1); i < r.live.len() && r.live.at(i).seq == pos {
		c.ent = r.live.at(i)
	}
	if pos > r.readThrough {
		r.readThrough = pos
	}
	r.gen++
}

// gapLocked reports the events evicted beyond a cursor's position.
func (r *Ring) gapLocked(c *cursor) *Gap {
	if r.lastEvicted <= c.pos {
		return nil
	}
	below := c.rank0
	if c.ent != nil {
		if !c.ent.evicted {
			return nil
		}
		below = c.ent.rank
	}
	lost := r.evicted - below
	if lost == 0 {
		return nil
	}
	return &Gap{From: c.pos + 1, To: r.lastEvicted, Lost: lost}
}

// ---- listen ----

// Query is one listen call (spec §5, §8.1). Build it with ParseListenQuery
// or ParseListenJSON from untrusted input.
type Query struct {
	Cursor string        // cursor name; default "claude"
	Wait   time.Duration // block up to this long when nothing matches (≤ 50 s)
	Max    int           // at most this many events; default 100
	Types  []string      // only these types (exact); empty: all
	Window string        // only events from this window; empty: all
	// Beyond names another cursor; only events after its position are
	// returned (it is not moved). The prompt hook reads with cursor "hook"
	// beyond "claude" so Claude is not told twice.
	Beyond string
}

// Gap reports events that fell out of the ring before the cursor read them:
// seqs From..To were skipped and Lost events among them were evicted
// (sequence numbers retired by coalescing are not counted: their content
// lives on in a later event).
type Gap struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
	Lost uint64 `json:"lost"`
}

// Result is a listen answer: {events, cursor, seq, epoch, gap?, pending}.
type Result struct {
	Events  []lip.Envelope `json:"events"`
	Cursor  string         `json:"cursor"`
	Seq     uint64         `json:"seq"` // the cursor's new position
	Epoch   string         `json:"epoch"`
	Gap     *Gap           `json:"gap,omitempty"`
	Pending int            `json:"pending"` // events after the cursor, any type or window
}

// Listen returns the events after the query's cursor that match its
// filters, at most q.Max, and moves the cursor past everything it scanned:
// to the last returned event when Max was reached, else to the newest event.
// When nothing matches (and there is no gap to report) it blocks up to
// q.Wait for a matching event; wake-up is by notification from Append, so a
// blocked listener returns as soon as a matching event is appended. Several
// listeners may wait at once; on one cursor each event is returned once.
// It returns ctx.Err() when ctx ends while waiting, ErrClosed after Close.
func (r *Ring) Listen(ctx context.Context, q Query) (Result, error) {
	q, err := q.normalize()
	if err != nil {
		return Result{}, err
	}
	var timer clock.Timer
	timedOut := false
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	blocked := false
	for {
		r.mu.Lock()
		if blocked {
			r.waiting--
			blocked = false
		}
		if r.closed {
			r.mu.Unlock()
			return Result{}, ErrClosed
		}
		res, found := r.scanLocked(q, r.clock.Now())
		if found || q.Wait <= 0 || timedOut {
			res = r.commitLocked(q, res)
			r.mu.Unlock()
			r.save()
			return res, nil
		}
		wake := r.notify
		r.waiting++
		blocked = true
		r.mu.Unlock()
		if timer == nil {
			timer = r.clock.NewTimer(q.Wait)
		}
		select {
		case <-wake:
		case <-timer.C():
			timedOut = true
		case <-ctx.Done():
			r.mu.Lock()
			r.waiting--
			r.mu.Unlock()
			return Result{}, ctx.Err()
		}
	}
}

// scanLocked collects matching events after the cursor. found is true when
// there are events or a gap to report.
func (r *Ring) scanLocked(q Query, now time.Time) (Result, bool) {
	c := r.cursorLocked(q.Cursor, now)
	res := Result{Cursor: q.Cursor, Epoch: r.epoch, Gap: r.gapLocked(c)}
	start := c.pos
	if q.Beyond != "" && q.Beyond != q.Cursor {
		if b := r.cursors[q.Beyond]; b != nil && b.pos > start {
			start = b.pos
		}
	}
	lists := r.listsFor(q)
	heads := make([]int, len(lists))
	avail := 0
	for i, l := range lists {
		heads[i] = l.search(start)
		avail += l.len() - heads[i]
	}
	res.Events = make([]lip.Envelope, 0, min(q.Max, avail))
	for len(res.Events) < q.Max {
		best := -1
		var bestSeq uint64
		for i, l := range lists {
			if heads[i] < l.len() {
				if s := l.at(heads[i]).seq; best < 0 || s < bestSeq {
					best, bestSeq = i, s
				}
			}
		}
		if best < 0 {
			break
		}
		res.Events = append(res.Events, lists[best].at(heads[best]).env)
		heads[best]++
	}
	return res, len(res.Events) > 0 || res.Gap != nil
}

// listsFor picks the lists a query reads: the whole ring, one window, or one
// list per type (per window and type when both filter).
func (r *Ring) listsFor(q Query) []*deque {
	switch {
	case len(q.Types) == 0 && q.Window == "":
		return []*deque{&r.live}
	case len(q.Types) == 0:
		if d := r.index["w\x00"+q.Window]; d != nil {
			return []*deque{d}
		}
		return nil
	}
	out := make([]*deque, 0, len(q.Types))
	for _, t := range q.Types {
		k := "t\x00" + t
		if q.Window != "" {
			k = "wt\x00" + q.Window + "\x00" + t
		}
		if d := r.index[k]; d != nil {
			out = append(out, d)
		}
	}
	return out
}

// commitLocked advances the cursor past what was scanned and fills pending.
func (r *Ring) commitLocked(q Query, res Result) Result {
	c := r.cursors[q.Cursor]
	pos := r.lastSeq
	if len(res.Events) >= q.Max {
		pos = res.Events[len(res.Events)-1].Seq
	}
	r.setPos(c, pos)
	res.Seq = c.pos
	res.Pending = r.live.len() - r.live.search(c.pos)
	return res
}

func (q Query) normalize() (Query, error) {
	if q.Cursor == "" {
		q.Cursor = CursorClaude
	}
	if !ValidCursorName(q.Cursor) {
		return q, fmt.Errorf("cursor %q: use 1-32 characters a-z, 0-9 and -, starting with a letter", q.Cursor)
	}
	if q.Beyond != "" && !ValidCursorName(q.Beyond) {
		return q, fmt.Errorf("beyond cursor %q: use 1-32 characters a-z, 0-9 and -, starting with a letter", q.Beyond)
	}
	if q.Wait < 0 {
		q.Wait = 0
	}
	if q.Wait > MaxWait {
		q.Wait = MaxWait
	}
	if q.Max <= 0 {
		q.Max = DefaultMax
	}
	if q.Max > MaxMax {
		q.Max = MaxMax
	}
	if len(q.Types) > MaxTypes {
		return q, fmt.Errorf("at most %d types per listen, got %d", MaxTypes, len(q.Types))
	}
	if len(q.Types) > 1 {
		seen := make(map[string]bool, len(q.Types))
		out := q.Types[:0:0]
		for _, t := range q.Types {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
		q.Types = out
	}
	return q, nil
}

// ---- persistence ----

// Saved is what a CursorStore keeps: the epoch and every cursor's position.
type Saved struct {
	Epoch   string            `json:"epoch"`
	Cursors map[string]uint64 `json:"cursors"`
}

// CursorStore persists cursors (the host keeps them in
// ~/.lets/state/cursors.json with atomic writes; see package cursorfile).
// Load of a missing file returns an empty Saved and no error.
type CursorStore interface {
	Load() (Saved, error)
	Save(Saved) error
}

// save hands the current cursors to the store when they changed since the
// last save. Called without r.mu; saves are serialised and never go back in
// time.
func (r *Ring) save() {
	if r.store == nil {
		return
	}
	r.saveMu.Lock()
	defer r.saveMu.Unlock()
	r.mu.Lock()
	gen := r.gen
	if gen == r.savedGen {
		r.mu.Unlock()
		return
	}
	s := Saved{Epoch: r.epoch, Cursors: make(map[string]uint64, len(r.cursors))}
	for n, c := range r.cursors {
		s.Cursors[n] = c.pos
	}
	r.mu.Unlock()
	if err := r.store.Save(s); err != nil {
		r.log.Warn("ring: could not save cursors; they stay in memory", "err", err)
		return
	}
	r.savedGen = gen
}
