package web

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// securityHeaders are the headers of §3.5 besides Content-Type and
// Content-Length.
var securityHeaders = map[string]string{
	"Cache-Control":           "no-store",
	"Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
	"Referrer-Policy":         "no-referrer",
	"X-Content-Type-Options":  "nosniff",
	"X-Frame-Options":         "DENY",
}

func checkHeaders(t *testing.T, resp *http.Response, body []byte, status int, ctype string) {
	t.Helper()
	if resp == nil {
		t.Fatalf("no response (body %q)", body)
	}
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d (body %q)", resp.StatusCode, status, body)
	}
	if got := resp.Header.Get("Content-Type"); got != ctype {
		t.Errorf("Content-Type %q, want %q", got, ctype)
	}
	if got := resp.Header.Get("Content-Length"); got != strconv.Itoa(len(body)) {
		t.Errorf("Content-Length %q, body %d bytes", got, len(body))
	}
	for k, v := range securityHeaders {
		if got := resp.Header.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if resp.Header.Get("Server") != "" {
		t.Errorf("Server header sent: %q", resp.Header.Get("Server"))
	}
	for k := range resp.Header {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Errorf("CORS header %s sent", k)
		}
	}
}

func TestCase001_IndexWithSecurityHeaders(t *testing.T) {
	e := newEnv(t, envOptions{})
	resp, body := e.get("/", "")
	checkHeaders(t, resp, body, 200, "text/html; charset=utf-8")
	if string(body) != string(testApp()["index.html"].Data) {
		t.Fatalf("body %q", body)
	}
}

func TestCase002And003_GeneratedLiveConfig(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, p := range []string{"/config.json", "/config.json?x=1", "//config.json", "/./config.json"} {
		resp, body := e.get(p, "")
		checkHeaders(t, resp, body, 200, "application/json; charset=utf-8")
		if string(body) != `{"mode":"live","protocol":1}` {
			t.Fatalf("%s: body %q (the bundle's own config.json must never be served)", p, body)
		}
	}
}

func TestCase004_NotFound(t *testing.T) {
	e := newEnv(t, envOptions{})
	resp, body := e.get("/nope", "")
	checkHeaders(t, resp, body, 404, "text/plain; charset=utf-8")
	if string(body) != "Not found\n" {
		t.Fatalf("body %q", body)
	}
}

func TestCase005_DirectoriesAre404(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, p := range []string{"/experiences", "/experiences/", "/assets/", "/experiences/audio"} {
		resp, body := e.get(p, "")
		checkHeaders(t, resp, body, 404, "text/plain; charset=utf-8")
		if resp.Header.Get("Location") != "" {
			t.Fatalf("%s redirected", p)
		}
	}
}

func TestCase006_DotDotIs404(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, p := range []string{"/../index.html", "/%2e%2e/index.html", "/assets/../index.html", "/%2E%2E/%2E%2E/etc/passwd", "/..%2findex.html"} {
		resp, body := e.get(p, "")
		checkHeaders(t, resp, body, 404, "text/plain; charset=utf-8")
	}
}

func TestCase007_EmptyAndDotSegments(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, p := range []string{"//index.html", "/./index.html", "/index.html", "/assets//index-DVFDf2Rz.js"} {
		resp, body := e.get(p, "")
		if resp == nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %v %q", p, resp, body)
		}
	}
}

func TestCase008_JavaScriptType(t *testing.T) {
	e := newEnv(t, envOptions{})
	resp, body := e.get("/assets/index-DVFDf2Rz.js", "")
	checkHeaders(t, resp, body, 200, "text/javascript; charset=utf-8")
	resp, body = e.get("/assets/index-DlxxM3fU.css", "")
	checkHeaders(t, resp, body, 200, "text/css; charset=utf-8")
	resp, body = e.get("/pad-lattice-logo.svg", "")
	checkHeaders(t, resp, body, 200, "image/svg+xml; charset=utf-8")
	resp, body = e.get("/experiences/demo-v1.json", "")
	checkHeaders(t, resp, body, 200, "application/json; charset=utf-8")
}

func TestCase009_WavFile(t *testing.T) {
	e := newEnv(t, envOptions{})
	resp, body := e.get("/experiences/audio/earcon-stop-none.wav", "")
	checkHeaders(t, resp, body, 200, "audio/x-wav; charset=utf-8")
	if len(body) != 23858 {
		t.Fatalf("%d bytes", len(body))
	}
}

func TestCase010_MissingHost(t *testing.T) {
	e := newEnv(t, envOptions{})
	// HTTP/1.0 may omit Host: the pipeline's own 400.
	resp, body := e.rawRequest("", "GET / HTTP/1.0\r\n\r\n")
	checkHeaders(t, resp, body, 400, "text/plain; charset=utf-8")
	if string(body) != "Invalid Host\n" {
		t.Fatalf("body %q", body)
	}
	// HTTP/1.1 without Host is refused by net/http itself, also with 400.
	resp, body = e.rawRequest("", "GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
	if resp == nil || resp.StatusCode != 400 {
		t.Fatalf("HTTP/1.1 without Host: %v %q", resp, body)
	}
	// Empty Host header.
	resp, body = e.rawRequest("", "GET / HTTP/1.0\r\nHost: \r\n\r\n")
	if resp == nil || resp.StatusCode != 400 {
		t.Fatalf("empty Host: %v %q", resp, body)
	}
}

func TestCase011_LocalhostAnyCase(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, h := range []string{"localhost:" + strconv.Itoa(e.port), "LOCALHOST:" + strconv.Itoa(e.port), "LocalHost:" + strconv.Itoa(e.port)} {
		resp, body := e.get("/", h)
		if resp == nil || resp.StatusCode != 200 {
			t.Fatalf("Host %s: %v %q", h, resp, body)
		}
	}
}

func TestCase012_BadHosts(t *testing.T) {
	e := newEnv(t, envOptions{})
	p := strconv.Itoa(e.port)
	for _, h := range []string{"[::1]:" + p, "127.0.0.1", "127.0.0.1:" + strconv.Itoa(e.port+1), "evil.com:" + p, "127.0.0.1:abc", "127.0.0.1:99999", "127.0.0.1:-1", "127.0.0.2:" + p} {
		resp, body := e.get("/", h)
		checkHeaders(t, resp, body, 400, "text/plain; charset=utf-8")
		if string(body) != "Invalid Host\n" {
			t.Fatalf("Host %s: body %q", h, body)
		}
	}
	// A Host with user info: net/http refuses it with 400 itself.
	if resp, body := e.get("/", "user@127.0.0.1:"+p); resp == nil || resp.StatusCode != 400 {
		t.Fatalf("user info: %v %q", resp, body)
	}
	// Two Host headers: net/http refuses the request with 400 itself.
	resp, body := e.rawRequest("", "GET / HTTP/1.1\r\nHost: 127.0.0.1:"+p+"\r\nHost: 127.0.0.1:"+p+"\r\nConnection: close\r\n\r\n")
	if resp == nil || resp.StatusCode != 400 {
		t.Fatalf("two Host headers: %v %q", resp, body)
	}
	// The Host check runs before routing: /ws and /config.json too.
	for _, path := range []string{"/ws", "/config.json", "/nope"} {
		resp, body := e.get(path, "evil.com:"+p)
		checkHeaders(t, resp, body, 400, "text/plain; charset=utf-8")
	}
	// An absolute-form request line does not get around the check.
	resp, body = e.rawRequest("", "GET http://127.0.0.1:"+p+"/ HTTP/1.1\r\nHost: evil.com:"+p+"\r\nConnection: close\r\n\r\n")
	if resp == nil || resp.StatusCode != 400 {
		t.Fatalf("absolute form: %v %q", resp, body)
	}
}

func TestCase015To017_OriginRejected(t *testing.T) {
	e := newEnv(t, envOptions{})
	p := strconv.Itoa(e.port)
	for _, o := range []string{"-", "http://localhost:" + p, "https://127.0.0.1:" + p, "null", "http://127.0.0.1:" + strconv.Itoa(e.port+1), "http://127.0.0.1", "ws://127.0.0.1:" + p, "http://user@127.0.0.1:" + p} {
		_, resp, err := e.dialOpts(dialOptions{origin: o})
		if err == nil || resp == nil || resp.StatusCode != 403 {
			t.Fatalf("Origin %q: %v %v", o, resp, err)
		}
	}
	// Two Origin headers.
	h := http.Header{}
	h.Add("Origin", "http://127.0.0.1:"+p)
	h.Add("Origin", "http://127.0.0.1:"+p)
	_, resp, err := e.dialOpts(dialOptions{origin: "-", header: h})
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Fatalf("two Origins: %v %v", resp, err)
	}
	// The exact body and headers, over a raw request.
	resp, body := e.get("/ws", "", "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n")
	checkHeaders(t, resp, body, 403, "text/plain; charset=utf-8")
	if string(body) != "WebSocket origin rejected\n" {
		t.Fatalf("body %q", body)
	}
}

func TestCase018_NoCompressionAndQueryIgnored(t *testing.T) {
	e := newEnv(t, envOptions{})
	p := strconv.Itoa(e.port)
	resp, _ := e.get("/ws?x=1", "", "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\nOrigin: http://127.0.0.1:"+p+"\r\n")
	if resp == nil || resp.StatusCode != 101 {
		t.Fatalf("upgrade: %v", resp)
	}
	if ext := resp.Header.Get("Sec-WebSocket-Extensions"); ext != "" {
		t.Fatalf("extensions %q", ext)
	}
	if sp := resp.Header.Get("Sec-WebSocket-Protocol"); sp != "" {
		t.Fatalf("subprotocol %q", sp)
	}
	if resp.Header.Get("Sec-WebSocket-Accept") != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("accept %q", resp.Header.Get("Sec-WebSocket-Accept"))
	}
	c := e.dial(dialOptions{path: "/ws?x=1"})
	c.auth(testAdminToken)
	c.expect(TypeAuthenticated)
}

func TestCase019_UpgradeHeadersOnAFile(t *testing.T) {
	e := newEnv(t, envOptions{})
	p := strconv.Itoa(e.port)
	resp, body := e.get("/index.html", "", "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:"+p+"\r\n")
	checkHeaders(t, resp, body, 200, "text/html; charset=utf-8")
}

func TestCase022_AdminURL(t *testing.T) {
	if got := AdminURL(8765, "local-admin-secret"); got != "http://127.0.0.1:8765/#admin=local-admin-secret" {
		t.Fatal(got)
	}
	e := newEnv(t, envOptions{})
	if got, want := e.s.AdminURL(), "http://127.0.0.1:"+strconv.Itoa(e.port)+"/#admin="+testAdminToken; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

func TestCase072_OnlyGET(t *testing.T) {
	e := newEnv(t, envOptions{})
	p := strconv.Itoa(e.port)
	for _, req := range []string{
		"HEAD / HTTP/1.1\r\nHost: 127.0.0.1:" + p + "\r\nConnection: close\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: 127.0.0.1:" + p + "\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
		"PUT /index.html HTTP/1.1\r\nHost: 127.0.0.1:" + p + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
		"OPTIONS /ws HTTP/1.1\r\nHost: 127.0.0.1:" + p + "\r\nOrigin: http://127.0.0.1:" + p + "\r\nConnection: close\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: 127.0.0.1:" + p + "\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc",
		"GET / HTTP/1.1\r\nHost: 127.0.0.1:" + p + "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n",
	} {
		resp, _ := e.rawRequest("", req)
		if resp != nil && resp.StatusCode < 300 {
			t.Fatalf("%q answered %d", req, resp.StatusCode)
		}
		if resp != nil && resp.StatusCode == 405 {
			for k, v := range securityHeaders {
				if resp.Header.Get(k) != v {
					t.Errorf("405 without %s", k)
				}
			}
		}
	}
}

func TestStaticPathsBelowAFileOrWithNUL(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, p := range []string{"/index.html/x", "/index.html%00", "/%00", "/a\\b"} {
		resp, body := e.get(p, "")
		if resp == nil || resp.StatusCode != 404 {
			t.Fatalf("%s: %v %q", p, resp, body)
		}
	}
}

func TestStaticName(t *testing.T) {
	for in, want := range map[string]string{
		"/": "index.html", "": "index.html", "//": "index.html", "/./": "index.html",
		"/a/b.js": "a/b.js", "/a//./b.js": "a/b.js",
	} {
		if got, ok := staticName(in); !ok || got != want {
			t.Errorf("%q → %q %v, want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"/..", "/a/../b", "/a\x00", "/a\\b"} {
		if got, ok := staticName(in); ok {
			t.Errorf("%q → %q, want refusal", in, got)
		}
	}
}
