package web

import (
	"bufio"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/netguard"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Issue #10: "/config.json#frag must be served like /config.json" (§3.1:
// the fragment is ignored). Browsers never send a fragment, but a raw
// client can, and Go's request parser leaves it in URL.Path. Sent over a
// raw socket, byte for byte.
func TestFragmentInRawRequestTargetIsIgnored(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, target := range []string{"/config.json#x", "/config.json#", "/config.json?x=1#y", "/config.json#y?x=1", "//config.json#frag"} {
		resp, body := e.get(target, "")
		checkHeaders(t, resp, body, 200, "application/json; charset=utf-8")
		if string(body) != LiveConfig {
			t.Fatalf("GET %s: body %q, want the generated live config", target, body)
		}
	}
	resp, body := e.get("/#admin=nothing", "")
	checkHeaders(t, resp, body, 200, "text/html; charset=utf-8")
	if string(body) != string(testApp()["index.html"].Data) {
		t.Fatalf("GET /#admin=…: body %q, want index.html", body)
	}
	// An encoded "#" is part of the path, not a fragment.
	resp, body = e.get("/config.json%23x", "")
	checkHeaders(t, resp, body, 404, "text/plain; charset=utf-8")

	// The WebSocket endpoint is routed the same way.
	resp, body = e.get("/ws#x", "",
		"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n",
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: http://127.0.0.1:"+strconv.Itoa(e.port)+"\r\n")
	if resp == nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("GET /ws#x upgrade: %v %q, want 101", resp, body)
	}
}

// rawConn is one kept-alive HTTP/1.1 connection to the server.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, to string, port int) *rawConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp4", net.JoinHostPort(to, strconv.Itoa(port)), ioTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawConn{t: t, nc: nc, br: bufio.NewReader(nc)}
}

// get sends one keep-alive request and returns the response, or the error
// that ended the connection instead.
func (c *rawConn) get(path, host string) (*http.Response, error) {
	c.nc.SetDeadline(time.Now().Add(ioTimeout))
	if _, err := io.WriteString(c.nc, "GET "+path+" HTTP/1.1\r\nHost: "+host+"\r\n\r\n"); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, err
}

// mustGet expects a 200 for path on this connection.
func (c *rawConn) mustGet(path, host string) {
	c.t.Helper()
	resp, err := c.get(path, host)
	if err != nil || resp.StatusCode != http.StatusOK {
		c.t.Fatalf("GET %s on a connection under the cap: %v %v", path, resp, err)
	}
}

// isTimeout reports whether err is a deadline passing: a connection over
// the cap must be closed by the server, not left hanging until ioTimeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// closedWithin reports whether the server closes the connection (without
// sending anything) within d.
func (c *rawConn) closedWithin(d time.Duration) bool {
	c.nc.SetReadDeadline(time.Now().Add(d))
	n, err := c.br.Read(make([]byte, 1))
	if n > 0 {
		c.t.Fatalf("the server sent data on a connection it should close")
	}
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// Issue #10: resource caps on every HTTP listener. Beyond the per-listener
// cap a new connection is closed at once; the connections under the cap
// keep working; once one closes, a new one fits again.
func TestListenerConnectionCapRefusesExtraConnections(t *testing.T) {
	const capN = 3
	e := newEnv(t, envOptions{listenerCap: capN})
	host := "127.0.0.1:" + strconv.Itoa(e.port)
	var held []*rawConn
	for range capN {
		c := dialRaw(t, "127.0.0.1", e.port)
		c.mustGet("/index.html", host)
		held = append(held, c)
	}
	extra := dialRaw(t, "127.0.0.1", e.port)
	if resp, err := extra.get("/index.html", host); err == nil || isTimeout(err) {
		t.Fatalf("connection %d over a cap of %d was not closed: %v %v", capN+1, capN, resp, err)
	}
	for _, c := range held {
		c.mustGet("/config.json", host)
	}
	held[0].nc.Close()
	waitServed(t, e.port, host)
}

// waitServed waits until a new connection is served again: the server
// gives a slot back just after closing the connection that held it, so
// the client may see the close a moment earlier.
func waitServed(t *testing.T, port int, host string) *rawConn {
	t.Helper()
	var served *rawConn
	testutil.Eventually(t, "a freed slot is reused", func() bool {
		c := dialRaw(t, "127.0.0.1", port)
		if resp, err := c.get("/index.html", host); err == nil && resp.StatusCode == http.StatusOK {
			served = c
			return true
		}
		c.nc.Close()
		return false
	})
	return served
}

// WebSockets count towards the listener cap too (they hold a connection),
// and a browser already connected keeps working when the cap is reached.
func TestListenerConnectionCapCountsWebSockets(t *testing.T) {
	e := newEnv(t, envOptions{listenerCap: 2})
	a := e.admin()
	b := e.dial(dialOptions{})
	b.auth(testAdminToken)
	b.expect(TypeAuthenticated)
	if c, resp, err := e.dialOpts(dialOptions{}); err == nil {
		c.Close()
		t.Fatalf("a third connection over a cap of 2 was upgraded: %v", resp.Status)
	}
	a.send(map[string]any{"type": TypeSelectSession, "slot": 3})
	if got := e.events(1); len(got) != 1 || got[0] != sessionSelected(3) {
		t.Fatalf("the connected browser stopped working at the cap: %v", got)
	}
}

// Filling the loopback listener leaves the LAN listener its own
// connections (the cap is per listener).
func TestListenerConnectionCapIsPerListener(t *testing.T) {
	e := newEnv(t, envOptions{lan: true, listenerCap: 2})
	loop := "127.0.0.1:" + strconv.Itoa(e.port)
	for range 2 {
		dialRaw(t, "127.0.0.1", e.port).mustGet("/index.html", loop)
	}
	if _, err := dialRaw(t, "127.0.0.1", e.port).get("/index.html", loop); err == nil || isTimeout(err) {
		t.Fatal("the full loopback listener served one more connection")
	}
	dialRaw(t, lanBind.String(), e.port).mustGet("/index.html", "pad-host.local:"+strconv.Itoa(e.port))
}

// Idle keep-alive connections are closed after the idle timeout, which
// frees their slots; a connection that never sends its headers is closed
// after the read-header timeout.
func TestIdleAndSilentConnectionsAreClosed(t *testing.T) {
	e := newEnv(t, envOptions{listenerCap: 2, idle: 300 * time.Millisecond, readHeader: 300 * time.Millisecond})
	host := "127.0.0.1:" + strconv.Itoa(e.port)
	idle := dialRaw(t, "127.0.0.1", e.port)
	idle.mustGet("/index.html", host)
	silent := dialRaw(t, "127.0.0.1", e.port)
	if !idle.closedWithin(ioTimeout) {
		t.Fatal("an idle keep-alive connection stayed open past the idle timeout")
	}
	if !silent.closedWithin(ioTimeout) {
		t.Fatal("a connection that sent no request stayed open past the read-header timeout")
	}
	// Both slots are free again.
	waitServed(t, e.port, host)
	waitServed(t, e.port, host)
}

func TestListenerLimitOptionsMustNotBeNegative(t *testing.T) {
	for _, o := range []Options{{MaxListenerConnections: -1}, {IdleTimeout: -time.Second}, {ReadHeaderTimeout: -1}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted a negative limit", o)
		}
	}
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.opts.MaxListenerConnections != DefaultMaxListenerConnections || s.opts.IdleTimeout != DefaultIdleTimeout || s.opts.ReadHeaderTimeout != DefaultReadHeaderTimeout {
		t.Fatalf("defaults not applied: %+v", s.opts)
	}
	if DefaultMaxListenerConnections <= MaxConnections {
		t.Fatal("the listener cap must leave room for every WebSocket plus page loads")
	}
}

var adminOpenURLPattern = regexp.MustCompile(`^http://127\.0\.0\.1:(\d+)/admin/open/([A-Za-z0-9_-]{43})$`)

// getFrom sends one GET from a chosen local address and returns the
// response (redirects are not followed).
func (e *env) getFrom(from, to, path, host string) (*http.Response, string) {
	e.t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: ioTimeout}
	nc, err := d.Dial("tcp4", net.JoinHostPort(to, strconv.Itoa(e.port)))
	if err != nil {
		e.t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(ioTimeout))
	if _, err := io.WriteString(nc, "GET "+path+" HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n"); err != nil {
		e.t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

// Issue #10: the desktop opener gets a one-time link, not the admin token
// (a command line is readable by every local user). The link redirects
// once to /#admin=<token>; a second visit gets a friendly page.
func TestAdminOpenURLWorksOnce(t *testing.T) {
	e := newEnv(t, envOptions{})
	u, err := e.s.AdminOpenURL()
	if err != nil {
		t.Fatal(err)
	}
	m := adminOpenURLPattern.FindStringSubmatch(u)
	if m == nil || m[1] != strconv.Itoa(e.port) {
		t.Fatalf("one-time link %q, want http://127.0.0.1:%d/admin/open/<43 characters>", u, e.port)
	}
	if strings.Contains(u, testAdminToken) {
		t.Fatalf("the one-time link carries the admin token: %s", u)
	}
	path := strings.TrimPrefix(u, "http://127.0.0.1:"+m[1])
	host := "127.0.0.1:" + m[1]

	resp, _ := e.getFrom("127.0.0.1", "127.0.0.1", path, host)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/#admin="+testAdminToken {
		t.Fatalf("first visit: %s, Location %q; want 303 to /#admin=<token>", resp.Status, resp.Header.Get("Location"))
	}
	for k, v := range securityHeaders {
		if resp.Header.Get(k) != v {
			t.Errorf("redirect: %s = %q, want %q", k, resp.Header.Get(k), v)
		}
	}

	resp, body := e.getFrom("127.0.0.1", "127.0.0.1", path, host)
	if resp.StatusCode != http.StatusGone || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("second visit: %s %q, want 410 with a page", resp.Status, resp.Header.Get("Content-Type"))
	}
	if !strings.Contains(body, "already used") || !strings.Contains(body, `href="/"`) || strings.Contains(body, testAdminToken) {
		t.Fatalf("second visit: page %q should explain the link was used, link to the pad and never show the token", body)
	}
	if resp.Header.Get("Location") != "" {
		t.Fatal("a used link still redirects")
	}

	// A made-up code gets the same page; "localhost" works as a Host.
	resp, _ = e.getFrom("127.0.0.1", "127.0.0.1", adminOpenPrefix+strings.Repeat("A", 43), "localhost:"+m[1])
	if resp.StatusCode != http.StatusGone {
		t.Fatalf("made-up code: %s", resp.Status)
	}
	// The Host check still comes first.
	resp, _ = e.getFrom("127.0.0.1", "127.0.0.1", path, "evil.example:"+m[1])
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad Host: %s", resp.Status)
	}
}

// A one-time link expires AdminOpenTTL (60) seconds after it was made.
func TestAdminOpenURLExpires(t *testing.T) {
	e := newEnv(t, envOptions{})
	host := "127.0.0.1:" + strconv.Itoa(e.port)
	late, _ := e.s.AdminOpenURL()
	inTime, _ := e.s.AdminOpenURL()
	if late == inTime {
		t.Fatal("two one-time links are the same")
	}
	e.advance(AdminOpenTTL - 0.001)
	resp, _ := e.getFrom("127.0.0.1", "127.0.0.1", strings.TrimPrefix(inTime, "http://"+host), host)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("just before expiry: %s", resp.Status)
	}
	e.advance(0.001)
	resp, _ = e.getFrom("127.0.0.1", "127.0.0.1", strings.TrimPrefix(late, "http://"+host), host)
	if resp.StatusCode != http.StatusGone {
		t.Fatalf("at expiry: %s, want 410", resp.Status)
	}
}

// Only this machine's administrator may exchange a link: a LAN peer is
// refused, and the refusal does not use the link up.
func TestAdminOpenURLRefusesLANPeers(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	u, _ := e.s.AdminOpenURL()
	path := strings.TrimPrefix(u, "http://127.0.0.1:"+strconv.Itoa(e.port))
	resp, body := e.getFrom("127.0.0.5", lanBind.String(), path, "pad-host.local:"+strconv.Itoa(e.port))
	if resp.StatusCode != http.StatusForbidden || strings.Contains(body, testAdminToken) || resp.Header.Get("Location") != "" {
		t.Fatalf("LAN peer: %s %q", resp.Status, body)
	}
	resp, _ = e.getFrom("127.0.0.1", "127.0.0.1", path, "127.0.0.1:"+strconv.Itoa(e.port))
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the administrator after a refused LAN peer: %s", resp.Status)
	}
}

// Live links are bounded: making many keeps only the newest few.
func TestAdminOpenURLKeepsOnlyTheNewestLinks(t *testing.T) {
	e := newEnv(t, envOptions{})
	host := "127.0.0.1:" + strconv.Itoa(e.port)
	var urls []string
	for range maxAdminOpenCodes + 3 {
		u, err := e.s.AdminOpenURL()
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, u)
	}
	e.s.mu.Lock()
	n := len(e.s.adminOpen)
	e.s.mu.Unlock()
	if n != maxAdminOpenCodes {
		t.Fatalf("%d live links, want %d", n, maxAdminOpenCodes)
	}
	if resp, _ := e.getFrom("127.0.0.1", "127.0.0.1", strings.TrimPrefix(urls[0], "http://"+host), host); resp.StatusCode != http.StatusGone {
		t.Fatalf("the oldest link still works: %s", resp.Status)
	}
	if resp, _ := e.getFrom("127.0.0.1", "127.0.0.1", strings.TrimPrefix(urls[len(urls)-1], "http://"+host), host); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the newest link: %s", resp.Status)
	}
	closed, _ := New(Options{})
	if _, err := closed.AdminOpenURL(); err == nil {
		t.Fatal("a link made before Open")
	}
}

// Issue #10: no test hooks in the product API. No exported identifier of
// the package's product files (types, functions, fields, constants,
// variables) is named Test…; test rigs use AllowLoopbackLAN, which is a
// documented option, and the package's own tests use unexported fields.
func TestProductCodeExportsNoTestHooks(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.IsExported() && strings.HasPrefix(id.Name, "Test") {
				t.Errorf("%s: product code names %s; test seams belong in _test.go files or in unexported fields", fset.Position(id.Pos()), id.Name)
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no product files found")
	}
}

// A browser that has its 101 already holds its slot (§9: slots are
// reserved at upgrade time). The slot used to be taken after the 101 went
// out, so the next browser could slip into it and the earlier one got
// connection_limit instead (TestCase061 failed now and then that way).
func TestSlotIsTakenBeforeTheUpgradeIsAnswered(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	for i := range MaxRemoteConnections {
		e.remote(3 + i)
		e.s.mu.Lock()
		reserved, remote := e.s.reserved, e.s.remote
		e.s.mu.Unlock()
		if reserved != i+1 || remote != i+1 {
			t.Fatalf("after browser %d got its 101 the server holds %d slots (%d remote), want %d", i+1, reserved, remote, i+1)
		}
	}
	ninth := e.remote(20)
	ninth.expectError(CodeConnectionLimit, "browser connection limit reached")
	ninth.expectClose(1000, "")
	e.s.mu.Lock()
	reserved := e.s.reserved
	e.s.mu.Unlock()
	if reserved != MaxRemoteConnections {
		t.Fatalf("a refused browser changed the count: %d slots held", reserved)
	}
}

// The one-time code shows in the opener's command line for a moment, so
// another local user could race the browser to it. On Linux the link is
// honoured only for a socket owned by the user running Lets; a refusal
// does not use the link up.
func TestAdminOpenURLRefusesOtherOSUsers(t *testing.T) {
	var otherUser, broken atomic.Bool
	e := newEnv(t, envOptions{peerUID: func(client, server netip.AddrPort) (int, error) {
		if broken.Load() {
			return -1, netguard.ErrSocketOwnerUnknown
		}
		uid, err := netguard.SocketOwnerUID(client, server)
		if otherUser.Load() {
			uid++
		}
		return uid, err
	}})
	if runtime.GOOS != "linux" {
		t.Skip("socket owners are read from /proc/net/tcp on Linux only")
	}
	host := "127.0.0.1:" + strconv.Itoa(e.port)
	u, _ := e.s.AdminOpenURL()
	path := strings.TrimPrefix(u, "http://"+host)

	otherUser.Store(true)
	resp, body := e.getFrom("127.0.0.1", "127.0.0.1", path, host)
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Location") != "" || !strings.Contains(body, "Another account") || strings.Contains(body, testAdminToken) {
		t.Fatalf("another user's socket: %s %q", resp.Status, body)
	}
	otherUser.Store(false)
	broken.Store(true)
	if resp, _ := e.getFrom("127.0.0.1", "127.0.0.1", path, host); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("an owner that cannot be told: %s, want 403", resp.Status)
	}
	broken.Store(false)
	if resp, _ := e.getFrom("127.0.0.1", "127.0.0.1", path, host); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the right user after the refusals: %s, want 303", resp.Status)
	}
}

// A flood of connections from one local process (the 20 000
// keep-alive connections, scaled down) never makes the listener hold more
// than its cap, so the process keeps descriptors for its other sockets;
// a browser that got in before the flood keeps working.
func TestConnectionFloodStaysUnderTheCap(t *testing.T) {
	const capN, flood = 8, 300
	e := newEnv(t, envOptions{listenerCap: capN})
	host := "127.0.0.1:" + strconv.Itoa(e.port)
	first := dialRaw(t, "127.0.0.1", e.port)
	first.mustGet("/index.html", host)
	ln := e.s.lnLoop.(*netguard.LimitListener)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	most := 0
	for range flood {
		c, err := net.DialTimeout("tcp4", host, ioTimeout)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		most = max(most, ln.Open())
	}
	if most > capN {
		t.Fatalf("the listener held %d connections, over its cap of %d", most, capN)
	}
	first.mustGet("/config.json", host)
	testutil.Poll(ioTimeout, func() bool { return ln.Refused() >= flood-capN+1 })
	if got := ln.Refused(); got < flood-capN+1 {
		t.Fatalf("%d connections refused, want at least %d", got, flood-capN+1)
	}
}
