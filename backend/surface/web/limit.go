package web

import (
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// cappedListener holds at most cap connections open at once. A connection
// over the cap is accepted and closed at once instead of waiting in the
// kernel's backlog: the client learns straight away, and the process never
// holds more descriptors for this listener than the cap, whatever a local
// program opens.
type cappedListener struct {
	net.Listener
	slots   chan struct{}
	log     *slog.Logger
	refused atomic.Int64
	// lastWarn is the unix-nano time of the last "over the cap" log line,
	// so a flood does not flood the log too.
	lastWarn atomic.Int64
}

// limitListener caps ln at max open connections.
func limitListener(ln net.Listener, max int, log *slog.Logger) net.Listener {
	return &cappedListener{Listener: ln, slots: make(chan struct{}, max), log: log}
}

// Accept returns the next connection that fits under the cap; it closes
// the ones that do not and keeps waiting. It returns only the listener's
// own errors (closed, out of descriptors), which http.Server handles.
func (l *cappedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &cappedConn{Conn: c, slots: l.slots}, nil
		default:
		}
		_ = c.Close()
		n := l.refused.Add(1)
		now := time.Now().UnixNano()
		if last := l.lastWarn.Load(); now-last > int64(10*time.Second) && l.lastWarn.CompareAndSwap(last, now) {
			l.log.Warn("the browser surface refused connections over its limit",
				"addr", l.Addr().String(), "limit", cap(l.slots), "refused_so_far", n)
		}
	}
}

// cappedConn gives its slot back when it is closed (by the HTTP server,
// or by the WebSocket code after a hijack), once.
type cappedConn struct {
	net.Conn
	slots   chan struct{}
	release sync.Once
}

func (c *cappedConn) Close() error {
	err := c.Conn.Close()
	c.release.Do(func() { <-c.slots })
	return err
}
