package lets

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/lets-app/lets/app/tray"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/surface/web"
)

// trayPadRig is a tray source around a real browser pad on loopback, with
// the desktop browser replaced by a list of the links it was handed.
type trayPadRig struct {
	src    *traySource
	srv    *web.Server
	home   string
	opened []string
}

func newTrayPadRig(t *testing.T, configJSON string) *trayPadRig {
	t.Helper()
	home := t.TempDir()
	if configJSON != "" {
		if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(configJSON), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// AllowLoopbackLAN: 127.0.0.2 may stand in for a LAN address.
	srv, err := web.New(web.Options{App: fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>pad</title>")}}, AllowLoopbackLAN: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	r := &trayPadRig{srv: srv, home: home}
	env := &Env{
		Getenv:  func(k string) string { return map[string]string{config.HomeEnv: home}[k] },
		OpenURL: func(u string) error { r.opened = append(r.opened, u); return nil },
	}
	r.src = &traySource{parts: trayParts{web: srv, env: env, log: slog.New(slog.DiscardHandler)}}
	return r
}

// click runs one tray item and follows the link it opened once, returning
// where the one-time link sends the browser.
func (r *trayPadRig) click(t *testing.T, kind tray.ActionKind) string {
	t.Helper()
	before := len(r.opened)
	r.src.handle(context.Background(), tray.Action{Kind: kind})
	if len(r.opened) != before+1 {
		t.Fatalf("%v opened %d links, want 1", kind, len(r.opened)-before)
	}
	link := r.opened[len(r.opened)-1]
	if !strings.Contains(link, "/admin/open/") {
		t.Fatalf("%v handed the browser %q, want a one-time admin link", kind, link)
	}
	c := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("%v: the link answered %s", kind, resp.Status)
	}
	return resp.Header.Get("Location")
}

// Point (#21): "Pair a phone…" and "Virtual pad" open different views of
// the pad page, and both let the page switch phone access (the old tray
// opened the same admin page for both, which said to restart with --lan).
func TestTrayPairPhoneAndVirtualPadOpenDifferentViews(t *testing.T) {
	r := newTrayPadRig(t, "")
	if r.srv.LANState().Switchable {
		t.Fatal("the page could switch phone access before the tray allowed it")
	}
	pair := r.click(t, tray.ActionPairPhone)
	if !strings.HasPrefix(pair, "/#admin=") || !strings.HasSuffix(pair, "&view=pair") {
		t.Fatalf("Pair a phone… lands on %q, want the pairing view (/#admin=…&view=pair)", pair)
	}
	if !r.srv.LANState().Switchable {
		t.Fatal("after Pair a phone… the page cannot switch phone access")
	}
	pad := r.click(t, tray.ActionVirtualPad)
	if !strings.HasPrefix(pad, "/#admin=") || strings.Contains(pad, "view=") {
		t.Fatalf("Virtual pad lands on %q, want the pad (/#admin=… without a view)", pad)
	}
}

// With phones already allowed, "Pair a phone…" makes a fresh code (its
// full five minutes) for the page it opens.
func TestTrayPairPhoneMakesAFreshCodeWhenPhonesMayConnect(t *testing.T) {
	r := newTrayPadRig(t, "")
	r.srv.SetLANSwitch(&web.LANSwitch{Resolve: func(context.Context) (*web.LAN, error) {
		return &web.LAN{Bind: netip.MustParseAddr("127.0.0.2"), AdvertiseHost: "pad-host.test"}, nil
	}})
	first, err := r.srv.EnableLAN(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.click(t, tray.ActionPairPhone)
	now, ok := r.srv.CurrentPairing()
	if !ok || now.URL == first.URL || now.ExpiresIn != 300 {
		t.Fatalf("after Pair a phone…: %+v (live %v), want a new code", now, ok)
	}
}

// Point (#21): the page's switch finds the LAN address as --lan does (the
// configured bind_host and advertise_host, else the private address the
// system routes through) and remembers the choice as "web": {"lan"},
// keeping the rest of config.json.
func TestPadLANSwitchUsesConfigAndRemembersTheChoice(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.json")
	text := `{"handoff": "stay", "web": {"port": 9100, "bind_host": "pad.home.test", "advertise_host": "pad.home.test", "theme": "dark"}, "later": [1]}`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	env := &Env{
		Getenv: func(k string) string { return map[string]string{config.HomeEnv: home}[k] },
		LAN: web.Resolver{
			LookupIPv4: func(_ context.Context, h string) ([]netip.Addr, error) {
				if h == "pad.home.test" {
					return []netip.Addr{netip.MustParseAddr("192.168.77.1")}, nil
				}
				return nil, errors.New("no such host")
			},
			Discover: func(context.Context) []netip.Addr {
				return []netip.Addr{netip.MustParseAddr("127.0.1.1"), netip.MustParseAddr("10.9.8.7")}
			},
		},
	}
	sw, err := padLANSwitch(env)
	if err != nil {
		t.Fatal(err)
	}
	lan, err := sw.Resolve(context.Background())
	if err != nil || lan.Bind != netip.MustParseAddr("192.168.77.1") || lan.AdvertiseHost != "pad.home.test" {
		t.Fatalf("configured host: %+v %v", lan, err)
	}
	if err := sw.Remember(true); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil || !cfg.Web.LAN || cfg.Web.Port != 9100 || cfg.Web.BindHost != "pad.home.test" || cfg.Handoff != "stay" ||
		string(cfg.Web.Unknown["theme"]) != `"dark"` || string(cfg.Unknown["later"]) != "[1]" {
		t.Fatalf("after remembering: %+v %v", cfg, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config.json mode %v %v, want 0600", fi.Mode().Perm(), err)
	}
	if err := sw.Remember(false); err != nil {
		t.Fatal(err)
	}
	if cfg, _ := config.Load(path); cfg.Web.LAN {
		t.Fatal("switching off was not remembered")
	}

	// Without a configured host the routed private address is used.
	if err := os.WriteFile(path, []byte(`{"web": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	lan, err = sw.Resolve(context.Background())
	if err != nil || lan.Bind != netip.MustParseAddr("10.9.8.7") || lan.AdvertiseHost != "" {
		t.Fatalf("discovered: %+v %v", lan, err)
	}
}
