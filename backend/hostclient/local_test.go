package hostclient

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/hostapi"
)

// NewLocal serves requests with a handler in memory: no host.json, no
// socket; answers and refusals decode as over TCP.
func TestNewLocalCallsTheHandler(t *testing.T) {
	var pid string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pid = r.Header.Get(hostapi.HeaderClaudePID)
		switch r.URL.Path {
		case hostapi.PathWindows:
			_, _ = w.Write([]byte(`{"windows":[{"window":"w1","unique":"hello","title":"Hello","connected":true,"queued":0,"opened":5}]}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"code":"unknown_window","message":"window \"w9\" is not open","hint":"list_windows"}}`))
		}
	})
	c := NewLocal(h, Options{ClaudePID: 321})
	ws, err := c.Windows(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Windows) != 1 || ws.Windows[0].Window != "w1" || !ws.Windows[0].Connected || pid != "321" {
		t.Fatalf("windows %+v, pid header %q", ws, pid)
	}
	_, err = c.Close(testCtx(t), "w9")
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 404 || ae.Code != "unknown_window" || ae.Hint != hostapi.HintWindows {
		t.Fatalf("refusal: %#v", err)
	}
	if !strings.Contains(ae.Error(), "see GET /lip/windows") {
		t.Fatalf("a plain API client's words lost the hint: %v", ae)
	}
}
