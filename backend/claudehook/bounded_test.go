package claudehook

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

// slowWire answers Subscribe only once release is closed, with a
// subscription that records whether it was closed.
type slowWire struct {
	Wire
	release chan struct{}
	sub     *closedActions
}

type closedActions struct {
	Actions
	closed atomic.Bool
}

func (a *closedActions) Close() error { a.closed.Store(true); return nil }

func (w *slowWire) Subscribe(ctx context.Context, cmd wire.SubscribeActionsCommand) (Actions, error) {
	<-w.release
	return w.sub, nil
}

// A subscription that comes after the dial budget is closed by the
// goroutine that waited for it, and that goroutine is counted in bg, so
// the hook's Run waits for it (issue #24: every goroutine owned).
func TestSubscribeBoundedClosesALateSubscriptionAndIsWaitedFor(t *testing.T) {
	w := &slowWire{release: make(chan struct{}), sub: &closedActions{}}
	dial, cancelDial := context.WithCancel(context.Background())
	cancelDial() // the budget is already spent
	var bg sync.WaitGroup
	a, err := subscribeBounded(dial, context.Background(), &bg, w, wire.SubscribeActionsCommand{})
	if a != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("subscribeBounded = %v, %v; want nothing and the dial's end", a, err)
	}
	close(w.release) // the daemon answers late
	bg.Wait()
	if !w.sub.closed.Load() {
		t.Error("the late subscription was left open")
	}
}

// In time, the subscription is handed over, not closed.
func TestSubscribeBoundedHandsOverInTime(t *testing.T) {
	w := &slowWire{release: make(chan struct{}), sub: &closedActions{}}
	close(w.release)
	var bg sync.WaitGroup
	a, err := subscribeBounded(context.Background(), context.Background(), &bg, w, wire.SubscribeActionsCommand{})
	bg.Wait()
	if err != nil || a != w.sub || w.sub.closed.Load() {
		t.Fatalf("subscribeBounded = %v, %v (closed %v); want the open subscription", a, err, w.sub.closed.Load())
	}
}
