package host

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/netguard"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// keepAlive is one raw HTTP/1.1 connection that stays open between
// requests, as a flooding local process would hold it.
type keepAlive struct {
	c  net.Conn
	rd *bufio.Reader
}

func dialKeepAlive(t *testing.T, port int) *keepAlive {
	t.Helper()
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), ioTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &keepAlive{c: c, rd: bufio.NewReader(c)}
}

// get sends GET path and returns the status, or an error when the server
// closed the connection instead of answering.
func (k *keepAlive) get(port int, path string) (int, error) {
	_ = k.c.SetDeadline(time.Now().Add(ioTimeout))
	if _, err := io.WriteString(k.c, "GET "+path+" HTTP/1.1\r\nHost: 127.0.0.1:"+strconv.Itoa(port)+"\r\n\r\n"); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(k.rd, nil)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// closedWithin reports whether the server closes the connection (a read
// ends in EOF or a reset) within d.
func (k *keepAlive) closedWithin(d time.Duration) bool {
	_ = k.c.SetReadDeadline(time.Now().Add(d))
	_, err := k.rd.ReadByte()
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

func waitOpen(t *testing.T, l *netguard.LimitListener, want int) {
	t.Helper()
	testutil.Eventually(t, fmt.Sprintf("%s holds %d connections", l.Addr(), want), func() bool { return l.Open() == want })
}

// TestListenersCapConnections (issue #10, resource caps): on origin A and
// on a unique's origin, connections beyond the cap are closed at once
// while the ones inside it keep working, and a closed one frees its slot.
func TestListenersCapConnections(t *testing.T) {
	th := startLIPHost(t, func(o *Options) { o.MaxConns = 4; o.MaxUniqueConns = 3; o.IdleTimeout = time.Minute })
	th.openOnly(t, "board", "") // starts the unique's origin
	http.DefaultClient.CloseIdleConnections()
	o, _ := th.origins.get("board")
	for _, tc := range []struct {
		name string
		port int
		ln   *netguard.LimitListener
		path string
		want int
	}{
		{"origin A", th.Port(), th.ln.(*netguard.LimitListener), "/lip/health", 200},
		{"unique origin", o.port, o.ln.(*netguard.LimitListener), "/index.html", 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			waitOpen(t, tc.ln, 0)
			max := tc.ln.Cap()
			held := make([]*keepAlive, max)
			for i := range held {
				held[i] = dialKeepAlive(t, tc.port)
				if code, err := held[i].get(tc.port, tc.path); err != nil || code != tc.want {
					t.Fatalf("connection %d inside the cap: %d %v", i+1, code, err)
				}
			}
			// Over the cap: closed at once, whether it asks or not.
			for range 3 {
				extra := dialKeepAlive(t, tc.port)
				// Closed, not left hanging: a refusal that waited would end
				// in the read deadline (ioTimeout) instead of EOF/reset.
				code, err := extra.get(tc.port, tc.path)
				if err == nil {
					t.Fatalf("connection over the cap was answered %d", code)
				}
				if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
					t.Fatalf("a connection over the cap was left open: %v", err)
				}
			}
			// The held ones still work.
			for i, k := range held {
				if code, err := k.get(tc.port, tc.path); err != nil || code != tc.want {
					t.Fatalf("held connection %d after the refusals: %d %v", i+1, code, err)
				}
			}
			// Closing one frees a slot for a newcomer.
			held[0].c.Close()
			waitOpen(t, tc.ln, max-1)
			again := dialKeepAlive(t, tc.port)
			if code, err := again.get(tc.port, tc.path); err != nil || code != tc.want {
				t.Fatalf("connection after one closed: %d %v", code, err)
			}
			for _, k := range append(held[1:], again) {
				k.c.Close()
			}
			waitOpen(t, tc.ln, 0)
		})
	}
}

// TestListenersCloseIdleConnections (issue #10, resource caps): keep-alive
// connections with nothing to do and connections that never send a request
// are closed after the timeouts, on origin A and on a unique's origin.
func TestListenersCloseIdleConnections(t *testing.T) {
	th := startLIPHost(t, func(o *Options) { o.IdleTimeout = 300 * time.Millisecond; o.ReadHeaderTimeout = 300 * time.Millisecond })
	th.openOnly(t, "board", "")
	http.DefaultClient.CloseIdleConnections()
	o, _ := th.origins.get("board")
	for _, tc := range []struct {
		name string
		port int
		ln   *netguard.LimitListener
		path string
	}{
		{"origin A", th.Port(), th.ln.(*netguard.LimitListener), "/lip/health"},
		{"unique origin", o.port, o.ln.(*netguard.LimitListener), "/index.html"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idle := dialKeepAlive(t, tc.port)
			if _, err := idle.get(tc.port, tc.path); err != nil {
				t.Fatal(err)
			}
			silent := dialKeepAlive(t, tc.port)
			if !idle.closedWithin(ioTimeout) || !silent.closedWithin(ioTimeout) {
				t.Fatal("an idle or silent connection stayed open past the timeouts")
			}
			waitOpen(t, tc.ln, 0)
		})
	}
}
