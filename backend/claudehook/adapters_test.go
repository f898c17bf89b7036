package claudehook_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/hostclient"
)

// recordingDoer records one request and answers with canned JSON. It is
// the host's handler behind an in-memory host client.
type recordingDoer struct {
	method, path string
	query        url.Values
	body         []byte
	answer       string
	err          error
}

func (d *recordingDoer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.method, d.path, d.query, d.body = r.Method, r.URL.Path, nil, nil
	if r.URL.RawQuery != "" {
		d.query = r.URL.Query()
	}
	if b, _ := io.ReadAll(r.Body); len(b) > 0 {
		d.body = b
	}
	if d.err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":{"code":"internal","message":` + strconv.Quote(d.err.Error()) + `}}`))
		return
	}
	answer := d.answer
	if answer == "" {
		answer = "{}"
	}
	_, _ = w.Write([]byte(answer))
}

// client is a typed host client whose host is d.
func (d *recordingDoer) client() claudehook.HostHTTP {
	return claudehook.HostHTTP{C: hostclient.NewLocal(d, hostclient.Options{})}
}

func TestHostHTTPPending(t *testing.T) {
	d := &recordingDoer{answer: `{"events":[{"lip":1,"id":"ev_1","ts":5,"dir":"up","from":"unique:chat#w_1","type":"chat.message","data":{"text":"hi"},"win":"w_1","seq":7,"extra":true}],"cursor":"hook","seq":7,"epoch":"e","gap":{"from":1,"to":6,"lost":6},"pending":3}`}
	p, err := d.client().Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d.method != "GET" || d.path != "/lip/listen" || d.query.Encode() != "beyond=claude&cursor=hook&max=50&wait_ms=0" || d.body != nil {
		t.Fatalf("request %s %s?%s %s", d.method, d.path, d.query.Encode(), d.body)
	}
	if len(p.Events) != 1 || p.Events[0].Seq != 7 || p.Events[0].Type != "chat.message" || string(p.Events[0].Data) != `{"text":"hi"}` ||
		p.Gap == nil || p.Gap.Lost != 6 || p.Pending != 3 {
		t.Fatalf("%+v", p)
	}
	d.err = errors.New("host down")
	if _, err := d.client().Pending(context.Background()); err == nil {
		t.Fatal("no error")
	}
}

// The report body has exactly the members the host route reads.
func TestHostHTTPReport(t *testing.T) {
	d := &recordingDoer{}
	h := d.client()
	if err := h.Report(context.Background(), claudehook.Report{PID: 7, SessionID: "s", Label: "p", State: "running"}); err != nil {
		t.Fatal(err)
	}
	if d.method != "POST" || d.path != "/lip/claude" || d.query != nil || string(d.body) != `{"pid":7,"session_id":"s","label":"p","state":"running"}` {
		t.Fatalf("request %s %s %v %s", d.method, d.path, d.query, d.body)
	}
	if err := h.Report(context.Background(), claudehook.Report{PID: 7, SessionID: "s", Label: "p", State: "waiting_for_approval", RequestID: "r", Tool: "Bash", Summary: "ls"}); err != nil {
		t.Fatal(err)
	}
	if string(d.body) != `{"pid":7,"session_id":"s","label":"p","state":"waiting_for_approval","request_id":"r","tool":"Bash","summary":"ls"}` {
		t.Fatalf("body %s", d.body)
	}
}

// TestHostHTTPWindows: GET /lip/windows, the host's answer shape.
func TestHostHTTPWindows(t *testing.T) {
	d := &recordingDoer{answer: `{"windows":[{"window":"w_1","unique":"hello","title":"Hello","connected":true,"queued":0,"opened":5,"claude_pid":42}]}`}
	ws, err := d.client().Windows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d.method != "GET" || d.path != "/lip/windows" || d.body != nil {
		t.Fatalf("request %s %s %s", d.method, d.path, d.body)
	}
	if len(ws) != 1 || ws[0] != (claudehook.OpenWindow{Window: "w_1", Unique: "hello", Title: "Hello", Connected: true}) {
		t.Fatalf("%+v", ws)
	}
	d.err = errors.New("host down")
	if _, err := d.client().Windows(context.Background()); err == nil {
		t.Fatal("no error")
	}
}
