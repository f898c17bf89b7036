package daemon_test

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// waitConsumed waits until the daemon has read every byte c sent, so the
// next bytes arrive in a read of their own (Linux: the socket's unread
// output, SIOCOUTQ, is empty).
func (c *client) waitConsumed() {
	c.t.Helper()
	raw, err := c.c.SyscallConn()
	if err != nil {
		c.t.Fatal(err)
	}
	testutil.EventuallyNoError(c.t, "the daemon read what the client sent", func() error {
		var n int
		var ierr error
		if err := raw.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ) }); err != nil {
			return err
		}
		if ierr != nil {
			return ierr
		}
		if n != 0 {
			return fmt.Errorf("%d bytes unread", n)
		}
		return nil
	})
}
