package web

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/wire"
)

// client is one browser WebSocket (§6.1). The handler goroutine reads;
// one writer goroutine per connection sends the queue in order, the pings
// and the close frame.
type client struct {
	s        *Server
	ws       *websocket.Conn
	peer     string // IP, the lock-out key; never sent to anyone
	loopback bool

	// Guarded by s.mu.
	registered   bool
	admin        bool
	device       *device
	wantsDevices bool
	wantsLAN     bool

	// peerAddr and localAddr are the TCP ends, for the socket-owner check
	// of set_lan.
	peerAddr, localAddr netip.AddrPort

	// Reader goroutine only.
	rate rateWindow

	qmu         sync.Mutex
	queue       [][]byte
	spare       [][]byte
	closing     bool
	closeCode   int
	closeReason string

	wake       chan struct{} // cap 1
	readerDone chan struct{}
	writerDone chan struct{}
	authTimer  clock.Timer
	// alive fires when the peer sent nothing, not even a pong, for a ping
	// interval and the pong timeout (reader goroutine only).
	alive clock.Timer
}

// enqueue queues msg; false when the client is closing or too far behind
// (then it is closed with 1013).
func (c *client) enqueue(msg []byte) bool {
	c.qmu.Lock()
	if c.closing {
		c.qmu.Unlock()
		return false
	}
	if len(c.queue) >= maxQueued && supersedes(msg) {
		// A newer frame makes queued frames of the same kind worthless:
		// drop those before calling the browser too slow, so a burst of
		// state changes on a slow phone costs frames, not the connection.
		c.queue = dropSuperseded(c.queue, msg)
	}
	if len(c.queue) >= maxQueued {
		c.queue = c.queue[:0]
		c.closing, c.closeCode, c.closeReason = true, closeTryLater, "client too slow"
		c.qmu.Unlock()
		c.signal()
		return false
	}
	c.queue = append(c.queue, msg)
	c.qmu.Unlock()
	c.signal()
	return true
}

// closeWith sends what is queued, then a close frame with code and reason,
// then ends the connection. Later messages are dropped.
func (c *client) closeWith(code int, reason string) {
	c.qmu.Lock()
	if c.closing {
		c.qmu.Unlock()
		return
	}
	c.closing, c.closeCode, c.closeReason = true, code, reason
	c.qmu.Unlock()
	c.signal()
}

// fail sends one error and closes with 1000 and no reason (pre-auth
// failures, §6.1).
func (c *client) fail(e *ProtocolError) {
	c.enqueue(encodeError(e))
	c.closeWith(closeNormal, "")
}

func (c *client) isClosing() bool {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	return c.closing
}

func (c *client) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// writeLoop sends queued messages in order, pings every ping interval and,
// when closing, the close frame; it then waits (bounded) for the reader to
// see the peer's close and closes the TCP connection.
func (c *client) writeLoop() {
	defer close(c.writerDone)
	ping := c.s.clk.NewTicker(c.s.pingInterval)
	defer ping.Stop()
	nc := c.ws.NetConn()
	for {
		select {
		case <-c.wake:
		case <-ping.C():
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(c.s.writeTimeout)); err != nil {
				nc.Close()
				return
			}
			continue
		case <-c.readerDone:
			c.qmu.Lock()
			closing := c.closing
			c.qmu.Unlock()
			if !closing {
				return
			}
		}
		c.qmu.Lock()
		batch := c.queue
		c.queue, c.spare = c.spare[:0], nil
		closing, code, reason := c.closing, c.closeCode, c.closeReason
		c.qmu.Unlock()
		for i, msg := range batch {
			_ = c.ws.SetWriteDeadline(time.Now().Add(c.s.writeTimeout))
			if err := c.ws.WriteMessage(websocket.TextMessage, msg); err != nil {
				nc.Close()
				return
			}
			batch[i] = nil
		}
		c.qmu.Lock()
		if c.spare == nil {
			c.spare = batch[:0]
		}
		c.qmu.Unlock()
		if closing {
			_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(c.s.writeTimeout))
			t := time.NewTimer(closeTimeout)
			select {
			case <-c.readerDone:
			case <-t.C:
			}
			t.Stop()
			nc.Close()
			return
		}
	}
}

// serveWebSocket upgrades a request that passed the Host and Origin checks
// and runs the connection (§4, §6).
func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		writeText(w, http.StatusBadRequest, "Bad peer address\n")
		return
	}
	addr := peer.Addr().Unmap()
	loopback := s.isLoopback(addr)
	// The slot is taken before the 101 goes out (§9: slots are reserved at
	// upgrade time), so a browser that has its answer holds its slot, or
	// knows it has none, before the next browser is counted.
	s.mu.Lock()
	slot := !s.closed && s.reserved < s.maxConns && (loopback || s.remote < s.maxRemote)
	if slot {
		s.reserved++
		if !loopback {
			s.remote++
		}
	}
	s.mu.Unlock()
	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		if slot {
			s.mu.Lock()
			s.releaseSlotLocked(loopback)
			s.mu.Unlock()
		}
		return // the upgrader answered
	}
	ws.SetReadLimit(MaxMessageBytes)
	c := &client{
		s: s, ws: ws, peer: addr.String(), loopback: loopback, peerAddr: peer, localAddr: localAddrOf(r),
		wake: make(chan struct{}, 1), readerDone: make(chan struct{}), writerDone: make(chan struct{}),
	}
	s.mu.Lock()
	if s.closed {
		if slot {
			s.releaseSlotLocked(loopback)
		}
		s.mu.Unlock()
		c.closeWith(closeGoingAway, reasonShutdown)
		s.runClient(c, false)
		return
	}
	s.wg.Add(1)
	defer s.wg.Done()
	if slot {
		s.live[c] = struct{}{}
	} else {
		c.fail(errConnectionLimit)
	}
	s.mu.Unlock()
	s.runClient(c, slot)
}

// releaseSlotLocked gives back a connection slot taken by serveWebSocket.
func (s *Server) releaseSlotLocked(loopback bool) {
	s.reserved--
	if !loopback {
		s.remote--
	}
}

// runClient runs the writer and the read loop until the connection ends,
// then releases its slot.
func (s *Server) runClient(c *client, slot bool) {
	go c.writeLoop()
	if slot && !c.isClosing() {
		c.authTimer = s.clk.AfterFunc(s.authTimeout, func() {
			s.mu.Lock()
			registered := c.registered
			s.mu.Unlock()
			if !registered {
				c.fail(errAuthTimeout)
			}
		})
	}
	c.readLoop()
	if c.authTimer != nil {
		c.authTimer.Stop()
	}
	if c.alive != nil {
		c.alive.Stop()
	}
	close(c.readerDone)
	<-c.writerDone
	c.ws.NetConn().Close()
	if !slot {
		return
	}
	s.mu.Lock()
	s.releaseSlotLocked(c.loopback)
	delete(s.live, c)
	wasDevice := c.registered && c.device != nil
	delete(s.clients, c)
	c.registered = false
	if wasDevice {
		s.devicesChangedLocked()
	}
	s.mu.Unlock()
}

// readLoop reads messages until the connection fails or closes. Once the
// connection is closing, what arrives is discarded.
func (c *client) readLoop() {
	s := c.s
	for {
		mt, data, err := c.ws.ReadMessage()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() && !c.isClosing() {
				// No pong within the keep-alive window (§4).
				c.closeWith(closeInternal, "keepalive ping timeout")
			}
			return
		}
		if c.isClosing() {
			continue
		}
		if mt == websocket.TextMessage && !utf8.Valid(data) {
			// Invalid UTF-8 in a text frame is a transport error (§4 [lib]).
			c.closeWith(closeInvalidUTF, "invalid UTF-8")
			continue
		}
		s.mu.Lock()
		registered := c.registered
		s.mu.Unlock()
		if !registered {
			c.firstMessage(data)
			continue
		}
		c.extendDeadline()
		if !c.rate.allow(s.clock()) {
			c.enqueue(encodeError(errRateLimited))
			c.closeWith(closePolicy, reasonRate)
			continue
		}
		c.handle(data)
	}
}

// extendDeadline keeps the connection alive while the peer talks or
// answers pings. When the keep-alive timer fires first, the read ends with
// a deadline in the past, which readLoop reports as the keep-alive timeout.
func (c *client) extendDeadline() {
	d := c.s.pingInterval + c.s.pongTimeout
	if c.alive == nil {
		nc := c.ws.NetConn()
		c.alive = c.s.clk.AfterFunc(d, func() { _ = nc.SetReadDeadline(time.Now()) })
		return
	}
	c.alive.Reset(d)
}

// firstMessage handles the only message allowed before authentication
// (§6.1): decode errors, any other type and a rejected credential end the
// connection.
func (c *client) firstMessage(data []byte) {
	s := c.s
	if c.authTimer != nil && !c.authTimer.Stop() {
		return // the timeout won
	}
	m, perr := DecodeClientMessage(data)
	if perr != nil {
		c.fail(perr)
		return
	}
	if m.Type != TypeAuthenticate {
		c.fail(errAuthRequired)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	res := s.auth.authenticate(c.peer, c.loopback, m.Credential, s.clock())
	if !res.ok {
		c.fail(errForbidden)
		return
	}
	// Register and send the snapshot under one lock so authenticated is
	// always first and no broadcast is lost or doubled (§6.7).
	c.registered = true
	c.admin = c.loopback
	c.device = res.device
	s.clients[c] = struct{}{}
	c.pong()
	c.extendDeadline()
	s.sendLocked(c, encodeAuthenticated(c.admin, res.issued, s.lan != nil))
	if c.admin {
		if p, ok := s.auth.pairingView(s.clock()); ok {
			s.sendLocked(c, encodePairing(p))
		}
	}
	for _, m := range [][]byte{s.lastSurface, s.lastExperience, s.lastPerformance} {
		if m != nil {
			s.sendLocked(c, m)
		}
	}
	if c.device != nil {
		s.devicesChangedLocked()
	}
}

func (c *client) pong() {
	c.ws.SetPongHandler(func(string) error { c.extendDeadline(); return nil })
}

// handle processes one message of an authenticated client (§6.8).
func (c *client) handle(data []byte) {
	s := c.s
	m, perr := DecodeClientMessage(data)
	if perr != nil {
		c.enqueue(encodeError(perr))
		return
	}
	switch m.Type {
	case TypeAuthenticate:
		c.enqueue(encodeError(errAlreadyAuth))
		return
	case TypeAction:
		s.post(surface.ActionPressed{Action: m.Action})
		return
	case TypeSelectSession:
		s.post(surface.SessionSelected{Slot: m.Slot})
		return
	case TypeSetLAN:
		// Binding a listener (and resolving its name) must not hold the
		// server's lock.
		c.setLAN(m.Enabled)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !c.admin {
		s.sendLocked(c, encodeError(errAdminRequired))
		return
	}
	switch m.Type {
	case TypeCreatePairing:
		p, err := s.createPairingLocked()
		if err != nil {
			if s.lan == nil {
				s.sendLocked(c, encodeError(errLANDisabled))
			} else {
				s.log.Warn("could not create a browser pairing", "err", err)
				s.sendLocked(c, encodeError(perr500))
			}
			return
		}
		s.sendLocked(c, encodePairing(p))
	case TypeRevokeRemote:
		s.revokeRemoteLocked()
		s.sendLocked(c, encodeSimple(TypeRemoteRevoked))
	case TypeStartExperience:
		s.post(surface.ExperienceRequested{Kind: m.Kind})
	case TypeStopExperience:
		s.post(surface.ExperienceStopRequested{})
	case TypeListDevices:
		c.wantsDevices = true
		s.sendLocked(c, encodeDevices(s.devicesLocked()))
	case TypeGetLAN:
		c.wantsLAN = true
		s.sendLocked(c, encodeLAN(s.lanStateLocked()))
	case TypeRevokeDevice:
		if !s.revokeDeviceLocked(m.Device) {
			s.sendLocked(c, encodeError(errUnknownDevice))
			return
		}
		s.sendLocked(c, encodeDeviceRevoked(m.Device))
	}
}

// perr500 reports a server-side failure (no randomness for a pairing).
var perr500 = perr(CodeInvalidMessage, "the server could not create a pairing")

func encodeDevices(ds []Device) []byte {
	b := appendHead(make([]byte, 0, 64+80*len(ds)), TypeDevices)
	b = append(b, `,"devices":[`...)
	for i, d := range ds {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = wire.AppendString(b, d.ID)
		b = append(b, `,"name":`...)
		b = wire.AppendString(b, d.Name)
		b = append(b, `,"paired_at":`...)
		b = wire.AppendString(b, d.PairedAt.UTC().Format(time.RFC3339))
		b = append(b, `,"connected":`...)
		b = strconv.AppendInt(b, int64(d.Connected), 10)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func encodeDeviceRevoked(id string) []byte {
	b := appendHead(make([]byte, 0, 64), TypeDeviceRevoked)
	b = append(b, `,"device":`...)
	b = wire.AppendString(b, id)
	return append(b, '}')
}

// latestWins are the messages only the newest of which matters.
var latestWins = [][]byte{
	[]byte(`{"protocol":1,"type":"surface"`),
	[]byte(`{"protocol":1,"type":"performance_frame"`),
}

// supersedes reports whether msg replaces earlier messages of its kind.
func supersedes(msg []byte) bool {
	for _, p := range latestWins {
		if bytes.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// dropSuperseded removes queued messages of the same kind as msg, keeping
// the order of everything else.
func dropSuperseded(queue [][]byte, msg []byte) [][]byte {
	var kind []byte
	for _, p := range latestWins {
		if bytes.HasPrefix(msg, p) {
			kind = p
		}
	}
	kept := queue[:0]
	for _, q := range queue {
		if !bytes.HasPrefix(q, kind) {
			kept = append(kept, q)
		}
	}
	clear(queue[len(kept):])
	return kept
}
