package host

import "time"

// Connection caps and timeouts of the host's listeners (issue #10): a
// local process could otherwise hold every file descriptor of Lets (see
// backend/netguard). Connections over a cap are closed as soon as they are
// accepted, so they hold nothing.
const (
	// DefaultMaxConns caps origin A: shell pages (one WebSocket each),
	// listen long-polls and CLI calls.
	DefaultMaxConns = 512
	// DefaultMaxUniqueConns caps each unique origin: one unique's page
	// loads its own files over a handful of connections.
	DefaultMaxUniqueConns = 128
	// DefaultReadHeaderTimeout bounds a request's headers, and a fresh
	// connection that says nothing.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultIdleTimeout closes keep-alive connections with nothing to do.
	DefaultIdleTimeout = 60 * time.Second
)
