// Package changes tells in-process listeners that something changed, so a
// view (the tray menu) reads the current state again instead of polling.
//
// A Feed carries no payload: a signal means "read again". Signals are
// coalesced per listener — one that has not yet taken the last signal gets
// no second one — so a burst of changes costs the listener one read, and
// Notify never blocks the part that changed.
package changes

import (
	"context"
	"sync"
)

// Feed is a set of listeners. The zero value is ready; a nil *Feed ignores
// Notify, so parts built without one need no care.
type Feed struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
}

// Subscribe returns a channel that receives a signal after each change
// (coalesced) and is closed when ctx ends. No goroutine is left behind.
func (f *Feed) Subscribe(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	f.mu.Lock()
	if f.subs == nil {
		f.subs = map[chan struct{}]struct{}{}
	}
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

// Notify signals every listener without blocking.
func (f *Feed) Notify() {
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
