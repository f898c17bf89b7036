package web

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Issue #21, "Pair a phone, really": the person switches phone access on
// from the admin page (no restart), sees the QR code and PIN, the choice
// is remembered in config.json, and switching it off again works the same
// way. The "LAN" is 127.0.0.2 (Options.AllowLoopbackLAN), so nothing
// leaves the machine.

// testSwitch is a LANSwitch that picks 127.0.0.2 (advertised as
// pad-host.local) and remembers the choice in a config.json of its own.
func testSwitch(t *testing.T) (*LANSwitch, string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"handoff": "stay", "web": {"port": 9000, "theme": "dark"}, "future": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return &LANSwitch{
		Resolve: func(context.Context) (*LAN, error) {
			return &LAN{Bind: lanBind, AdvertiseHost: "pad-host.local"}, nil
		},
		Remember: func(on bool) error {
			return config.Update(cfg, func(c *config.Config) error { c.Web.LAN = on; return nil })
		},
	}, cfg
}

// lanRemembered reads web.lan back from the switch's config.json and
// checks the rest of the file survived.
func lanRemembered(t *testing.T, path string) bool {
	t.Helper()
	c, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Handoff != "stay" || c.Web.Port != 9000 || string(c.Web.Unknown["theme"]) != `"dark"` || string(c.Unknown["future"]) != "1" {
		t.Fatalf("config.json lost the person's settings: %+v", c)
	}
	return c.Web.LAN
}

// lanReachable reports whether a TCP connection to the LAN address opens.
func (e *env) lanReachable() bool {
	nc, err := net.DialTimeout("tcp4", net.JoinHostPort(lanBind.String(), strconv.Itoa(e.port)), ioTimeout)
	if err != nil {
		return false
	}
	nc.Close()
	return true
}

func TestLANSwitchesOnAndOffLiveAndIsRemembered(t *testing.T) {
	e := newEnv(t, envOptions{})
	sw, cfg := testSwitch(t)
	e.s.SetLANSwitch(sw)
	port := e.port

	// Before the consent: no LAN listener, no pairing.
	if e.lanReachable() {
		t.Fatal("the LAN address answers before the person allowed phones")
	}
	admin := e.admin()
	admin.send(map[string]any{"type": "create_pairing"})
	admin.expectError(CodeLANDisabled, "LAN access is not enabled")
	admin.send(map[string]any{"type": "get_lan"})
	m := admin.expect(TypeLAN)
	if m["enabled"] != false || m["switchable"] != true || m["lan_url"] != nil || m["problem"] != nil {
		t.Fatalf("lan before: %v", m)
	}

	// The consent: the same server and port start listening on the LAN.
	admin.send(map[string]any{"type": "set_lan", "enabled": true})
	m = admin.expect(TypeLAN)
	if m["enabled"] != true || m["lan_url"] != "http://pad-host.local:"+strconv.Itoa(port) || m["problem"] != nil {
		t.Fatalf("lan after switching on: %v", m)
	}
	p := admin.expect(TypePairing)
	pin, _ := p["pin"].(string)
	if len(pin) != 6 || !strings.HasPrefix(p["pairing_url"].(string), "http://pad-host.local:"+strconv.Itoa(port)+"/#pair=") ||
		!strings.HasPrefix(p["qr_data_uri"].(string), "data:image/svg+xml") || p["expires_in"] != 300.0 {
		t.Fatalf("pairing after switching on: %v", p)
	}
	if e.s.Port() != port || !e.lanReachable() {
		t.Fatalf("after switching on: port %d (was %d), LAN reachable %v", e.s.Port(), port, e.lanReachable())
	}
	if !lanRemembered(t, cfg) {
		t.Fatal("config.json does not remember that phones may connect")
	}
	// A phone pairs with the PIN the page shows.
	phone := e.remote(3)
	phone.auth(pin)
	if m := phone.expect(TypeAuthenticated); m["admin"] != false || len(m["session_token"].(string)) != 43 {
		t.Fatalf("phone: %v", m)
	}
	phone.drainSnapshot()
	if e.s.LANState() != (LANState{Enabled: true, Switchable: true, URL: "http://pad-host.local:" + strconv.Itoa(port)}) {
		t.Fatalf("LANState: %+v", e.s.LANState())
	}

	// Switching off: the phone is disconnected and forgotten, the address
	// stops answering, the admin page stays connected.
	admin.send(map[string]any{"type": "set_lan", "enabled": false})
	m = admin.expect(TypeLAN)
	if m["enabled"] != false || m["switchable"] != true || m["lan_url"] != nil || m["problem"] != nil {
		t.Fatalf("lan after switching off: %v", m)
	}
	phone.expectClose(1008, reasonRevoked)
	if e.lanReachable() {
		t.Fatal("the LAN address still answers after the person switched phones off")
	}
	if lanRemembered(t, cfg) {
		t.Fatal("config.json still says phones may connect")
	}
	if len(e.s.Devices()) != 0 {
		t.Fatalf("paired devices kept: %v", e.s.Devices())
	}
	admin.send(map[string]any{"type": "create_pairing"})
	admin.expectError(CodeLANDisabled, "LAN access is not enabled")

	// And on again, still without a restart: a new pairing; the old
	// phone's token no longer works.
	admin.send(map[string]any{"type": "set_lan", "enabled": true})
	if m := admin.expect(TypeLAN); m["enabled"] != true {
		t.Fatalf("lan after switching on again: %v", m)
	}
	admin.expect(TypePairing)
	if !e.lanReachable() || !lanRemembered(t, cfg) {
		t.Fatal("switching on a second time did not take")
	}
}

// Another admin page that follows phone access hears of a switch; the
// asker hears once, in the reply.
func TestLANSwitchIsAnnouncedToOtherAdminPages(t *testing.T) {
	e := newEnv(t, envOptions{})
	sw, _ := testSwitch(t)
	e.s.SetLANSwitch(sw)
	asker, watcher := e.admin(), e.admin()
	for _, c := range []*wsClient{asker, watcher} {
		c.send(map[string]any{"type": "get_lan"})
		c.expect(TypeLAN)
	}
	asker.send(map[string]any{"type": "set_lan", "enabled": true})
	if m := asker.expect(TypeLAN); m["enabled"] != true {
		t.Fatalf("asker: %v", m)
	}
	asker.expect(TypePairing)
	if m := watcher.expect(TypeLAN); m["enabled"] != true {
		t.Fatalf("watcher: %v", m)
	}
	// The pairing (§6.5) goes only to the asker.
	asker.send(map[string]any{"type": "get_lan"})
	asker.expect(TypeLAN)
	watcher.send(map[string]any{"type": "get_lan"})
	watcher.expect(TypeLAN)
}

// The consent comes only from this computer's administrator: never from a
// phone, another account on the computer, a page without the admin token,
// or a pad whose LAN access the app does not let the page change.
func TestSetLANIsRefusedFromPhonesOtherAccountsAndWithoutASwitch(t *testing.T) {
	var otherPort atomic.Int64 // the client port of "another account"
	e := newEnv(t, envOptions{lan: true, peerUID: func(client, _ netip.AddrPort) (int, error) {
		if int64(client.Port()) == otherPort.Load() {
			return os.Getuid() + 1, nil
		}
		return os.Getuid(), nil
	}})
	// No switch installed (a CLI pad with --lan): the page cannot change it.
	admin := e.admin()
	admin.send(map[string]any{"type": "set_lan", "enabled": false})
	m := admin.expect(TypeLAN)
	if m["enabled"] != true || m["switchable"] != false || !strings.Contains(m["problem"].(string), "can't be changed from this page") {
		t.Fatalf("without a switch: %v", m)
	}
	sw, cfg := testSwitch(t)
	e.s.SetLANSwitch(sw)
	// The page that follows phone access learns it may switch now.
	if m := admin.expect(TypeLAN); m["switchable"] != true || m["enabled"] != true || m["problem"] != nil {
		t.Fatalf("after the app installed a switch: %v", m)
	}

	// A paired phone.
	phone, _ := e.pair(3)
	phone.send(map[string]any{"type": "set_lan", "enabled": false})
	phone.expectError(CodeAdminRequired, "local administrator required")
	// Another account's browser that somehow holds the admin token.
	other := e.admin()
	otherPort.Store(int64(other.c.LocalAddr().(*net.TCPAddr).Port))
	other.send(map[string]any{"type": "set_lan", "enabled": false})
	other.expectError(CodeAdminRequired, "local administrator required")
	// A browser that did not authenticate.
	anon := e.dial(dialOptions{})
	anon.send(map[string]any{"type": "set_lan", "enabled": false})
	anon.expectError(CodeAuthenticationRequired, "authenticate before sending commands")
	// A bad value.
	admin.send(map[string]any{"type": "set_lan", "enabled": "false"})
	admin.expectError(CodeInvalidMessage, "enabled must be true or false")
	admin.send(map[string]any{"type": "set_lan"})
	admin.expectError(CodeInvalidMessage, "missing field: enabled")

	if st := e.s.LANState(); !st.Enabled || !e.lanReachable() {
		t.Fatalf("a refused set_lan changed phone access: %+v", st)
	}
	if c, _ := config.Load(cfg); c.Web.LAN {
		t.Fatal("a refused set_lan was remembered")
	}
	phone.send(map[string]any{"type": "select_session", "slot": 1})
	e.events(1)

	// The person's own page switches the LAN listener bound at start-up
	// (web.lan true) off.
	admin.send(map[string]any{"type": "set_lan", "enabled": false})
	if m := admin.expect(TypeLAN); m["enabled"] != false || m["problem"] != nil {
		t.Fatalf("switching off the start-up LAN listener: %v", m)
	}
	phone.expectClose(1008, reasonRevoked)
	if e.lanReachable() {
		t.Fatal("the start-up LAN listener still answers")
	}
}

// Switching off ends what is still open on the LAN side, not only new
// connections: an idle keep-alive HTTP connection is closed.
func TestLANSwitchOffClosesOpenLANConnections(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	nc, err := net.DialTimeout("tcp4", net.JoinHostPort(lanBind.String(), strconv.Itoa(e.port)), ioTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	req := "GET /config.json HTTP/1.1\r\nHost: pad-host.local:" + strconv.Itoa(e.port) + "\r\n\r\n"
	if _, err := nc.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	nc.SetReadDeadline(time.Now().Add(testutil.EventuallyTimeout))
	buf := make([]byte, 4096)
	n, err := nc.Read(buf)
	if err != nil || !strings.HasPrefix(string(buf[:n]), "HTTP/1.1 200") {
		t.Fatalf("keep-alive request: %q %v", buf[:n], err)
	}
	if err := e.s.DisableLAN(); err != nil {
		t.Fatal(err)
	}
	// The read ends with EOF (closed), not with the deadline.
	_, err = io.ReadAll(nc)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the keep-alive LAN connection stayed open after switching phones off")
	}
}

// What the page shows when switching on fails, in plain words, and that a
// failed save keeps the switch (and its pairing) but says so.
func TestLANSwitchProblemsReachThePage(t *testing.T) {
	e := newEnv(t, envOptions{})
	admin := e.admin()
	for _, c := range []struct {
		name    string
		resolve func(context.Context) (*LAN, error)
		want    string
	}{
		{"no network", func(context.Context) (*LAN, error) { return nil, ErrNoLANAddr }, "found no Wi-Fi or home network"},
		{"public address", func(context.Context) (*LAN, error) { return &LAN{Bind: netip.MustParseAddr("8.8.8.8")}, nil }, "network address set in its settings"},
		{"admin's loopback", func(context.Context) (*LAN, error) { return &LAN{Bind: loopbackAdmin}, nil }, "network address set in its settings"},
	} {
		e.s.SetLANSwitch(&LANSwitch{Resolve: c.resolve})
		admin.send(map[string]any{"type": "set_lan", "enabled": true})
		m := admin.expect(TypeLAN)
		if m["enabled"] != false || !strings.Contains(m["problem"].(string), c.want) {
			t.Errorf("%s: %v, want a problem with %q", c.name, m, c.want)
		}
	}
	if e.lanReachable() {
		t.Fatal("a failed switch left a LAN listener")
	}

	sw, _ := testSwitch(t)
	sw.Remember = func(bool) error { return errors.New("config.json: permission denied") }
	e.s.SetLANSwitch(sw)
	admin.send(map[string]any{"type": "set_lan", "enabled": true})
	m := admin.expect(TypeLAN)
	if m["enabled"] != true || !strings.Contains(m["problem"].(string), "could not save this choice") || !strings.Contains(m["problem"].(string), "permission denied") {
		t.Fatalf("failed save: %v", m)
	}
	if p := admin.expect(TypePairing); len(p["pin"].(string)) != 6 {
		t.Fatalf("no pairing after a switch that was not saved: %v", p)
	}
}

func TestLANSwitchNeedsAnOpenServer(t *testing.T) {
	sw, _ := testSwitch(t)
	s, err := New(Options{AllowLoopbackLAN: true, LANSwitch: sw})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.EnableLAN(context.Background()); !errors.Is(err, ErrLANClosed) {
		t.Fatalf("before Open: %v", err)
	}
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !s.LANState().Switchable {
		t.Fatal("Options.LANSwitch not installed")
	}
	if _, err := s.EnableLAN(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.DisableLAN(); !errors.Is(err, ErrLANClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if _, err := New(Options{}); err != nil {
		t.Fatal(err)
	}
	plain, _ := New(Options{})
	if err := plain.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.EnableLAN(context.Background()); !errors.Is(err, ErrLANNotSwitchable) {
		t.Fatalf("without a switch: %v", err)
	}
}

// "Pair a phone…" and "Virtual pad" open different views: the pair link
// lands on view=pair, the pad link on the pad; each works once.
func TestAdminOpenURLForTheTwoViews(t *testing.T) {
	e := newEnv(t, envOptions{})
	host := "127.0.0.1:" + strconv.Itoa(e.port)
	for view, want := range map[AdminView]string{
		AdminViewPair: "/#admin=" + testAdminToken + "&view=pair",
		AdminViewPad:  "/#admin=" + testAdminToken,
	} {
		u, err := e.s.AdminOpenURLFor(view)
		if err != nil {
			t.Fatal(err)
		}
		path := strings.TrimPrefix(u, "http://"+host)
		resp, _ := e.getFrom("127.0.0.1", "127.0.0.1", path, host)
		if resp.StatusCode != 303 || resp.Header.Get("Location") != want {
			t.Fatalf("view %q: %s to %q, want 303 to %q", view, resp.Status, resp.Header.Get("Location"), want)
		}
		if resp, _ := e.getFrom("127.0.0.1", "127.0.0.1", path, host); resp.StatusCode != 410 {
			t.Fatalf("view %q: second visit %s", view, resp.Status)
		}
	}
	if _, err := e.s.AdminOpenURLFor("settings"); err == nil {
		t.Fatal("an unknown view made a link")
	}
}
