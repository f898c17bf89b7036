package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/netguard"
	"github.com/lets-app/lets/backend/peercred"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/token"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// Identity of the browser surface (§1; wire spec §10).
const (
	Profile     = "virtual/browser"
	DefaultPort = 8765
	Capacity    = 8
)

// Connection limits and timings (§9).
const (
	MaxConnections       = 16
	MaxRemoteConnections = 8
	EventQueue           = 256
	AuthTimeout          = 10 * time.Second
	PingInterval         = 20 * time.Second
	PongTimeout          = 20 * time.Second
	// closeTimeout bounds the closing handshake.
	closeTimeout = time.Second
	// writeTimeout bounds one write to a browser.
	writeTimeout = 10 * time.Second
	// maxQueued bounds the messages waiting for one browser; a browser
	// that falls this far behind is disconnected (close 1013) and gets a
	// fresh snapshot when it reconnects.
	maxQueued = 128
	// stopTimeout bounds how long Close waits for connections.
	stopTimeout = 3 * time.Second
)

// HTTP listener limits (Options.MaxListenerConnections, ReadHeaderTimeout,
// IdleTimeout). Every WebSocket also holds one listener connection, so the
// cap leaves room for MaxConnections browsers plus their page loads.
const (
	DefaultMaxListenerConnections = 128
	DefaultReadHeaderTimeout      = 10 * time.Second
	DefaultIdleTimeout            = 30 * time.Second
	// responseWriteTimeout bounds writing one HTTP response (a browser
	// that stops reading a file frees its connection); WebSockets set
	// their own deadlines after the upgrade.
	responseWriteTimeout = 60 * time.Second
)

// WebSocket close codes and reasons (§6, §8.7).
const (
	closeNormal     = websocket.CloseNormalClosure           // 1000
	closeGoingAway  = websocket.CloseGoingAway               // 1001
	closePolicy     = websocket.ClosePolicyViolation         // 1008
	closeInvalidUTF = websocket.CloseInvalidFramePayloadData // 1007
	closeInternal   = websocket.CloseInternalServerErr       // 1011
	closeTryLater   = websocket.CloseTryAgainLater           // 1013

	reasonRevoked  = "authorization revoked"
	reasonShutdown = "server shutting down"
	reasonRate     = "command rate exceeded"
)

// loopbackAdmin is the loopback listener's address.
var loopbackAdmin = netip.AddrFrom4([4]byte{127, 0, 0, 1})

// Options configure a Server.
type Options struct {
	// App is the browser app (frontend.PadApp()), served from the root.
	App fs.FS
	// Port is the TCP port of both listeners (DefaultPort for the CLI
	// default); 0 lets the system choose one.
	Port int
	// LAN adds the LAN listener and enables pairing; nil is loopback only.
	LAN *LAN
	// AdminToken is the loopback administrator's credential; "" makes a
	// random 43-character token (what the CLI does). At most 256
	// characters.
	AdminToken string
	// QRCode draws a pairing URL as a data:image/svg+xml URI; nil uses the
	// built-in encoder.
	QRCode func(text string) (string, error)
	// Clock is the server's time: pairing expiry, lock-outs and rate
	// limits (seconds since New on it), pairing dates, the authentication
	// timeout and the keep-alive pings and pong deadline. nil is the wall
	// clock; tests pass a *clock.Fake. Safety bounds no behaviour depends
	// on (write deadlines, the closing handshake, HTTP timeouts) stay on
	// the wall clock.
	Clock clock.Clock
	// Log receives operational logs (never credentials); nil discards.
	Log *slog.Logger
	// LANSwitch lets the administrator's page switch LAN access on and off
	// while the server runs (lan_switch.go); nil leaves LAN access as LAN
	// says. Server.SetLANSwitch sets it later.
	LANSwitch *LANSwitch
	// AllowLoopbackLAN is for test rigs and single-machine demos that
	// stand a loopback address in for a LAN interface: LAN.Bind may then
	// be a loopback address other than 127.0.0.1 (127.0.0.2 and up), and
	// only 127.0.0.1 counts as the administrator's loopback, so every other
	// 127.x peer is a LAN device that must pair. It only takes rights away
	// (no peer becomes an administrator that would not be one anyway) and
	// never exposes the server beyond the machine. The CLI never sets it.
	AllowLoopbackLAN bool
	// MaxListenerConnections caps the open TCP connections of each
	// listener (HTTP keep-alive and WebSocket alike), so one local process
	// cannot take every file descriptor from the daemon's other sockets;
	// a connection over the cap is closed as soon as it is accepted. 0
	// means DefaultMaxListenerConnections.
	MaxListenerConnections int
	// ReadHeaderTimeout bounds how long a connection may take to send a
	// request's headers (§3.1: 10 s); 0 means DefaultReadHeaderTimeout.
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that waits this long for
	// its next request; 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration

	hooks *testHooks
}

// testHooks shorten timers and raise caps in the package's tests (the
// timers on Options.Clock are moved by a fake clock instead).
type testHooks struct {
	pongTimeout time.Duration
	// maxConnections and maxRemote raise the caps for benchmarks.
	maxConnections, maxRemote int
	// writeTimeout shortens the wait for a browser that stops reading.
	writeTimeout time.Duration
	// peerUID replaces the socket-owner lookup of one-time admin links.
	peerUID func(client, server netip.AddrPort) (int, error)
}

// Server is the browser surface: HTTP and WebSocket server, authentication,
// broadcasts. It implements surface.Surface.
type Server struct {
	opts       Options
	log        *slog.Logger
	clk        clock.Clock
	clock      func() float64 // seconds since New on clk
	isLoopback func(netip.Addr) bool
	// peerUID finds the user owning a loopback peer's socket, for
	// one-time admin links (netguard.SocketOwnerUID); nil where the system cannot
	// tell (not Linux).
	peerUID  func(client, server netip.AddrPort) (int, error)
	qr       func(string) (string, error)
	upgrader websocket.Upgrader
	events   chan surface.Event
	dropped  atomic.Int64

	authTimeout, pingInterval, pongTimeout, writeTimeout time.Duration
	maxConns, maxRemote                                  int

	renderMu sync.Mutex
	frame    int

	mu       sync.Mutex
	opened   bool
	closed   bool
	port     int
	lnLoop   net.Listener
	lnLAN    net.Listener
	http     *http.Server
	auth     *authority
	lan      *lanOrigin
	clients  map[*client]struct{} // registered (authenticated)
	live     map[*client]struct{} // every open WebSocket
	reserved int                  // slots held: authenticated + authenticating
	remote   int                  // of which remote
	// adminOpen are the live one-time admin links (admin_open.go).
	adminOpen []adminOpenCode
	// lanSwitch switches LAN access from the admin page, lanConns are the
	// LAN listener's connections (lan_switch.go); lanMu orders switches.
	lanSwitch *LANSwitch
	lanConns  *connTracker
	lanMu     sync.Mutex
	// Latest broadcasts for late joiners (§6.7).
	lastSurface, lastExperience, lastPerformance []byte

	wg sync.WaitGroup
}

var (
	_ surface.Surface            = (*Server)(nil)
	_ surface.ShowRenderer       = (*Server)(nil)
	_ surface.ExperienceReporter = (*Server)(nil)
	_ surface.Poller             = (*Server)(nil)
)

// New checks the options and prepares the server; Open binds the listeners.
func New(opts Options) (*Server, error) {
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, errors.New("web port must be from 0 to 65535")
	}
	if opts.MaxListenerConnections < 0 || opts.ReadHeaderTimeout < 0 || opts.IdleTimeout < 0 {
		return nil, errors.New("browser surface: connection limits and timeouts must not be negative (0 uses the defaults)")
	}
	if opts.MaxListenerConnections == 0 {
		opts.MaxListenerConnections = DefaultMaxListenerConnections
	}
	if opts.ReadHeaderTimeout == 0 {
		opts.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if len(opts.AdminToken) > MaxAdminTokenLength {
		return nil, fmt.Errorf("the browser admin token is longer than %d characters", MaxAdminTokenLength)
	}
	tok := opts.AdminToken
	if tok == "" {
		var err error
		if tok, err = token.New(); err != nil {
			return nil, fmt.Errorf("browser surface: %w", err)
		}
	}
	if opts.LAN != nil {
		lan := *opts.LAN
		opts.LAN = &lan
		if err := checkLANBind(&lan, opts.AllowLoopbackLAN); err != nil {
			return nil, err
		}
	}
	s := &Server{
		opts:         opts,
		log:          opts.Log,
		clk:          clock.Or(opts.Clock),
		qr:           opts.QRCode,
		events:       make(chan surface.Event, EventQueue),
		clients:      map[*client]struct{}{},
		live:         map[*client]struct{}{},
		authTimeout:  AuthTimeout,
		pingInterval: PingInterval,
		pongTimeout:  PongTimeout,
		writeTimeout: writeTimeout,
		maxConns:     MaxConnections,
		maxRemote:    MaxRemoteConnections,
		isLoopback:   func(a netip.Addr) bool { return a.Unmap().IsLoopback() },
	}
	s.peerUID = peercred.SystemTCPLookup()
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	start := s.clk.Now()
	s.clock = func() float64 { return s.clk.Now().Sub(start).Seconds() }
	s.auth = newAuthority(tok, s.clk.Now)
	if s.qr == nil {
		s.qr = QRDataURI
	}
	if opts.AllowLoopbackLAN {
		s.isLoopback = func(a netip.Addr) bool { return a.Unmap() == loopbackAdmin }
	}
	if h := opts.hooks; h != nil {
		if h.pongTimeout > 0 {
			s.pongTimeout = h.pongTimeout
		}
		if h.maxConnections > 0 {
			s.maxConns = h.maxConnections
		}
		if h.maxRemote > 0 {
			s.maxRemote = h.maxRemote
		}
		if h.writeTimeout > 0 {
			s.writeTimeout = h.writeTimeout
		}
		if h.peerUID != nil {
			s.peerUID = h.peerUID
		}
	}
	s.upgrader = websocket.Upgrader{
		HandshakeTimeout:  10 * time.Second,
		WriteBufferPool:   &sync.Pool{},
		EnableCompression: false,
		// The Origin check of §3.3 ran before the upgrade.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	s.lastExperience = initialExperience()
	if sw := opts.LANSwitch; sw != nil && sw.Resolve != nil {
		s.lanSwitch = sw
	}
	return s, nil
}

// Open binds the loopback listener (and the LAN listener, which also
// registers the LAN base URL and creates the first pairing) and starts
// serving. It is idempotent: the CLI opens the server to print its URLs and
// the daemon opens it again.
func (s *Server) Open(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("browser surface: open after close; make a new server")
	}
	if s.opened {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var lc net.ListenConfig
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	loop, err := lc.Listen(lctx, "tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.opts.Port)))
	if err != nil {
		return &ListenError{Port: s.opts.Port, Err: err}
	}
	port := loop.Addr().(*net.TCPAddr).Port
	var lan net.Listener
	if s.opts.LAN != nil {
		lan, err = lc.Listen(lctx, "tcp4", net.JoinHostPort(s.opts.LAN.Bind.String(), strconv.Itoa(port)))
		if err != nil {
			loop.Close()
			return fmt.Errorf("could not start browser surface on the LAN address %s: %w", s.opts.LAN.Bind, err)
		}
	}
	// Each listener has its own cap: filling one (say the loopback one)
	// leaves the other working.
	loop = netguard.LimitLocal(loop, s.opts.MaxListenerConnections, "browser pad (this computer)", s.log)
	s.port, s.lnLoop = port, loop
	if lan != nil {
		lan = s.trackLANLocked(lan)
	}
	if s.opts.LAN != nil {
		host := s.opts.LAN.AdvertiseHost
		if host == "" {
			host = s.opts.LAN.Bind.String()
		}
		if err := s.configureLANLocked("http://" + net.JoinHostPort(host, strconv.Itoa(port))); err != nil {
			s.closeListenersLocked()
			return err
		}
		if _, err := s.auth.newPairing(s.clock(), s.lan.base, s.qr); err != nil {
			s.closeListenersLocked()
			return err
		}
	}
	s.http = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		WriteTimeout:      responseWriteTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	s.opened = true
	for _, ln := range []net.Listener{loop, lan} {
		if ln == nil {
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
				s.log.Warn("the browser surface stopped accepting connections", "addr", ln.Addr().String(), "err", err)
			}
		}()
	}
	s.log.Info("browser surface listening", "port", port, "lan", lan != nil)
	return nil
}

func (s *Server) closeListenersLocked() {
	for _, ln := range []net.Listener{s.lnLoop, s.lnLAN} {
		if ln != nil {
			ln.Close()
		}
	}
	s.lnLoop, s.lnLAN, s.lanConns, s.port, s.lan = nil, nil, nil, 0, nil
}

// ConfigureLAN registers the LAN base URL (configure_lan, §2.5): an http
// origin on the bound port whose host, if an IP literal, is private. After
// it, authenticated messages say lan_enabled and create_pairing works,
// even without a LAN listener (the e2e harness relies on that). Open binds
// the port first.
func (s *Server) ConfigureLAN(baseURL string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.opened || s.closed {
		return errors.New("browser surface: open the server before configuring LAN access")
	}
	return s.configureLANLocked(baseURL)
}

func (s *Server) configureLANLocked(baseURL string) error {
	o, err := parseLANBaseURL(baseURL, s.port)
	if err != nil {
		return err
	}
	s.lan = &o
	return nil
}

// Port returns the bound port (0 before Open).
func (s *Server) Port() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.port
}

// AdminURL is the loopback administrator's URL with the admin token in the
// fragment (§2.6): http://127.0.0.1:PORT/#admin=TOKEN. Give it only to the
// local user.
func (s *Server) AdminURL() string {
	return AdminURL(s.Port(), s.auth.adminToken)
}

// AdminURL formats an administrator URL for port and token (§2.6).
func AdminURL(port int, adminToken string) string {
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/#admin=" + adminToken
}

// LANURL is the LAN base URL phones open, or "" without LAN access.
func (s *Server) LANURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lan == nil {
		return ""
	}
	return s.lan.base
}

// CurrentPairing returns the live pairing, if any.
func (s *Server) CurrentPairing() (Pairing, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.auth.pairingView(s.clock())
}

// CreatePairing replaces the pairing with a new one (what the admin's
// create_pairing does); it fails without LAN access.
func (s *Server) CreatePairing() (Pairing, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.createPairingLocked()
}

func (s *Server) createPairingLocked() (Pairing, error) {
	if s.lan == nil {
		return Pairing{}, errors.New(errLANDisabled.Text)
	}
	now := s.clock()
	p, err := s.auth.newPairing(now, s.lan.base, s.qr)
	if err != nil {
		return Pairing{}, err
	}
	return Pairing{PIN: p.pin, URL: p.url, QRDataURI: p.qr, ExpiresIn: int(PairingTTL)}, nil
}

// WriteStartup writes the start-up lines of §2.6: the admin URL, and with
// LAN access the LAN URL, the PIN and the trusted-network warning. The
// pairing secret is never printed.
func (s *Server) WriteStartup(w io.Writer) {
	fmt.Fprintf(w, "Local admin: %s\n", s.AdminURL())
	base := s.LANURL()
	if base == "" || s.Port() == 0 || s.opts.LAN == nil {
		return
	}
	fmt.Fprintf(w, "Phone/tablet: %s\n", base)
	if p, ok := s.CurrentPairing(); ok {
		fmt.Fprintf(w, "Pairing PIN: %s (expires in 5 minutes)\n", p.PIN)
	}
	fmt.Fprintln(w, "LAN mode is for trusted networks only: do not forward this port through a router or expose it to the internet.")
}

// RevokeRemote forgets every paired device and the pairing and disconnects
// every remote browser (revoke_remote, §6.6).
func (s *Server) RevokeRemote() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.revokeRemoteLocked()
}

func (s *Server) revokeRemoteLocked() {
	s.auth.revokeAll()
	for c := range s.clients {
		if !c.loopback {
			s.dropLocked(c, closePolicy, reasonRevoked)
		}
	}
	s.devicesChangedLocked()
}

// Devices lists the paired devices.
func (s *Server) Devices() []Device {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.devicesLocked()
}

func (s *Server) devicesLocked() []Device {
	out := make([]Device, 0, len(s.auth.devices))
	for _, d := range s.auth.devices {
		n := 0
		for c := range s.clients {
			if c.device == d {
				n++
			}
		}
		out = append(out, Device{ID: d.id, Name: d.name, PairedAt: d.pairedAt, Connected: n})
	}
	return out
}

// RevokeDevice forgets one paired device and disconnects it (1008
// "authorization revoked"); false if no device has that id.
func (s *Server) RevokeDevice(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.revokeDeviceLocked(id)
}

func (s *Server) revokeDeviceLocked(id string) bool {
	var target *device
	for _, d := range s.auth.devices {
		if d.id == id {
			target = d
		}
	}
	if target == nil || !s.auth.revokeDevice(id) {
		return false
	}
	for c := range s.clients {
		if c.device == target {
			s.dropLocked(c, closePolicy, reasonRevoked)
		}
	}
	s.devicesChangedLocked()
	return true
}

// devicesChangedLocked sends the device list to the admins that asked for
// it.
func (s *Server) devicesChangedLocked() {
	var msg []byte
	for c := range s.clients {
		if c.wantsDevices {
			if msg == nil {
				msg = encodeDevices(s.devicesLocked())
			}
			s.sendLocked(c, msg)
		}
	}
}

// dropLocked removes c from the broadcast set and closes it.
func (s *Server) dropLocked(c *client, code int, reason string) {
	delete(s.clients, c)
	c.closeWith(code, reason)
}

// sendLocked queues msg for c; a client that cannot keep up is dropped.
func (s *Server) sendLocked(c *client, msg []byte) {
	if !c.enqueue(msg) {
		delete(s.clients, c)
	}
}

// broadcast sends msg to every authenticated browser (§10) and remembers it
// in *latest for late joiners.
func (s *Server) broadcast(msg []byte, latest *[]byte) {
	if len(msg) > MaxMessageBytes {
		s.log.Warn("dropped a browser message over the size limit", "bytes", len(msg))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if latest != nil {
		*latest = msg
	}
	for c := range s.clients {
		s.sendLocked(c, msg)
	}
}

// post hands an event to the daemon; when EventQueue events are waiting
// the newest is dropped (§6.9).
func (s *Server) post(ev surface.Event) {
	select {
	case s.events <- ev:
	default:
		s.dropped.Add(1)
	}
}

// Dropped is the number of browser events dropped because the queue was
// full.
func (s *Server) Dropped() int64 { return s.dropped.Load() }

// Capacity implements surface.Surface: 8 slots.
func (s *Server) Capacity() int { return Capacity }

// Accents implements surface.Surface: all eight identity accents.
func (s *Server) Accents() []string { return wire.IdentityAccents() }

// Describe implements surface.Surface (wire spec §10): kind web, profile
// virtual/browser, "Browser controls (PORT)" / "Browser display (PORT)"
// once the port is bound. Never a URL or token.
func (s *Server) Describe() control.Surface {
	in, out := "Browser controls", "Browser display"
	if p := s.Port(); p != 0 {
		in += " (" + strconv.Itoa(p) + ")"
		out += " (" + strconv.Itoa(p) + ")"
	}
	return control.Surface{
		Profile: Profile, Input: in, Output: out,
		Descriptors: []wire.SurfaceDescriptor{{
			Kind: wire.SurfaceKindWeb, Profile: Profile, VisualProtocol: wire.VisualProtocolVersion,
			Input: in, Output: out,
		}},
	}
}

// Render implements surface.Surface: the view becomes a surface message
// (with the next render counter) broadcast to every browser.
func (s *Server) Render(cv control.View) error {
	s.renderMu.Lock()
	v := visual.FromControl(cv, s.frame)
	s.frame++
	msg := visual.AppendSurfaceMessage(make([]byte, 0, 2048), v, Capacity)
	s.renderMu.Unlock()
	s.broadcast(msg, &s.lastSurface)
	return nil
}

// RenderShowFrame implements surface.ShowRenderer: a performance_frame
// broadcast.
func (s *Server) RenderShowFrame(f *visual.ShowFrame) error {
	s.broadcast(EncodePerformanceFrame(f), &s.lastPerformance)
	return nil
}

// SetExperience implements surface.ExperienceReporter: an experience_state
// broadcast. An idle or blocked state forgets the last Show frame.
func (s *Server) SetExperience(v visual.ExperienceView) error {
	msg := EncodeExperienceState(v)
	s.mu.Lock()
	if v.Status == visual.ExperienceIdle || v.Status == visual.ExperienceBlocked || v.Status == "" {
		s.lastPerformance = nil
	}
	s.mu.Unlock()
	s.broadcast(msg, &s.lastExperience)
	return nil
}

// Events implements surface.Surface: browser taps in arrival order.
func (s *Server) Events() <-chan surface.Event { return s.events }

// Poll implements surface.Poller: every pending event, oldest first.
func (s *Server) Poll() []surface.Event {
	var out []surface.Event
	for range EventQueue {
		select {
		case ev := <-s.events:
			out = append(out, ev)
		default:
			return out
		}
	}
	return out
}

// Close implements surface.Surface (§6.6): paired devices are revoked and
// their browsers closed with 1008 "authorization revoked", every other
// browser with 1001 "server shutting down", then the listeners close.
// Idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.revokeRemoteLocked()
	for c := range s.live {
		c.closeWith(closeGoingAway, reasonShutdown)
	}
	clear(s.clients)
	hs := s.http
	s.closeListenersLocked()
	s.mu.Unlock()
	if hs != nil {
		_ = hs.Close()
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(closeTimeout + 500*time.Millisecond):
	}
	// Browsers that neither answered the close nor read what was queued:
	// cut their connections so no writer waits for its write timeout.
	s.mu.Lock()
	for c := range s.live {
		_ = c.ws.NetConn().Close()
	}
	s.mu.Unlock()
	select {
	case <-done:
	case <-time.After(stopTimeout):
		s.log.Warn("browser connections did not close in time")
	}
	return nil
}
