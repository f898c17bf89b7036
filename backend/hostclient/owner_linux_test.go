package hostclient

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/testenv/otheruser"
)

// #23 (medium): Lets was killed and left host.json behind; another user
// took its port. The CLI, hooks and `lets mcp` must send that program
// nothing — no request, no host token. Before the check, the squatter
// received every request with "Authorization: Bearer <host token>".
func TestStaleHostFileSendsNothingToAnotherUsersPort(t *testing.T) {
	squatter := otheruser.ServeTCPAs(t, otheruser.Nobody, otheruser.Nobody)
	_, portStr, _ := net.SplitHostPort(squatter.Addr)
	port, _ := strconv.Atoi(portStr)
	paths := config.Paths{Home: t.TempDir()}
	writeHostFile(t, paths, port, "the-host-token")
	c := New(paths, Options{})
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		err := c.Do(testCtx(t), method, "/lip/open", nil, map[string]string{"unique": "hello"}, nil)
		var fe *ForeignHostError
		if !errors.As(err, &fe) || !errors.Is(err, ErrForeignHost) || fe.UID != otheruser.Nobody {
			t.Fatalf("%s: %v, want the foreign host error naming uid %d", method, err, otheruser.Nobody)
		}
		if !noHost(err) {
			t.Fatalf("a foreign port must count as no host (so a new Lets may start): %v", err)
		}
	}
	if n := squatter.Received(); n != 0 {
		t.Fatalf("the other user's program received %d bytes", n)
	}
}
