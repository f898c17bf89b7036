package daemon

import (
	"context"
	"time"

	"github.com/lets-app/lets/backend/identitystore"
)

// The accent-preference store (§9.8) is written behind the owner loop:
// the control plane remembers an accent whenever an agent moves into a
// slot, which with more agents than slots is nearly every state message,
// and a synchronous write with fsync there cost milliseconds per message.
// The store records the change in memory; its writer goroutine, run for as
// long as the daemon runs, writes the file atomically at most
// identitystore.DefaultFlushDelay later (coalescing every change in
// between) and once more at shutdown, after the disconnect cleanups (which
// can move agents into slots) have run. Write errors are logged and
// otherwise ignored, as §9.8 asks.

// openIdentityStore returns the store of opts.IdentityStore (kept in
// memory when that is "").
func (d *Daemon) openIdentityStore() *identitystore.Store {
	so := d.opts.identityStore
	if so.FlushDelay <= 0 {
		so.FlushDelay = identitystore.DefaultFlushDelay
	}
	if so.Log == nil {
		so.Log = d.log
	}
	if d.opts.IdentityStore == "" {
		return identitystore.NewMemory(so)
	}
	return identitystore.Open(d.opts.IdentityStore, so)
}

// startStoreWriter runs the store's writer until the returned function is
// called. That function writes what is unsaved and waits for the write,
// at most stopTimeout (a disk that hangs must not hang the shutdown).
func (d *Daemon) startStoreWriter() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = d.store.Run(ctx) // always nil; failures are logged by the store
	}()
	return func() {
		cancel()
		select {
		case <-done:
		case <-time.After(stopTimeout):
			d.log.Warn("saving accent preferences did not finish in time; the latest colour changes may be lost",
				"path", d.store.Path())
		}
	}
}
