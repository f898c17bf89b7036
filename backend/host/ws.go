package host

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/manifest"
	"github.com/lets-app/lets/backend/sessions"
)

// shellConn is one WebSocket of a window's shell page (spec §6).
type shellConn struct {
	ws    *websocket.Conn
	w     *window
	gen   uint64
	wakeC chan struct{}
	ctrl  chan []byte
	done  chan struct{}
	once  sync.Once
	// missed counts pings without an answer.
	missed atomic.Int32
	timing wsTiming
}

// wsTiming holds the channel's timers (tests shorten them).
type wsTiming struct {
	ping  time.Duration
	write time.Duration
	hello time.Duration
	// unlimited lifts the per-window rate limit (benchmarks measure the
	// ingest path itself).
	unlimited bool
}

func (c *shellConn) wake() {
	select {
	case c.wakeC <- struct{}{}:
	default:
	}
}

// sendCtrl queues a frame that is not a queued command (welcome, errors,
// pings). When the control buffer is full the frame is dropped: these are
// advisory, and a reader that slow is about to miss its write deadline.
func (c *shellConn) sendCtrl(b []byte) {
	select {
	case c.ctrl <- b:
	case <-c.done:
	default:
	}
}

// shutdown closes the connection once, with a close frame when possible.
func (c *shellConn) shutdown(code int, reason string) {
	c.once.Do(func() {
		close(c.done)
		msg := websocket.FormatCloseMessage(code, reason)
		_ = c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(100*time.Millisecond))
		_ = c.ws.Close()
	})
}

// writer delivers queued commands in order, control frames and pings. A
// write that misses its deadline closes the connection; the queue stays for
// the resume.
func (c *shellConn) writer() {
	ticker := time.NewTicker(c.timing.ping)
	defer ticker.Stop()
	var buf [][]byte
	write := func(b []byte) bool {
		_ = c.ws.SetWriteDeadline(time.Now().Add(c.timing.write))
		if err := c.ws.WriteMessage(websocket.TextMessage, b); err != nil {
			c.shutdown(closeGoingAway, "write failed")
			return false
		}
		return true
	}
	for {
		select {
		case <-c.done:
			return
		case b := <-c.ctrl:
			if !write(b) {
				return
			}
		case <-c.wakeC:
			buf = c.w.pending(c.gen, buf[:0])
			if len(buf) == 1 {
				if !write(buf[0]) {
					return
				}
			} else if len(buf) > 1 {
				// One frame holding a batch, in order.
				n := 2
				for _, b := range buf {
					n += len(b) + 1
				}
				frame := make([]byte, 0, n)
				frame = append(frame, '[')
				for i, b := range buf {
					if i > 0 {
						frame = append(frame, ',')
					}
					frame = append(frame, b...)
				}
				frame = append(frame, ']')
				if !write(frame) {
					return
				}
			}
			for i := range buf {
				buf[i] = nil
			}
		case <-ticker.C:
			if c.missed.Add(1) > pingMisses {
				c.shutdown(closeGoingAway, "no answer to three pings")
				return
			}
			if !write(c.w.core.ctrlFrame(c.w, lip.TypePing, map[string]any{})) {
				return
			}
		}
	}
}

// declared is what the emit rules need from a manifest.
func declared(m *manifest.Manifest) lip.Declared {
	d := lip.Declared{Domains: m.Domains, Export: m.Session.Export, Snapshot: m.Session.Snapshot, Restore: m.Session.Restore}
	for t := range m.Events {
		d.Events = append(d.Events, t)
	}
	for t := range m.Commands {
		d.Commands = append(d.Commands, t)
	}
	return d
}

// helloData is lip.hello's data.
type helloData struct {
	Shell   string   `json:"shell"`
	Version string   `json:"version"`
	Window  string   `json:"window"`
	Resume  *uint64  `json:"resume,omitempty"`
	Medium  string   `json:"medium"`
	Caps    []string `json:"caps"`
}

// handleWS is GET /lip/ws, authenticated by the window token.
func (s *Server) handleWS(rw http.ResponseWriter, r *http.Request, w *window) {
	up := websocket.Upgrader{
		ReadBufferSize:  16 << 10,
		WriteBufferSize: 16 << 10,
		CheckOrigin: func(r *http.Request) bool {
			// The loopback guard already refused foreign origins; a
			// WebSocket must also name ours.
			return allowedOrigin(r.Header.Get("Origin"), strconv.Itoa(s.Port()))
		},
	}
	if !s.core.enterShell() {
		http.Error(rw, "Lets is stopping", http.StatusServiceUnavailable)
		return
	}
	defer s.core.shells.Done()
	ws, err := up.Upgrade(rw, r, nil)
	if err != nil {
		return // the upgrader answered
	}
	ws.SetReadLimit(wsReadLimit)
	c := &shellConn{ws: ws, w: w, wakeC: make(chan struct{}, 1), ctrl: make(chan []byte, 64), done: make(chan struct{}), timing: s.timing}
	s.core.serveShell(c)
}

// serveShell runs the reader side of a shell connection until it closes.
func (core *lipCore) serveShell(c *shellConn) {
	w := c.w
	defer c.shutdown(closeGoingAway, "")
	_ = c.ws.SetReadDeadline(time.Now().Add(c.timing.hello))
	mt, first, err := c.ws.ReadMessage()
	if err != nil || mt != websocket.TextMessage {
		c.shutdown(closeNoHello, "the first frame must be lip.hello")
		return
	}
	hello, perr := lip.Parse(first)
	if perr == nil {
		perr = lip.Validate(&hello)
	}
	if perr != nil || hello.Type != lip.TypeHello {
		c.shutdown(closeNoHello, "the first frame must be lip.hello")
		return
	}
	var hd helloData
	_ = json.Unmarshal(hello.DataOrEmpty(), &hd)
	if hd.Window != "" && hd.Window != w.id {
		c.shutdown(4403, "this token belongs to another window")
		return
	}

	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		c.shutdown(4410, "this window was closed")
		return
	}
	old := w.conn
	w.gen++
	c.gen = w.gen
	w.conn = c
	w.ready = false
	if hd.Resume != nil {
		w.ackThroughLocked(*hd.Resume)
	}
	session := w.session
	w.mu.Unlock()
	core.changes.Notify()
	if old != nil {
		old.shutdown(closeReplaced, "replaced by a newer connection")
	}

	m := w.unique.Manifest
	welcome := map[string]any{
		"host":    "lets",
		"version": core.version,
		"window":  w.id,
		"unique":  map[string]any{"name": m.Name, "version": m.Version, "title": w.title, "domains": m.Domains},
		"limits": map[string]any{
			"envelopeBytes": lip.MaxEnvelopeBytes, "batchBytes": lip.MaxBatchBytes, "batchLen": lip.MaxBatchLen,
			"upPerSec": upRatePerSec, "upBurst": upRateBurst, "pingMs": c.timing.ping.Milliseconds(),
			"uploadBytes": core.uploadMax,
		},
		"sessionTypes": m.Session,
	}
	if session != "" {
		welcome["session"] = map[string]string{"id": session}
	}
	// The welcome is written before the writer starts, so it is the first
	// frame the shell reads.
	_ = c.ws.SetWriteDeadline(time.Now().Add(c.timing.write))
	if err := c.ws.WriteMessage(websocket.TextMessage, core.ctrlFrame(w, lip.TypeWelcome, welcome)); err != nil {
		core.detach(c)
		return
	}
	go c.writer()
	c.wake()

	// No read deadline from here on: the writer closes a shell that stays
	// silent (three unanswered pings, or a write that misses its
	// deadline), and that close ends this read. A read deadline of the same
	// length raced it, and a silent shell was closed now for the pings,
	// now without a reason.
	_ = c.ws.SetReadDeadline(time.Time{})
	for {
		mt, frame, err := c.ws.ReadMessage()
		if err != nil {
			break
		}
		if mt != websocket.TextMessage {
			c.sendCtrl(core.errorFrame(w, lip.Errorf(lip.CodeBadEnvelope, "only text frames carry envelopes"), ""))
			continue
		}
		c.missed.Store(0)
		core.ingest(c, frame)
	}
	core.detach(c)
}

// detach forgets a closed connection; a window that was asked to close is
// gone for good then.
func (core *lipCore) detach(c *shellConn) {
	c.shutdown(closeGoingAway, "")
	w := c.w
	w.mu.Lock()
	current := w.conn == c
	if current {
		w.conn = nil
		w.ready = false
	}
	reason := w.closing
	w.mu.Unlock()
	if current {
		core.changes.Notify()
	}
	if current && reason != "" {
		core.forget(w, reason)
	}
}

// ctrlFrame encodes a host frame for one window (not queued, not acked).
func (core *lipCore) ctrlFrame(w *window, typ string, data any) []byte {
	now := core.now()
	e := &lip.Envelope{LIP: lip.Version, ID: core.ids.Command(now), TS: now.UnixMilli(), Dir: lip.Down, From: "host", Type: typ, Data: dataObject(data), Win: w.id}
	return e.AppendJSON(nil)
}

func (core *lipCore) errorFrame(w *window, e *lip.Error, re string) []byte {
	data := map[string]any{"code": e.Code, "message": e.Message}
	if re != "" {
		data["re"] = re
	}
	return core.ctrlFrame(w, lip.TypeError, data)
}

// ingest handles one up-frame: an envelope or a batch.
func (core *lipCore) ingest(c *shellConn, frame []byte) {
	w := c.w
	batch, werr := lip.Decode(frame)
	if werr != nil {
		c.sendCtrl(core.errorFrame(w, werr, ""))
		return
	}
	now := core.now()
	// Protocol frames (acks, pongs, ready) are not rate limited: they keep
	// the channel healthy and cost nothing downstream.
	events := 0
	for _, it := range batch.Items {
		if it.Envelope != nil && !isChannelFrame(it.Envelope.Type) {
			events++
		}
	}
	allowed := events
	if events > 0 && !c.timing.unlimited {
		w.mu.Lock()
		allowed = w.bucket.take(events, now)
		w.mu.Unlock()
	}
	limited := 0
	for _, it := range batch.Items {
		if it.Err != nil {
			c.sendCtrl(core.errorFrame(w, it.Err, it.ID))
			continue
		}
		e := it.Envelope
		if isChannelFrame(e.Type) {
			core.channelFrame(c, e)
			continue
		}
		if allowed == 0 {
			limited++
			continue
		}
		allowed--
		core.upEvent(c, e, now)
	}
	if limited > 0 {
		c.sendCtrl(core.errorFrame(w, lip.Errorf(lip.CodeRateLimited, "%d envelope(s) dropped: at most %d per second per window (bursts of %d)", limited, upRatePerSec, upRateBurst), ""))
	}
}

func isChannelFrame(typ string) bool {
	switch typ {
	case lip.TypeAck, lip.TypePing, lip.TypePong, lip.TypeReady, lip.TypeHello, typeShellAnswer:
		return true
	}
	return false
}

// channelFrame handles the protocol frames of the shell channel itself.
func (core *lipCore) channelFrame(c *shellConn, e *lip.Envelope) {
	w := c.w
	switch e.Type {
	case lip.TypeAck:
		var d struct {
			IDs []string `json:"ids"`
		}
		_ = json.Unmarshal(e.DataOrEmpty(), &d)
		w.ack(d.IDs)
	case lip.TypePing:
		c.sendCtrl(core.ctrlFrame(w, lip.TypePong, map[string]any{}))
	case lip.TypePong:
		c.missed.Store(0)
	case lip.TypeReady:
		w.mu.Lock()
		if w.conn == c {
			w.ready = true
		}
		w.mu.Unlock()
		c.wake()
	case lip.TypeHello:
		c.sendCtrl(core.errorFrame(w, lip.Errorf(lip.CodeBadEnvelope, "lip.hello is only the first frame"), e.ID))
	case typeShellAnswer:
		if lip.ShellClaim(e.From, w.name, w.id).Kind != lip.KindShell {
			c.sendCtrl(core.errorFrame(w, lip.Errorf(lip.CodeForbidden, "only the shell answers prompts"), e.ID))
			return
		}
		var d struct {
			ID     string `json:"id"`
			Choice string `json:"choice"`
		}
		_ = json.Unmarshal(e.DataOrEmpty(), &d)
		if !w.answer(d.ID, d.Choice) {
			core.claudeAnswered(w, d.ID, d.Choice)
		}
	}
}

// upEvent checks, stamps and stores one event from the shell or the unique.
func (core *lipCore) upEvent(c *shellConn, e *lip.Envelope, now time.Time) {
	w := c.w
	m := w.unique.Manifest
	src := lip.ShellClaim(e.From, w.name, w.id)
	if perr := lip.MayEmit(src.Kind, lip.Up, e.Type, declared(m)); perr != nil {
		c.sendCtrl(core.errorFrame(w, perr, e.ID))
		return
	}
	if e.Type == lip.TypeMediaImage {
		// Uploads announce themselves (POST /lip/upload); a media.image
		// frame could point Claude at any file.
		c.sendCtrl(core.errorFrame(w, lip.Errorf(lip.CodeForbidden, "media.image is emitted by the host after POST /lip/upload"), e.ID))
		return
	}
	if derr := m.CheckEventData(e.Type, e.DataOrEmpty()); derr != nil {
		// Dropped, never in the ring: the unique hears why (spec §12 rules).
		c.sendCtrl(core.errorFrame(w, lip.Errorf(lip.CodeBadData, "%v; the event was dropped", derr), e.ID))
		return
	}
	if perr := lip.StampUp(e, src, now); perr != nil {
		c.sendCtrl(core.errorFrame(w, perr, e.ID))
		return
	}
	switch {
	case e.Type == m.Session.Export:
		core.ring.append(e, now)
		core.saveSession(w, e, sessions.Export)
		return
	case e.Type == m.Session.Snapshot:
		core.saveSession(w, e, sessions.Snapshot)
	}
	core.ring.append(e, now)
}
