package host

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/manifest"
)

// Limits of the shell channel (spec §6).
const (
	downQueueMax   = 1000
	upRatePerSec   = 200
	upRateBurst    = 400
	writeDeadline  = 5 * time.Second
	helloDeadline  = 5 * time.Second
	pingInterval   = 20 * time.Second
	pingMisses     = 3
	wsReadLimit    = 1 << 20
	closeNoHello   = 4401
	closeReplaced  = 4409
	closeGoingAway = 1001
)

// downItem is one down-command waiting in a window's queue until the shell
// acknowledges it. Seq is the window's delivery position: the shell reports
// the highest one it applied as lip.hello's resume.
type downItem struct {
	env  *lip.Envelope
	raw  []byte
	seq  uint64
	sent uint64 // connection generation it was last written on; 0 never
	// delivered is set once the command reached a socket: ttl no longer
	// applies.
	delivered bool
	timer     *time.Timer
}

// window is one open instance of a unique.
type window struct {
	core   *lipCore
	id     string
	unique *manifest.Unique
	name   string // unique name
	title  string
	// launch is the one-time key of the window's URL (/w/<wid>/?t=…): the
	// first load of the shell page spends it; launched says it was spent.
	launch   string
	launched bool
	// waiting says no native window (nor the app's own browser opener)
	// took the launch: the one-time URL waits for the person, who gets it
	// from the home page (waiting.go), never from the API caller that
	// opened the window.
	waiting bool
	// token authorises the shell page's assets, /lip/ws, /lip/upload and
	// /lip/run of this window only. It is minted when the shell page is
	// served and lives only in that page: the API never returns it, so
	// human acts (prompt answers, chat input) come only from the page a
	// person looks at (issue #10). "" until the page was served. Guarded
	// by lipCore.mu.
	token string
	// frameToken is exchanged on origin U for that origin's cookie.
	frameToken string
	opened     time.Time
	resumed    string // session id restored at open, if any
	// claudePID is the claude process the window is bound to (0: none):
	// set at open, moved by BindRoute (the conversation's claude was
	// started again). Read it with boundPID.
	claudePID atomic.Int64

	mu      sync.Mutex
	queue   []*downItem
	nextSeq uint64
	conn    *shellConn
	gen     uint64 // generation of conn
	ready   bool   // lip.ready seen on the current connection
	closing string // reason of a queued session.close, "" if none
	closed  bool
	session string // current saved session id
	bucket  tokenBucket
	// ask holds pending runner prompts by id.
	ask map[string]chan string
}

func (w *window) info() hostapi.Window {
	w.mu.Lock()
	defer w.mu.Unlock()
	return hostapi.Window{Window: w.id, Unique: w.name, Title: w.title, Connected: w.conn != nil, Queued: len(w.queue), Session: w.session, Opened: w.opened.UnixMilli(), ClaudePID: w.boundPID()}
}

// enqueue appends a stamped down-command. It returns the envelopes the
// queue dropped to stay bounded (oldest first), for a lip.expired report.
// onExpire runs (without the lock) when a ttl passes before delivery.
func (w *window) enqueue(e *lip.Envelope, onExpire func(ids []string)) (dropped []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.nextSeq++
	e.Seq = w.nextSeq
	it := &downItem{env: e, raw: e.AppendJSON(nil), seq: w.nextSeq}
	if e.TTL > 0 {
		it.timer = time.AfterFunc(time.Duration(e.TTL)*time.Millisecond, func() {
			if id, ok := w.expire(it); ok {
				onExpire([]string{id})
			}
		})
	}
	w.queue = append(w.queue, it)
	for len(w.queue) > downQueueMax {
		old := w.queue[0]
		w.queue[0] = nil
		w.queue = w.queue[1:]
		if old.timer != nil {
			old.timer.Stop()
		}
		dropped = append(dropped, old.env.ID)
	}
	w.wakeLocked()
	return dropped
}

// prepend puts a command in front of everything queued (the restore
// command of open {resume}).
func (w *window) prepend(e *lip.Envelope) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.nextSeq++
	e.Seq = w.nextSeq
	it := &downItem{env: e, raw: e.AppendJSON(nil), seq: w.nextSeq}
	w.queue = append([]*downItem{it}, w.queue...)
	w.wakeLocked()
}

// expire drops it when it was never delivered.
func (w *window) expire(it *downItem) (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if it.delivered {
		return "", false
	}
	for i, q := range w.queue {
		if q == it {
			w.queue = append(w.queue[:i], w.queue[i+1:]...)
			return it.env.ID, true
		}
	}
	return "", false
}

// ack removes acknowledged commands by id.
func (w *window) ack(ids []string) {
	if len(ids) == 0 {
		return
	}
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dropQueuedLocked(func(it *downItem) bool { return set[it.env.ID] })
}

// ackThrough removes every command the shell says it applied (seq ≤ last).
func (w *window) ackThroughLocked(last uint64) {
	w.dropQueuedLocked(func(it *downItem) bool { return it.seq <= last })
}

// dropQueuedLocked removes the queued commands done says are finished,
// stopping their ttl timers and keeping the order of the rest.
func (w *window) dropQueuedLocked(done func(*downItem) bool) {
	keep := w.queue[:0]
	for _, it := range w.queue {
		if done(it) {
			if it.timer != nil {
				it.timer.Stop()
			}
			continue
		}
		keep = append(keep, it)
	}
	clear(w.queue[len(keep):])
	w.queue = keep
}

// pending returns the frames not yet written on connection gen, in order,
// and marks them written. Nothing flows before lip.ready.
func (w *window) pending(gen uint64, buf [][]byte) [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gen != gen || !w.ready {
		return buf
	}
	for _, it := range w.queue {
		if it.sent == gen {
			continue
		}
		it.sent = gen
		if !it.delivered {
			it.delivered = true
			if it.timer != nil {
				it.timer.Stop()
			}
		}
		buf = append(buf, it.raw)
	}
	return buf
}

func (w *window) wakeLocked() {
	if w.conn != nil {
		w.conn.wake()
	}
}

// queuedIDs lists the queued command ids (tests and status).
func (w *window) queuedIDs() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	ids := make([]string, len(w.queue))
	for i, it := range w.queue {
		ids[i] = it.env.ID
	}
	return ids
}

// tokenBucket limits up-envelopes per window.
type tokenBucket struct {
	tokens float64
	last   time.Time
}

// take removes n tokens if it can; it reports how many it took.
func (b *tokenBucket) take(n int, now time.Time) int {
	if b.last.IsZero() {
		b.tokens = upRateBurst
	} else {
		b.tokens += now.Sub(b.last).Seconds() * upRatePerSec
		if b.tokens > upRateBurst {
			b.tokens = upRateBurst
		}
	}
	b.last = now
	took := min(n, int(b.tokens))
	if took < 0 {
		took = 0
	}
	b.tokens -= float64(took)
	return took
}

// dataObject encodes v as an envelope's data.
func dataObject(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil || len(b) == 0 || b[0] != '{' {
		return json.RawMessage("{}")
	}
	return b
}

// boundPID is the claude process the window is bound to (0: none).
func (w *window) boundPID() int { return int(w.claudePID.Load()) }
