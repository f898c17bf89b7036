package wireclient

import (
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/lets-app/lets/backend/peercred"
	"github.com/lets-app/lets/backend/wire"
)

// ErrForeignSocket is matched (errors.Is) by every *ForeignPeerError.
var ErrForeignSocket = errors.New("the pad socket belongs to another user")

// ForeignPeerError is a socket the client refused before sending anything:
// the socket file, or the process listening on it, belongs to another
// user. Whoever listens at a pad socket reads the agents' reports and can
// answer their approvals, so only the user's own daemon may get them.
type ForeignPeerError struct {
	// Path is the socket.
	Path string
	// UID is the other user (-1 when it could not be read).
	UID int
	// Listener is true when the socket file was ours but the process
	// listening on it was not.
	Listener bool
}

func (e *ForeignPeerError) Error() string {
	who := "another user"
	if e.UID >= 0 {
		who = peercred.Describe(e.UID)
	}
	what := "the pad socket %s belongs to %s"
	if e.Listener {
		what = "the program listening on the pad socket %s runs as %s"
	}
	return fmt.Sprintf(what+", not you (%s); Lets sent it nothing", e.Path, who, peercred.Short(selfUID()))
}

// Is makes errors.Is(err, ErrForeignSocket) true.
func (e *ForeignPeerError) Is(target error) bool { return target == ErrForeignSocket }

// resolve picks the socket to connect to: c.Path, or the private folder's
// socket when the daemon had to move there (wire.ChooseSocketPath).
func (c *Client) resolve() string {
	return wire.ChooseSocketPath(c.Path, selfUID(), wire.RoleClient, peercred.Stat).Path
}

// checkSocketFile refuses a socket file (seen without following a link)
// that belongs to another user. A missing path is left to the dial, which
// reports the daemon as not running.
func checkSocketFile(path string, uid int) error {
	at := peercred.Stat(path)
	if !at.Exists {
		return nil
	}
	if at.Unreadable || at.UID != uid {
		return &ForeignPeerError{Path: path, UID: at.UID}
	}
	return nil
}

// checkPeer refuses a connection whose listening process belongs to
// another user (SO_PEERCRED), before anything is written to it. Where the
// platform cannot tell, the owner check of the socket file stands alone.
func checkPeer(nc net.Conn, path string, uid int) error {
	if !peercred.Available {
		return nil
	}
	uc, ok := nc.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("check who listens on the pad socket %s: not a Unix connection (%T)", path, nc)
	}
	peer, err := peercred.UID(uc)
	if err != nil {
		return fmt.Errorf("check who listens on the pad socket %s: %w", path, err)
	}
	if peer != uid {
		return &ForeignPeerError{Path: path, UID: peer, Listener: true}
	}
	return nil
}

// selfUID is the user the client acts for: the effective uid, which owns
// the files this process creates and which the daemon compares (§2.3).
func selfUID() int { return os.Geteuid() }
