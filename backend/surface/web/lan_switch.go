package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/netguard"
)

// Switching LAN access while the server runs (Lets extension). With
// --lan (Options.LAN) the LAN listener is bound at Open; the desktop app
// instead lets the person switch phones on and off from the pad's admin
// page: one button that says what it does, then the QR code and PIN, and a
// button to switch it off again. The consent comes only from an
// administrator's page (loopback, admin token, and on Linux a socket owned
// by the user running Lets), never from a phone or another page, and only
// when the app installed a LANSwitch.

// LANSwitch lets the administrator's page switch LAN access on and off
// while the server runs (Options.LANSwitch or Server.SetLANSwitch). Without
// one the page cannot change LAN access.
type LANSwitch struct {
	// Resolve picks the LAN listener's address when the person switches
	// phones on: the app passes ResolveLAN with the configured bind and
	// advertise hosts, as --lan does. Required.
	Resolve func(ctx context.Context) (*LAN, error)
	// Remember stores the person's choice for the next start (the app
	// writes "web": {"lan"} to config.json). It runs after the switch took
	// effect; its error is reported to the page, and the switch stays.
	// nil remembers nothing.
	Remember func(on bool) error
}

// LANState is what the administrator's page shows about phone access.
type LANState struct {
	// Enabled: phones can reach the pad and pair (the LAN listener is
	// bound and its base URL registered); authenticated's lan_enabled.
	Enabled bool
	// Switchable: the page may switch LAN access (a LANSwitch is set).
	Switchable bool
	// URL is the LAN base URL phones open; "" when LAN access is off.
	URL string
	// Problem says, in plain words, what went wrong with the last switch
	// the page asked for; "" when nothing did.
	Problem string
}

// Errors of the LAN switch, for errors.Is / errors.As.
var (
	// ErrLANNotSwitchable: no LANSwitch is set (a CLI pad, whose flags
	// decide LAN access).
	ErrLANNotSwitchable = errors.New("LAN access cannot be switched while this pad runs; start it with --lan instead")
	// ErrLANClosed: the server is not open (yet, or any more).
	ErrLANClosed = errors.New("browser surface: open the server before switching LAN access")
)

// LANListenError is a LAN address that could not be bound when the person
// switched phones on.
type LANListenError struct {
	Addr string
	Err  error
}

func (e *LANListenError) Error() string {
	return fmt.Sprintf("could not start the browser pad on the LAN address %s: %v", e.Addr, e.Err)
}

func (e *LANListenError) Unwrap() error { return e.Err }

// NotRememberedError: the switch took effect, but storing the choice for
// the next start failed.
type NotRememberedError struct {
	On  bool
	Err error
}

func (e *NotRememberedError) Error() string {
	return fmt.Sprintf("LAN access is %s now, but the choice was not saved for the next start: %v", onOff(e.On), e.Err)
}

func (e *NotRememberedError) Unwrap() error { return e.Err }

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// SetLANSwitch installs (or, with nil, removes) the switch the
// administrator's page uses; admins that follow LAN access hear when the
// page can or can no longer switch.
func (s *Server) SetLANSwitch(sw *LANSwitch) {
	if sw != nil && sw.Resolve == nil {
		sw = nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := (s.lanSwitch == nil) != (sw == nil)
	s.lanSwitch = sw
	if changed {
		s.lanChangedLocked()
	}
}

// LANState reports phone access as the administrator's page shows it.
func (s *Server) LANState() LANState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lanStateLocked()
}

func (s *Server) lanStateLocked() LANState {
	// Enabled is what authenticated's lan_enabled says: a LAN base URL is
	// registered (with Options.LAN, EnableLAN, or ConfigureLAN alone in a
	// test harness whose "LAN" is relayed).
	st := LANState{Enabled: s.lan != nil, Switchable: s.lanSwitch != nil}
	if st.Enabled {
		st.URL = s.lan.base
	}
	return st
}

// EnableLAN switches LAN access on while the server runs: it picks the
// address with the LANSwitch's Resolve, checks it as New checks
// Options.LAN, binds it on the server's port, starts serving there and
// makes a fresh pairing, which it returns. Already on, it only makes a
// fresh pairing. The choice is then remembered; when that fails the switch
// stays on and the error is a *NotRememberedError (the pairing is valid).
func (s *Server) EnableLAN(ctx context.Context) (Pairing, error) {
	s.lanMu.Lock()
	defer s.lanMu.Unlock()
	s.mu.Lock()
	if !s.opened || s.closed {
		s.mu.Unlock()
		return Pairing{}, ErrLANClosed
	}
	sw, port, on := s.lanSwitch, s.port, s.lnLAN != nil
	s.mu.Unlock()
	if sw == nil {
		return Pairing{}, ErrLANNotSwitchable
	}
	if !on {
		lan, err := sw.Resolve(ctx)
		if err != nil {
			return Pairing{}, err
		}
		if err := checkLANBind(lan, s.opts.AllowLoopbackLAN); err != nil {
			return Pairing{}, err
		}
		if err := s.startLAN(ctx, lan, port); err != nil {
			return Pairing{}, err
		}
	}
	s.mu.Lock()
	p, err := s.createPairingLocked()
	s.mu.Unlock()
	if err != nil {
		return Pairing{}, err
	}
	if !on {
		s.log.Info("phones may connect now: LAN access switched on from the admin page", "lan", s.LANURL())
	}
	if sw.Remember != nil {
		if err := sw.Remember(true); err != nil {
			return p, &NotRememberedError{On: true, Err: err}
		}
	}
	return p, nil
}

// DisableLAN switches LAN access off while the server runs: the LAN
// listener closes, every paired device and the pairing are forgotten (a
// phone needs a new code after LAN access is switched on again), remote
// browsers are closed with 1008 "authorization revoked", and the LAN
// listener's other connections end within a second. The loopback listener
// and its administrators stay. The choice is then remembered (a
// *NotRememberedError when that fails; the switch stays off).
func (s *Server) DisableLAN() error {
	s.lanMu.Lock()
	defer s.lanMu.Unlock()
	s.mu.Lock()
	if !s.opened || s.closed {
		s.mu.Unlock()
		return ErrLANClosed
	}
	sw := s.lanSwitch
	ln, conns := s.lnLAN, s.lanConns
	s.lnLAN, s.lanConns, s.lan = nil, nil, nil
	s.revokeRemoteLocked()
	for c := range s.live {
		if !c.loopback && !c.registered {
			c.closeWith(closeGoingAway, reasonShutdown)
		}
	}
	s.lanChangedLocked()
	s.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
		s.log.Info("phones can no longer connect: LAN access switched off")
	}
	if conns != nil {
		// Remote browsers got their close frame first; whatever is still
		// open on the LAN side then (keep-alive HTTP, a browser that does
		// not answer the close) is cut.
		time.AfterFunc(closeTimeout+500*time.Millisecond, conns.closeAll)
	}
	if sw != nil && sw.Remember != nil {
		if err := sw.Remember(false); err != nil {
			return &NotRememberedError{On: false, Err: err}
		}
	}
	return nil
}

// checkLANBind is the rule for a LAN listener's address: one private LAN
// IPv4 (or, for test rigs with Options.AllowLoopbackLAN, a loopback
// address other than 127.0.0.1).
func checkLANBind(lan *LAN, allowLoopback bool) error {
	if lan == nil {
		return fmt.Errorf("%w: no LAN address", ErrLANOption)
	}
	testBind := allowLoopback && lan.Bind.Is4() && lan.Bind.IsLoopback() && lan.Bind != loopbackAdmin
	if !lan.Bind.IsValid() || (!testBind && !IsPrivateLAN(lan.Bind)) {
		return fmt.Errorf("%w: the LAN listener must bind one private LAN IPv4 address, not %v", ErrLANOption, lan.Bind)
	}
	return nil
}

// startLAN binds lan on port and serves it, as Open does with
// Options.LAN.
func (s *Server) startLAN(ctx context.Context, lan *LAN, port int) error {
	var lc net.ListenConfig
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addr := net.JoinHostPort(lan.Bind.String(), strconv.Itoa(port))
	raw, err := lc.Listen(lctx, "tcp4", addr)
	if err != nil {
		return &LANListenError{Addr: addr, Err: err}
	}
	host := lan.AdvertiseHost
	if host == "" {
		host = lan.Bind.String()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		raw.Close()
		return ErrLANClosed
	}
	if err := s.configureLANLocked("http://" + net.JoinHostPort(host, strconv.Itoa(port))); err != nil {
		raw.Close()
		return err
	}
	ln := s.trackLANLocked(raw)
	s.serveLocked(ln)
	s.lanChangedLocked()
	return nil
}

// trackLANLocked caps a bound LAN listener and remembers its connections,
// so DisableLAN can end them.
func (s *Server) trackLANLocked(raw net.Listener) net.Listener {
	t := &connTracker{Listener: netguard.Limit(raw, s.opts.MaxListenerConnections, "browser pad (LAN)", s.log), conns: map[*trackedConn]struct{}{}}
	s.lnLAN, s.lanConns = t, t
	return t
}

// serveLocked serves HTTP on ln until it closes.
func (s *Server) serveLocked(ln net.Listener) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			s.log.Warn("the browser surface stopped accepting connections", "addr", ln.Addr().String(), "err", err)
		}
	}()
}

// lanChangedLocked sends the LAN state to the admins that follow it.
func (s *Server) lanChangedLocked() {
	var msg []byte
	for c := range s.clients {
		if c.wantsLAN {
			if msg == nil {
				msg = encodeLAN(s.lanStateLocked())
			}
			s.sendLocked(c, msg)
		}
	}
}

// connTracker is a listener that remembers its open connections.
type connTracker struct {
	net.Listener
	mu     sync.Mutex
	conns  map[*trackedConn]struct{}
	closed bool
}

func (t *connTracker) Accept() (net.Conn, error) {
	for {
		c, err := t.Listener.Accept()
		if err != nil {
			return nil, err
		}
		t.mu.Lock()
		if t.closed {
			t.mu.Unlock()
			c.Close()
			continue
		}
		tc := &trackedConn{Conn: c, t: t}
		t.conns[tc] = struct{}{}
		t.mu.Unlock()
		return tc, nil
	}
}

// closeAll ends every connection the listener accepted and any it still
// accepts.
func (t *connTracker) closeAll() {
	t.mu.Lock()
	t.closed = true
	open := make([]*trackedConn, 0, len(t.conns))
	for c := range t.conns {
		open = append(open, c)
	}
	t.mu.Unlock()
	for _, c := range open {
		_ = c.Close()
	}
}

type trackedConn struct {
	net.Conn
	t    *connTracker
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.t.mu.Lock()
		delete(c.t.conns, c)
		c.t.mu.Unlock()
	})
	return c.Conn.Close()
}

// setLANTimeout bounds one switch asked for by the page (finding the
// address may ask DNS; binding is quick).
const setLANTimeout = 15 * time.Second

// setLAN runs set_lan for c: only an administrator whose socket belongs to
// the user running Lets may switch. The asker gets the lan state (with
// what went wrong, if anything) and, after switching on, the new pairing;
// the other admins that follow LAN access get the state.
func (c *client) setLAN(on bool) {
	s := c.s
	s.mu.Lock()
	admin := c.admin
	if !admin {
		s.sendLocked(c, encodeError(errAdminRequired))
	}
	s.mu.Unlock()
	if !admin {
		return
	}
	if !s.ownedByUs(c.peerAddr, c.localAddr) {
		s.log.Warn("refused to switch LAN access: the admin page's connection belongs to another account on this computer")
		s.mu.Lock()
		s.sendLocked(c, encodeError(errAdminRequired))
		s.mu.Unlock()
		return
	}
	// The asker hears of this switch once, in the reply below.
	s.mu.Lock()
	c.wantsLAN = false
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), setLANTimeout)
	defer cancel()
	s.mu.Lock()
	switchable := s.lanSwitch != nil
	s.mu.Unlock()
	var p Pairing
	var err error
	switch {
	case !switchable:
		err = ErrLANNotSwitchable
	case on:
		p, err = s.EnableLAN(ctx)
	default:
		err = s.DisableLAN()
	}
	if err != nil {
		s.log.Warn("the admin page could not switch LAN access", "on", on, "err", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c.wantsLAN = true
	st := s.lanStateLocked()
	st.Problem = lanProblem(on, err)
	s.sendLocked(c, encodeLAN(st))
	var nre *NotRememberedError
	if on && (err == nil || errors.As(err, &nre)) && p.PIN != "" {
		s.sendLocked(c, encodePairing(p))
	}
}

// lanProblem says what went wrong with a switch, in words for the person
// at the admin page; "" for nil.
func lanProblem(on bool, err error) string {
	var nre *NotRememberedError
	var le *LANListenError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &nre) && nre.On:
		return "Phones can connect now, but Lets could not save this choice, so phone access will be off after Lets restarts. Check that config.json in the Lets folder can be written. (" + nre.Err.Error() + ")"
	case errors.As(err, &nre):
		return "Phones can no longer connect, but Lets could not save this choice, so phone access will be back after Lets restarts. Check that config.json in the Lets folder can be written. (" + nre.Err.Error() + ")"
	case errors.Is(err, ErrNoLANAddr):
		return "Lets found no Wi-Fi or home network on this computer for phones to join. Connect this computer to your network, then try again."
	case errors.Is(err, ErrLANOption), errors.Is(err, ErrLANResolve):
		return "Lets could not use the network address set in its settings (\"web\": {\"bind_host\"} in config.json): " + err.Error()
	case errors.As(err, &le):
		return "Lets could not open its network address for phones (" + le.Addr + "). Try again in a moment, or restart Lets."
	case errors.Is(err, ErrLANNotSwitchable):
		return "Phone access can't be changed from this page. Use “Pair a phone…” in the Lets menu."
	case !on:
		return "Lets could not switch phone access off: " + err.Error()
	default:
		return "Lets could not switch phone access on: " + err.Error()
	}
}
