package host

import (
	"io"
	"net/http"
	"net/netip"
	"os"
	"testing"
)

// setOriginPeerUID makes every unique origin of th see uid as the owner of
// each new connection's socket (nil: the real lookup).
func setOriginPeerUID(th *testHost, lookup func(client, server netip.AddrPort) (int, error)) {
	th.origins.mu.Lock()
	th.origins.peerUID = lookup
	th.origins.mu.Unlock()
}

func asUID(uid int) func(client, server netip.AddrPort) (int, error) {
	return func(client, server netip.AddrPort) (int, error) { return uid, nil }
}

// Point (#23, cookie flood): without its cookie (evicted by another
// unique's flood), a unique's page still loads its own files from the
// person's socket when the browser says the request came from a page of
// that origin. Everything else without the cookie stays out: another
// unique's page (same site), a page of another site, a typed address, a
// client that says nothing; and nothing loads once no window of the
// unique is open.
func TestUniqueOwnPageLoadsWithoutItsCookie(t *testing.T) {
	th := startLIPHost(t)
	setOriginPeerUID(th, asUID(os.Getuid()))
	win := th.open(t, "board", "")
	o, _ := th.origins.get("board")
	get := func(headers ...string) (int, string) {
		resp := rawGet(t, o.port, "/style.css", headers...)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for _, tc := range []struct {
		name    string
		headers []string
		want    int
	}{
		{"a page of this origin", []string{"Sec-Fetch-Site: same-origin"}, 200},
		{"another unique's page", []string{"Sec-Fetch-Site: same-site"}, 401},
		{"another site's page", []string{"Sec-Fetch-Site: cross-site"}, 401},
		{"a typed address", []string{"Sec-Fetch-Site: none"}, 401},
		{"no Sec-Fetch-Site", nil, 401},
		{"a page of this origin with a wrong cookie", []string{"Sec-Fetch-Site: same-origin", "Cookie: " + o.cookie + "=junk"}, 200},
		{"the cookie alone", []string{"Cookie: " + o.cookie + "=" + o.secret}, 200},
	} {
		if code, body := get(tc.headers...); code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, code, body, tc.want)
		}
	}

	// Without the socket lookup (not Linux, or it failed) the cookie alone
	// decides, as before.
	setOriginPeerUID(th, func(client, server netip.AddrPort) (int, error) { return -1, os.ErrNotExist })
	if code, body := get("Sec-Fetch-Site: same-origin"); code != 401 {
		t.Errorf("unknown socket owner, no cookie: %d %s, want 401", code, body)
	}
	if code, body := get("Sec-Fetch-Site: same-origin", "Cookie: "+o.cookie+"="+o.secret); code != 200 {
		t.Errorf("unknown socket owner, the cookie: %d %s, want 200", code, body)
	}

	// The window closes: nothing loads any more, cookie or not.
	setOriginPeerUID(th, asUID(os.Getuid()))
	w, _ := th.core.window(win.Window)
	o.removeWindow(w)
	if code, body := get("Sec-Fetch-Site: same-origin", "Cookie: "+o.cookie+"="+o.secret); code != 401 {
		t.Errorf("no window open: %d %s, want 401", code, body)
	}
}

// Point (#23): a connection whose socket belongs to another local user is
// refused on a unique's origin even with the right cookie and a
// same-origin claim, and cannot spend a frame token. (The real socket
// owner is attacked in TestUniqueOriginRefusesAnotherUID.)
func TestUniqueOriginRefusesAnotherUsersSocket(t *testing.T) {
	th := startLIPHost(t)
	setOriginPeerUID(th, asUID(os.Getuid()+1))
	win := th.open(t, "board", "")
	o, _ := th.origins.get("board")
	w, _ := th.core.window(win.Window)
	for _, tc := range []struct {
		name, target string
		headers      []string
	}{
		{"no cookie", "/index.html", nil},
		{"the right cookie", "/index.html", []string{"Cookie: " + o.cookie + "=" + o.secret}},
		{"the right cookie from its own page", "/index.html", []string{"Cookie: " + o.cookie + "=" + o.secret, "Sec-Fetch-Site: same-origin"}},
		{"the frame token", "/index.html?t=" + w.frameToken, nil},
	} {
		resp := rawGet(t, o.port, tc.target, tc.headers...)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Set-Cookie") != "" {
			t.Errorf("%s: %d %s (Set-Cookie %q), want 403 and no cookie", tc.name, resp.StatusCode, body, resp.Header.Get("Set-Cookie"))
		}
	}
	// The refused frame token is still good for the person.
	setOriginPeerUID(th, nil)
	resp := rawGet(t, o.port, "/index.html?t="+w.frameToken)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Set-Cookie") == "" {
		t.Fatalf("the person's frame load after the refusal: %d, want 303 with the cookie", resp.StatusCode)
	}
}
