package netguard

import (
	"log/slog"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// warnEvery throttles the log line about refused connections, so a flood
// does not flood the log too.
const warnEvery = 10 * time.Second

// LimitListener holds at most a fixed number of connections open at once.
// A connection over the cap is accepted and closed at once instead of
// waiting in the kernel's backlog: the client learns straight away, and
// the process never holds more descriptors for this listener than the
// cap, whatever a local program opens.
type LimitListener struct {
	net.Listener
	name string
	log  *slog.Logger
	// slots holds one token per open connection.
	slots   chan struct{}
	refused atomic.Int64
	// lastWarn is the unix-nano time of the last "over the cap" log line.
	lastWarn atomic.Int64

	// Other local users get a share of their own (SeparateOtherUsers):
	// foreign holds one token per open connection of another uid; nil
	// means every connection counts against slots.
	foreign chan struct{}
	self    int
	owner   func(client, server netip.AddrPort) (int, error)
}

// Limit caps ln at max open connections; name says which listener it is in
// the log. A nil log discards.
func Limit(ln net.Listener, max int, name string, log *slog.Logger) *LimitListener {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if max < 1 {
		max = 1
	}
	return &LimitListener{Listener: ln, name: name, log: log, slots: make(chan struct{}, max)}
}

// SeparateOtherUsers gives connections of other local users a share of
// their own, at most max open at once, so another user who opens
// connections as fast as it can fills only that share and never the
// person's. self is the uid running Lets; owner tells who owns the
// client's socket (nil: SocketOwnerUID). A connection whose owner cannot
// be told (not Linux, not loopback) counts as the person's. Call it before
// the first Accept.
func (l *LimitListener) SeparateOtherUsers(max, self int, owner func(client, server netip.AddrPort) (int, error)) {
	if max < 1 {
		max = 1
	}
	if owner == nil {
		owner = SocketOwnerUID
	}
	l.foreign, l.self, l.owner = make(chan struct{}, max), self, owner
}

// share returns the slots c counts against: another user's share when
// c's socket belongs to another uid, else the person's.
func (l *LimitListener) share(c net.Conn) chan struct{} {
	if l.foreign == nil {
		return l.slots
	}
	client, err1 := netip.ParseAddrPort(c.RemoteAddr().String())
	server, err2 := netip.ParseAddrPort(c.LocalAddr().String())
	if err1 != nil || err2 != nil || !client.Addr().IsLoopback() {
		return l.slots
	}
	uid, err := l.owner(client, server)
	if err != nil || uid == l.self {
		return l.slots
	}
	return l.foreign
}

// Accept returns the next connection that fits under the cap; it closes
// the ones that do not and keeps waiting. It returns only the listener's
// own errors (closed, out of descriptors), which http.Server handles.
func (l *LimitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		slots := l.share(c)
		select {
		case slots <- struct{}{}:
			return &limitedConn{Conn: c, slots: slots}, nil
		default:
		}
		_ = c.Close()
		n := l.refused.Add(1)
		now := time.Now().UnixNano()
		if last := l.lastWarn.Load(); now-last > int64(warnEvery) && l.lastWarn.CompareAndSwap(last, now) {
			l.log.Warn("too many open connections; refusing new ones until some close (is a local program flooding Lets?)",
				"listener", l.name, "addr", l.Addr().String(), "limit", cap(l.slots), "other_users_open", l.OtherUsersOpen(), "refused_so_far", n)
		}
	}
}

// Open is the number of the person's connections holding a slot.
func (l *LimitListener) Open() int { return len(l.slots) }

// OtherUsersOpen is the number of other users' connections open (0 unless
// SeparateOtherUsers was called).
func (l *LimitListener) OtherUsersOpen() int { return len(l.foreign) }

// Refused is how many connections were closed for being over the cap.
func (l *LimitListener) Refused() int64 { return l.refused.Load() }

// Cap is the most connections held open at once.
func (l *LimitListener) Cap() int { return cap(l.slots) }

// limitedConn gives its slot back when it is closed (by the HTTP server,
// or by WebSocket code after a hijack), once.
type limitedConn struct {
	net.Conn
	slots   chan struct{}
	release sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.release.Do(func() { <-c.slots })
	return err
}

// LimitLocal is Limit for a loopback listener of the person's: other
// local users share a sixteenth of the cap (at least 2) between them, so
// they cannot fill the person's part (SeparateOtherUsers).
func LimitLocal(ln net.Listener, max int, name string, log *slog.Logger) *LimitListener {
	l := Limit(ln, max, name, log)
	l.SeparateOtherUsers(OtherUsersShare(cap(l.slots)), os.Getuid(), nil)
	return l
}

// OtherUsersShare is the part of a cap of max connections that LimitLocal
// leaves to other local users.
func OtherUsersShare(limit int) int { return max(2, limit/16) }
