package host

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/hostclient"
)

// signalled waits up to ioTimeout for a change signal on ch.
func signalled(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case _, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the change channel was closed", what)
		}
	case <-time.After(ioTimeout):
		t.Fatalf("%s: no change signal within %s", what, ioTimeout)
	}
}

// quiet says no signal is pending on ch right now.
func quiet(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return false
	default:
		return true
	}
}

// TestSubscribeHearsChanges: opening and closing a window (over TCP and
// in process) and NotifyChanged each signal a subscriber; signals
// coalesce; the channel closes with its context.
func TestSubscribeHearsChanges(t *testing.T) {
	th := startLIPHost(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := th.Subscribe(ctx)
	if !quiet(ch) {
		t.Fatal("a signal before any change")
	}
	win := th.openOnly(t, "board", "")
	signalled(t, ch, "open")

	c := hostclient.NewLocal(th.LocalHandler(), hostclient.Options{})
	cctx, ccancel := context.WithTimeout(context.Background(), ioTimeout)
	defer ccancel()
	if _, err := c.Close(cctx, win.Window); err != nil {
		t.Fatalf("in-process close: %v", err)
	}
	signalled(t, ch, "close")
	ws, err := c.Windows(cctx)
	if err != nil || len(ws.Windows) != 0 {
		t.Fatalf("after close: %+v %v", ws, err)
	}

	th.NotifyChanged()
	th.NotifyChanged()
	signalled(t, ch, "NotifyChanged")
	if !quiet(ch) {
		t.Fatal("two changes before a read gave two signals, want one (coalesced)")
	}

	cancel()
	select {
	case _, ok := <-ch:
		if ok {
			t.Fatal("a signal after the context ended, want the channel closed")
		}
	case <-time.After(ioTimeout):
		t.Fatal("the channel stayed open after its context ended")
	}
}

// TestErrorsCarryTheHint: a refusal that names something missing says in
// "hint" what to list, not in its message.
func TestErrorsCarryTheHint(t *testing.T) {
	th := startLIPHost(t)
	c := hostclient.NewLocal(th.LocalHandler(), hostclient.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	_, err := c.Close(ctx, "w9")
	ae, ok := err.(*hostclient.APIError)
	if !ok || ae.Status != http.StatusNotFound || ae.Code != "unknown_window" || ae.Hint != hostapi.HintWindows {
		t.Fatalf("close w9: %#v", err)
	}
	_, err = c.Open(ctx, hostapi.OpenRequest{Unique: "nosuch"})
	if ae, ok := err.(*hostclient.APIError); !ok || ae.Hint != hostapi.HintUniques {
		t.Fatalf("open nosuch: %#v", err)
	}
	_, err = c.Open(ctx, hostapi.OpenRequest{Unique: "board", Resume: "ss_nothing"})
	if ae, ok := err.(*hostclient.APIError); !ok || ae.Code != string(hostapi.CodeUnknownSession) || ae.Hint != hostapi.HintSessions {
		t.Fatalf("open --resume: %#v", err)
	}
	res, err := c.Send(ctx, []map[string]any{{"lip": 1, "win": "w9", "type": "ui.toast", "data": map[string]any{}}, {"lip": 1, "type": "ui.toast", "data": map[string]any{}}})
	if err != nil || len(res.Rejected) != 2 || res.Rejected[0].Hint != hostapi.HintWindows || res.Rejected[1].Hint != hostapi.HintWindows {
		t.Fatalf("send: %+v %v", res, err)
	}
}
