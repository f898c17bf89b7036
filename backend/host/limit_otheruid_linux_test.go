package host

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/netguard"
	"github.com/lets-app/lets/backend/testenv/otheruser"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// #23 (medium): another local user who fills origin A with connections
// gets only its own small share; the person's health check, CLI calls and
// windows still connect. Before the share, the flood held every one of the
// cap's slots and the person's next connection was closed at once.
func TestOtherUserCannotFillOriginA(t *testing.T) {
	otheruser.RequireRoot(t)
	th := startLIPHost(t, func(o *Options) { o.MaxConns = 32; o.IdleTimeout = time.Minute })
	http.DefaultClient.CloseIdleConnections()
	ln := th.ln.(*netguard.LimitListener)
	waitOpen(t, ln, 0)
	addr := "127.0.0.1:" + strconv.Itoa(th.Port())
	share := netguard.OtherUsersShare(ln.Cap())
	for range ln.Cap() + 4 {
		if _, err := otheruser.DialAs(t, "tcp", addr, otheruser.Nobody); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, "the other user's flood to be answered", func() bool {
		return ln.OtherUsersOpen() == share && ln.Refused() == int64(ln.Cap()+4-share)
	})
	if ln.Open() != 0 {
		t.Fatalf("the other user's connections took %d of the person's slots", ln.Open())
	}
	// The person still has every slot of theirs.
	for i := range ln.Cap() {
		k := dialKeepAlive(t, th.Port())
		if code, err := k.get(th.Port(), "/lip/health"); err != nil || code != 200 {
			t.Fatalf("the person's connection %d during the flood: %d %v", i+1, code, err)
		}
	}
}
