package hostclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/lets-app/lets/backend/peercred"
)

// ErrForeignHost means the port host.json names is held by a program of
// another local user: the host that wrote host.json is gone and someone
// else took its port. Nothing was sent to it, least of all the host token.
var ErrForeignHost = errors.New("the port in host.json belongs to another user's program")

// ForeignHostError is ErrForeignHost with the port and the other user.
type ForeignHostError struct {
	Addr string
	UID  int
}

func (e *ForeignHostError) Error() string {
	return fmt.Sprintf("%s is held by a program of user %d, not by your Lets (host.json is left from a Lets that stopped); nothing was sent there", e.Addr, e.UID)
}

func (e *ForeignHostError) Unwrap() error { return ErrForeignHost }

// ownedDialer dials the host and checks, before the connection carries a
// byte, that the program listening there runs as this user: the host token
// goes only to the person's own Lets, never to whoever took the port of a
// Lets that stopped. Where the system cannot tell a socket's owner (not
// Linux) the check is left out.
type ownedDialer struct {
	dial  func(ctx context.Context, network, addr string) (net.Conn, error)
	owner peercred.TCPLookup
	self  int
}

func newOwnedDialer(timeout time.Duration) *ownedDialer {
	return &ownedDialer{dial: (&net.Dialer{Timeout: timeout}).DialContext, owner: peercred.SystemTCPLookup(), self: os.Getuid()}
}

func (d *ownedDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.dial(ctx, network, addr)
	if err != nil || d.owner == nil {
		return c, err
	}
	if err := d.check(c); err != nil {
		_ = c.Close()
		// A dial error: the client treats the host as gone (and may start
		// one), and nothing was written.
		return nil, &net.OpError{Op: "dial", Net: network, Addr: c.RemoteAddr(), Err: err}
	}
	return c, nil
}

func (d *ownedDialer) check(c net.Conn) error {
	client, host, err := peercred.ConnEnds(c)
	if err != nil {
		return fmt.Errorf("could not read the addresses of the connection to the host: %w", err)
	}
	uid, err := d.owner.PeerUID(client, host)
	if err != nil {
		// The kernel lists every connection of this network namespace; a
		// connection the listing lacks cannot be vouched for.
		return fmt.Errorf("could not tell who listens on %s: %w", host, err)
	}
	if uid != d.self {
		return &ForeignHostError{Addr: host.String(), UID: uid}
	}
	return nil
}
