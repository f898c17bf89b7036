package daemon

import "github.com/lets-app/lets/backend/identitystore"

// SetIdentityStoreOptions sets the options the daemon opens its identity
// store with, so a test can inject FlushDelay, After and WriteFile. A zero
// FlushDelay still means identitystore.DefaultFlushDelay and a nil Log the
// daemon's log.
func SetIdentityStoreOptions(o *Options, so identitystore.Options) { o.identityStore = so }
