package claudehook_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"testing"

	"github.com/lets-app/lets/backend/claudehook"
)

// recordingDoer records one request and answers with canned JSON.
type recordingDoer struct {
	method, path string
	query        url.Values
	body         []byte
	answer       string
	err          error
}

func (d *recordingDoer) Do(_ context.Context, method, path string, query url.Values, body, out any) error {
	d.method, d.path, d.query = method, path, query
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		d.body = b
	}
	if d.err != nil {
		return d.err
	}
	if out != nil && d.answer != "" {
		return json.Unmarshal([]byte(d.answer), out)
	}
	return nil
}

func TestHostHTTPPending(t *testing.T) {
	d := &recordingDoer{answer: `{"events":[{"lip":1,"id":"ev_1","ts":5,"dir":"up","from":"unique:chat#w_1","type":"chat.message","data":{"text":"hi"},"win":"w_1","seq":7,"extra":true}],"cursor":"hook","seq":7,"epoch":"e","gap":{"from":1,"to":6,"lost":6},"pending":3}`}
	p, err := claudehook.HostHTTP{D: d}.Pending(context.Background())
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
	if _, err := (claudehook.HostHTTP{D: d}).Pending(context.Background()); err == nil {
		t.Fatal("no error")
	}
}

// The report body has exactly the members the host route reads.
func TestHostHTTPReport(t *testing.T) {
	d := &recordingDoer{}
	h := claudehook.HostHTTP{D: d}
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
	ws, err := claudehook.HostHTTP{D: d}.Windows(context.Background())
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
	if _, err := (claudehook.HostHTTP{D: d}).Windows(context.Background()); err == nil {
		t.Fatal("no error")
	}
}
