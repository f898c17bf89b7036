package host

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/hostclient"
)

// The in-process client reaches the host API without host.json and without
// a token of its own; over TCP the same route still wants the token.
func TestLocalHandlerServesInProcessOnly(t *testing.T) {
	s := startHost(t)
	if resp := do(t, s, "GET", "/lip/status", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("TCP without a token: %d, want 401", resp.StatusCode)
	}
	if resp := do(t, s, "GET", "/lip/status", map[string]string{"Authorization": "Bearer local"}); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("TCP with a made-up token: %d, want 401", resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := hostclient.NewLocal(s.LocalHandler(), hostclient.Options{})
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatalf("in-process status: %v", err)
	}
	if st.Version != "9.9.9" || st.Port != s.Port() {
		t.Fatalf("in-process status = %+v", st)
	}
	// A foreign Origin set by the caller does not turn it into a refused
	// cross-origin request: the in-process entry is not a browser's.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://x/lip/windows", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", "http://evil.example")
	rec := &recorderForTest{header: http.Header{}}
	s.LocalHandler().ServeHTTP(rec, req)
	if rec.status != http.StatusOK && rec.status != http.StatusServiceUnavailable {
		t.Fatalf("in-process windows: %d", rec.status)
	}
}

type recorderForTest struct {
	header http.Header
	status int
}

func (r *recorderForTest) Header() http.Header { return r.header }
func (r *recorderForTest) WriteHeader(s int) {
	if r.status == 0 {
		r.status = s
	}
}
func (r *recorderForTest) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return len(b), nil
}
