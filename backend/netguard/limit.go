package netguard

import (
	"log/slog"
	"net"
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

// Accept returns the next connection that fits under the cap; it closes
// the ones that do not and keeps waiting. It returns only the listener's
// own errors (closed, out of descriptors), which http.Server handles.
func (l *LimitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &limitedConn{Conn: c, slots: l.slots}, nil
		default:
		}
		_ = c.Close()
		n := l.refused.Add(1)
		now := time.Now().UnixNano()
		if last := l.lastWarn.Load(); now-last > int64(warnEvery) && l.lastWarn.CompareAndSwap(last, now) {
			l.log.Warn("too many open connections; refusing new ones until some close (is a local program flooding Lets?)",
				"listener", l.name, "addr", l.Addr().String(), "limit", cap(l.slots), "refused_so_far", n)
		}
	}
}

// Open is the number of connections holding a slot.
func (l *LimitListener) Open() int { return len(l.slots) }

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
