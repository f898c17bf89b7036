// Package netguard holds the guards every local listener of Lets shares:
// a cap on open connections, and telling which local user owns the other
// end of a loopback TCP connection.
//
// A local process can open connections faster than anything else on the
// machine; without a cap it could hold every file descriptor of Lets, and
// the Wire socket, the other listeners and the session files would fail
// with "too many open files". And a one-time link handed to a browser
// through xdg-open shows in that command line, which every local user can
// read for a moment, so such links are honoured only for a connection
// whose socket belongs to the user who runs Lets.
package netguard
