package host

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/lets-app/lets/backend/hostapi"
)

func startHost(t *testing.T) *Server {
	t.Helper()
	pages := fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>Lets</title>")}}
	now := time.Unix(1000, 0)
	s, err := Listen(Options{Token: "host-secret", Version: "9.9.9", DataDir: "/data", Pages: pages, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.srv.Serve(s.ln) }()
	t.Cleanup(func() { _ = s.srv.Close() })
	return s
}

func do(t *testing.T, s *Server, method, path string, hdr map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, s.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func TestListenRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:0", "example.com:0"} {
		if _, err := Listen(Options{Token: "t", Addr: addr}); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("%s: got %v, want a loopback refusal", addr, err)
		}
	}
	if _, err := Listen(Options{}); err == nil {
		t.Error("a host without a token must not start")
	}
}

func TestStatusNeedsTheHostToken(t *testing.T) {
	s := startHost(t)
	for name, hdr := range map[string]map[string]string{
		"none":   nil,
		"wrong":  {"Authorization": "Bearer nope"},
		"prefix": {"Authorization": "Bearer host-secre"},
		"basic":  {"Authorization": "Basic host-secret"},
	} {
		resp := do(t, s, "GET", "/lip/status", hdr)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", name, resp.StatusCode)
		}
		var body hostapi.ErrorBody
		_ = json.NewDecoder(resp.Body).Decode(&body)
		if body.Error.Code != "unauthorized" {
			t.Errorf("%s: error code %q", name, body.Error.Code)
		}
	}
	for name, hdr := range map[string]map[string]string{
		"bearer": {"Authorization": "Bearer host-secret"},
		"header": {"X-Lets-Token": "host-secret"},
	} {
		resp := do(t, s, "GET", "/lip/status", hdr)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", name, resp.StatusCode)
		}
		var st hostapi.Status
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
			t.Fatal(err)
		}
		if st.Version != "9.9.9" || st.DataDir != "/data" || st.Port != s.Port() {
			t.Fatalf("status = %+v", st)
		}
	}
	if resp := do(t, s, "GET", "/lip/status?t=host-secret", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("query token on GET: %d", resp.StatusCode)
	}
}

func TestHostAndOriginChecks(t *testing.T) {
	s := startHost(t)
	p := strconv.Itoa(s.Port())
	for _, host := range []string{"evil.example:" + p, "127.0.0.1:1", "localhost", "127.0.0.2:" + p} {
		if resp := do(t, s, "GET", "/lip/health", map[string]string{"Host": host}); resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("Host %q: %d, want 421", host, resp.StatusCode)
		}
	}
	for _, host := range []string{"127.0.0.1:" + p, "localhost:" + p, "[::1]:" + p} {
		if resp := do(t, s, "GET", "/lip/health", map[string]string{"Host": host}); resp.StatusCode != http.StatusOK {
			t.Errorf("Host %q: %d, want 200", host, resp.StatusCode)
		}
	}
	for _, origin := range []string{"http://evil.example", "http://127.0.0.1:1", "null", "https://127.0.0.1:" + p} {
		resp := do(t, s, "GET", "/lip/status", map[string]string{"Origin": origin, "Authorization": "Bearer host-secret"})
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("Origin %q: %d, want 403", origin, resp.StatusCode)
		}
	}
	if resp := do(t, s, "GET", "/lip/health", map[string]string{"Origin": "http://127.0.0.1:" + p}); resp.StatusCode != http.StatusOK {
		t.Errorf("own origin refused: %d", resp.StatusCode)
	}
}

func TestPagesCarrySecurityHeaders(t *testing.T) {
	s := startHost(t)
	resp := do(t, s, "GET", "/", nil)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "<title>Lets</title>") {
		t.Fatalf("home: %d %q", resp.StatusCode, body)
	}
	for k, want := range map[string]string{
		"Content-Security-Policy": "default-src 'self'",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
		"X-Frame-Options":         "DENY",
	} {
		if got := resp.Header.Get(k); !strings.Contains(got, want) {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if resp := do(t, s, "GET", "/../../etc/passwd", nil); resp.StatusCode == 200 {
		t.Fatal("path traversal served a file")
	}
}

func TestHealthHoldsNoSecrets(t *testing.T) {
	s := startHost(t)
	resp := do(t, s, "GET", "/lip/health", nil)
	body, _ := io.ReadAll(resp.Body)
	if strings.Contains(string(body), "host-secret") || strings.Contains(string(body), "/data") {
		t.Fatalf("health leaks: %s", body)
	}
}
