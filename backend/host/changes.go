package host

import (
	"context"
)

// The host tells in-process listeners (the tray) that what it lists
// changed — windows opened, closed, connected or bound, uniques installed
// or removed, sessions saved, or (NotifyChanged) the app's conversations —
// through a changes.Feed shared by the server and its core.

// Subscribe returns a channel that receives a signal whenever the host's
// windows, uniques or sessions changed (or NotifyChanged was called), so
// an in-process view such as the tray menu can read them again instead of
// polling. Signals are coalesced: after a receive, read the current state
// once. The channel is closed when ctx ends; no goroutine is left behind.
func (s *Server) Subscribe(ctx context.Context) <-chan struct{} {
	return s.changes.Subscribe(ctx)
}

// NotifyChanged signals the subscribers that something they list changed
// outside the host (the app's conversations with Claude).
func (s *Server) NotifyChanged() { s.changes.Notify() }
