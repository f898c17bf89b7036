package host

import (
	"io"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"testing"
)

// Point (#23 High 1): a window's one-time link loaded from another user's
// socket is refused with a kind 403 page, and the refusal leaves the key
// unspent for the person's own browser. The socket owner comes from the
// lookup seam here, so this runs as any user on any OS; the attack as a
// real second uid is in window_link_otheruid_test.go.
func TestWindowLinkRefusedForAnotherUsersSocket(t *testing.T) {
	th := startLIPHost(t)
	win := th.openOnly(t, "board", "")
	other := os.Getuid() + 1
	th.Server.home.mu.Lock()
	th.Server.home.peerUID = func(client, server netip.AddrPort) (int, error) { return other, nil }
	th.Server.home.mu.Unlock()

	resp, err := http.Get(win.URL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("the window link from another user's socket: %d, want 403\n%s", resp.StatusCode, page)
	}
	if strings.Contains(string(page), "lets-config") || !strings.Contains(string(page), "Another account on this computer") {
		t.Fatalf("the refusal page should explain kindly and carry no window:\n%s", page)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("the refusal is a page for a person, got %q", ct)
	}
	if !strings.Contains(th.logBuf.String(), "window link was opened by another user") {
		t.Errorf("the refusal is not logged:\n%s", th.logBuf.String())
	}

	th.Server.home.mu.Lock()
	th.Server.home.peerUID = nil // the real lookup: this test's own socket
	th.Server.home.mu.Unlock()
	if tok := loadShellToken(t, win.URL); tok == "" {
		t.Fatal("the person's own load after a refusal got no window token")
	}
}
