package host

import (
	"context"
	"sync"
)

// changeFeed tells in-process listeners (the tray) that what the host
// lists changed: windows opened, closed, connected or bound, uniques
// installed or removed, sessions saved, or (NotifyChanged) the app's
// conversations. It coalesces: a listener that has not yet read the last
// signal gets no second one, and reads the current state once.
type changeFeed struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
}

func newChangeFeed() *changeFeed {
	return &changeFeed{subs: map[chan struct{}]struct{}{}}
}

// subscribe returns a channel that receives a signal after each change
// (coalesced) and is closed when ctx ends.
func (f *changeFeed) subscribe(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	f.mu.Lock()
	f.subs[ch] = struct{}{}
	f.mu.Unlock()
	context.AfterFunc(ctx, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.subs, ch)
		close(ch)
	})
	return ch
}

// notify signals every subscriber without blocking. A nil feed does
// nothing, so parts built without one (tests of the core) need no care.
func (f *changeFeed) notify() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.subs {
		select {
		case ch <- struct{}{}:
		default: // a signal is already pending: coalesced
		}
	}
}

// Subscribe returns a channel that receives a signal whenever the host's
// windows, uniques or sessions changed (or NotifyChanged was called), so
// an in-process view such as the tray menu can read them again instead of
// polling. Signals are coalesced: after a receive, read the current state
// once. The channel is closed when ctx ends; no goroutine is left behind.
func (s *Server) Subscribe(ctx context.Context) <-chan struct{} {
	return s.changes.subscribe(ctx)
}

// NotifyChanged signals the subscribers that something they list changed
// outside the host (the app's conversations with Claude).
func (s *Server) NotifyChanged() { s.changes.notify() }
