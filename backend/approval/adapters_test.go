package approval_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"sync"
	"testing"

	"github.com/lets-app/lets/backend/approval"
	"github.com/lets-app/lets/backend/wire"
)

type fakeDoer struct {
	method, path string
	body         []byte
	reply        string
}

func (d *fakeDoer) Do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	d.method, d.path = method, path
	d.body, _ = json.Marshal(body)
	return json.Unmarshal([]byte(d.reply), out)
}

func TestHostCardPostsTheRequest(t *testing.T) {
	d := &fakeDoer{reply: `{"choice":"allow","reason":"answered","ms":12}`}
	a, err := approval.HostCard{D: d}.Ask(context.Background(), approval.Request{Window: "w", Tool: "Bash", TimeoutMs: 1000})
	if err != nil || a != (approval.Answer{Choice: "allow", Reason: "answered", Ms: 12}) || !a.Answered() {
		t.Fatalf("answer %+v, %v", a, err)
	}
	if d.method != "POST" || d.path != "/lip/approve" || string(d.body) != `{"window":"w","tool":"Bash","summary":"","about":"","timeoutMs":1000}` {
		t.Fatalf("%s %s %s", d.method, d.path, d.body)
	}
}

// fakeWire records the Wire lines of a pad question, in order.
type fakeWire struct {
	mu     sync.Mutex
	lines  []string
	press  chan wire.ActionEvent
	subErr error
}

func (w *fakeWire) log(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines = append(w.lines, s)
}

func (w *fakeWire) Subscribe(ctx context.Context, cmd wire.SubscribeActionsCommand) (approval.Subscription, error) {
	b, _ := json.Marshal(cmd)
	w.log("subscribe " + string(b))
	if w.subErr != nil {
		return nil, w.subErr
	}
	return fakeSub{w}, nil
}

func (w *fakeWire) ReportState(ctx context.Context, cmd wire.StateCommand) error {
	w.log("state " + string(cmd.State) + " " + cmd.Metadata[0].Value)
	return nil
}

func (w *fakeWire) ReportStateReply(ctx context.Context, cmd wire.StateCommand) (wire.StateAck, error) {
	w.log("state+reply " + string(cmd.State) + " " + cmd.Metadata[0].Value)
	return wire.StateAck{State: cmd.State}, nil
}

type fakeSub struct{ w *fakeWire }

func (s fakeSub) Receive(ctx context.Context) (wire.ActionEvent, error) {
	select {
	case ev := <-s.w.press:
		return ev, nil
	case <-ctx.Done():
		return wire.ActionEvent{}, ctx.Err()
	}
}

func (s fakeSub) Close() error { s.w.log("close"); return nil }

// TestWirePadsOrder: subscribe before reporting the wait; a press
// answers; withdrawing closes the subscription and then reports running,
// acknowledged.
func TestWirePadsOrder(t *testing.T) {
	w := &fakeWire{press: make(chan wire.ActionEvent, 1)}
	n := 0
	p := approval.WirePads{W: w, Agent: wire.Identity{Backend: "claude", SessionID: "s1"}, State: func(s wire.State) wire.StateCommand {
		n++
		return wire.StateCommand{State: s, Agent: wire.Identity{Backend: "claude", SessionID: "s1"}, Metadata: wire.MetadataOf("n", string(rune('0'+n)))}
	}}
	q, err := p.Open(context.Background(), "req-9")
	if err != nil {
		t.Fatal(err)
	}
	w.press <- wire.ActionEvent{Action: wire.ActionApprove, RequestID: "req-9"}
	if d, err := q.Receive(context.Background()); d != (approval.Decision{Allow: true, From: approval.FromPad}) || err != nil {
		t.Fatalf("approve gave %+v, %v", d, err)
	}
	q.Withdraw(approval.Decision{Allow: true, From: approval.FromPad})
	want := []string{
		`subscribe {"Agent":{"Backend":"claude","SessionID":"s1"},"Actions":["approve","reject"],"RequestID":"req-9","OneShot":true}`,
		"state waiting_for_approval 1",
		"close",
		"state+reply running 2",
	}
	if len(w.lines) != len(want) {
		t.Fatalf("lines %q, want %q", w.lines, want)
	}
	for i := range want {
		if w.lines[i] != want[i] {
			t.Errorf("line %d: %q, want %q", i, w.lines[i], want[i])
		}
	}
}

func TestWirePadsSubscribeFails(t *testing.T) {
	down := errors.New("no daemon")
	w := &fakeWire{subErr: down}
	q, err := approval.WirePads{W: w, State: func(s wire.State) wire.StateCommand { return wire.StateCommand{State: s} }}.Open(context.Background(), "r")
	if !errors.Is(err, down) || q != nil {
		t.Fatalf("%v %v", q, err)
	}
	if len(w.lines) != 1 {
		t.Fatalf("reported after a failed subscribe: %q", w.lines)
	}
}
