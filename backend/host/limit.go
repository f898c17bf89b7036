package host

import (
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Connection caps of the host's listeners (issue #10). A local process can
// open connections faster than anything else on the machine; without a cap
// it could hold every file descriptor of the process, and the Wire socket,
// the other listeners and the session files would fail with "too many open
// files". Connections over the cap are closed as soon as they are
// accepted, so they hold nothing.
const (
	// DefaultMaxConns caps origin A: shell pages (one WebSocket each),
	// listen long-polls and CLI calls.
	DefaultMaxConns = 512
	// DefaultMaxUniqueConns caps each unique origin: one unique's page
	// loads its own files over a handful of connections.
	DefaultMaxUniqueConns = 128
	// DefaultReadHeaderTimeout bounds a request's headers, and a fresh
	// connection that says nothing.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultIdleTimeout closes keep-alive connections with nothing to do.
	DefaultIdleTimeout = 60 * time.Second
)

// limitListener accepts at most max connections open at once.
type limitListener struct {
	net.Listener
	name string
	log  *slog.Logger
	// slots holds one token per open connection.
	slots   chan struct{}
	refused atomic.Int64
	// lastWarn throttles the log line about refused connections.
	lastWarn atomic.Int64
}

func newLimitListener(ln net.Listener, max int, name string, log *slog.Logger) *limitListener {
	return &limitListener{Listener: ln, name: name, log: log, slots: make(chan struct{}, max)}
}

// Accept returns the next connection within the cap; connections over it
// are closed at once and not returned.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &limitedConn{Conn: c, release: l.release}, nil
		default:
		}
		_ = c.Close()
		n := l.refused.Add(1)
		now := time.Now().UnixNano()
		if last := l.lastWarn.Load(); now-last > int64(10*time.Second) && l.lastWarn.CompareAndSwap(last, now) {
			l.log.Warn("too many open connections; refusing new ones until some close (is a local program flooding Lets?)",
				"listener", l.name, "limit", cap(l.slots), "refused_so_far", n)
		}
	}
}

func (l *limitListener) release() { <-l.slots }

// open is the number of connections holding a slot.
func (l *limitListener) open() int { return len(l.slots) }

// limitedConn gives its slot back when it is closed (also after a
// WebSocket took it over from the HTTP server).
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
