package web

import (
	"context"
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"testing"
)

func TestCase013_LANHostCheck(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	p := strconv.Itoa(e.port)
	for _, h := range []string{"pad-host.local:" + p, "PAD-HOST.local:" + p, "127.0.0.1:" + p, "localhost:" + p} {
		for _, to := range []string{"127.0.0.1", lanBind.String()} {
			resp, body := e.rawRequest(to, "GET / HTTP/1.1\r\nHost: "+h+"\r\nConnection: close\r\n\r\n")
			if resp == nil || resp.StatusCode != 200 {
				t.Fatalf("Host %s via %s: %v %q", h, to, resp, body)
			}
		}
	}
	for _, h := range []string{"other.local:" + p, "pad-host.local:9999", "pad-host.local", lanBind.String() + ":" + p} {
		resp, body := e.rawRequest(lanBind.String(), "GET / HTTP/1.1\r\nHost: "+h+"\r\nConnection: close\r\n\r\n")
		checkHeaders(t, resp, body, 400, "text/plain; charset=utf-8")
	}
}

func TestLANListenerBindsOneAddress(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	if got := e.s.lnLAN.Addr().String(); got != lanBind.String()+":"+strconv.Itoa(e.port) {
		t.Fatalf("LAN listener on %s", got)
	}
	if got := e.s.lnLoop.Addr().String(); got != "127.0.0.1:"+strconv.Itoa(e.port) {
		t.Fatalf("loopback listener on %s", got)
	}
	// The real server refuses to bind anything but a private LAN IPv4.
	for _, a := range []string{"0.0.0.0", "127.0.0.2", "8.8.8.8", "100.64.1.1", "169.254.1.1", "::1"} {
		if _, err := New(Options{LAN: &LAN{Bind: netip.MustParseAddr(a)}}); err == nil {
			t.Errorf("LAN bind %s accepted", a)
		}
	}
	if _, err := New(Options{LAN: &LAN{}}); err == nil {
		t.Error("LAN without a bind address accepted")
	}
	// The loopback-LAN rig option allows loopback addresses, nothing more.
	for _, a := range []string{"0.0.0.0", "127.0.0.1", "8.8.8.8", "::1"} {
		if _, err := New(Options{AllowLoopbackLAN: true, LAN: &LAN{Bind: netip.MustParseAddr(a)}}); err == nil {
			t.Errorf("AllowLoopbackLAN: LAN bind %s accepted", a)
		}
	}
	for _, a := range []string{"127.0.0.2", "127.1.2.3", "192.168.1.2"} {
		if _, err := New(Options{AllowLoopbackLAN: true, LAN: &LAN{Bind: netip.MustParseAddr(a)}}); err != nil {
			t.Errorf("AllowLoopbackLAN: LAN bind %s refused: %v", a, err)
		}
	}
	// Without it, 127.0.0.x peers are administrators; with it only 127.0.0.1.
	plain, _ := New(Options{})
	test, _ := New(Options{AllowLoopbackLAN: true})
	for a, want := range map[string][2]bool{"127.0.0.1": {true, true}, "127.0.0.2": {true, false}, "::1": {true, false}, "192.168.1.2": {false, false}} {
		ip := netip.MustParseAddr(a)
		if plain.isLoopback(ip) != want[0] || test.isLoopback(ip) != want[1] {
			t.Errorf("%s: %v %v, want %v", a, plain.isLoopback(ip), test.isLoopback(ip), want)
		}
	}
}

func TestCase014_HarnessLANWithoutListener(t *testing.T) {
	e := newEnv(t, envOptions{})
	p := strconv.Itoa(e.port)
	if err := e.s.ConfigureLAN("http://192.168.1.10:" + p); err != nil {
		t.Fatal(err)
	}
	resp, body := e.get("/", "192.168.1.10:"+p)
	checkHeaders(t, resp, body, 400, "text/plain; charset=utf-8")
	// lan_enabled is still true for the admin and create_pairing works.
	c := e.dial(dialOptions{})
	c.auth(testAdminToken)
	if m := c.expect(TypeAuthenticated); m["lan_enabled"] != true {
		t.Fatalf("%v", m)
	}
	c.drainSnapshot()
	c.send(map[string]any{"type": "create_pairing"})
	m := c.expect(TypePairing)
	if !strings.HasPrefix(m["pairing_url"].(string), "http://192.168.1.10:"+p+"/#pair=") {
		t.Fatalf("%v", m)
	}
}

func TestCase020_ConfigureLANRefusals(t *testing.T) {
	e := newEnv(t, envOptions{})
	p := strconv.Itoa(e.port)
	if err := e.s.ConfigureLAN("http://8.8.8.8:" + p); !errors.Is(err, ErrLANNotLocal) || !strings.Contains(err.Error(), "private address") {
		t.Fatalf("public IP: %v", err)
	}
	if err := e.s.ConfigureLAN("http://user@pad-host.local:" + p); !errors.Is(err, ErrLANNotHTTP) || !strings.Contains(err.Error(), "HTTP origin") {
		t.Fatalf("user info: %v", err)
	}
	if e.s.LANURL() != "" {
		t.Fatal("a refused URL was stored")
	}
}

func TestCase021_ConfigureLANRules(t *testing.T) {
	e := newEnv(t, envOptions{})
	p := strconv.Itoa(e.port)
	if err := e.s.ConfigureLAN("http://192.168.1.10:" + p + "/"); err != nil {
		t.Fatal(err)
	}
	if got := e.s.LANURL(); got != "http://192.168.1.10:"+p {
		t.Fatalf("stored %q", got)
	}
	for _, u := range []string{
		"https://192.168.1.10:" + p, "http://192.168.1.10:" + p + "/x", "http://192.168.1.10:" + p + "/?a=1",
		"http://192.168.1.10:" + p + "/#f", "http://192.168.1.10:" + strconv.Itoa(e.port+1), "http://192.168.1.10",
		"http://:" + p, "http://user:pw@192.168.1.10:" + p, "http://192.168.1.10:abc", "ftp://192.168.1.10:" + p, "192.168.1.10:" + p,
		"http://192.168.1.10:" + p + " ",
	} {
		if err := e.s.ConfigureLAN(u); !errors.Is(err, ErrLANNotHTTP) {
			t.Errorf("%q: %v", u, err)
		}
	}
	for _, u := range []string{"http://127.0.0.1:" + p, "http://0.0.0.0:" + p, "http://1.1.1.1:" + p, "http://[::1]:" + p, "http://[2606:4700::1]:" + p} {
		if err := e.s.ConfigureLAN(u); !errors.Is(err, ErrLANNotLocal) {
			t.Errorf("%q: %v", u, err)
		}
	}
	for _, u := range []string{"http://169.254.1.1:" + p, "http://10.0.0.1:" + p, "http://Pad-Host.Local:" + p, "http://[fd00::1]:" + p} {
		if err := e.s.ConfigureLAN(u); err != nil {
			t.Errorf("%q: %v", u, err)
		}
	}
	if e.s.lan.host != "fd00::1" {
		t.Fatalf("host %q", e.s.lan.host)
	}
	if err := e.s.ConfigureLAN("http://Pad-Host.Local:" + p); err != nil || e.s.lan.host != "pad-host.local" || e.s.LANURL() != "http://Pad-Host.Local:"+p {
		t.Fatalf("case: %v %q %q", err, e.s.lan.host, e.s.LANURL())
	}
	// Port 80 is the default.
	if _, err := parseLANBaseURL("http://192.168.1.10", 80); err != nil {
		t.Fatal(err)
	}
}

func TestIsPrivateLAN(t *testing.T) {
	for a, want := range map[string]bool{
		"10.0.0.1": true, "172.16.0.1": true, "172.31.255.254": true, "192.168.1.45": true,
		"192.0.2.10": true, "198.18.0.1": true, "198.51.100.7": true, "203.0.113.9": true,
		"100.64.0.1": false, "100.127.1.1": false, "8.8.8.8": false, "172.32.0.1": false,
		"127.0.0.1": false, "127.0.0.2": false, "169.254.1.1": false, "0.0.0.0": false, "0.1.2.3": false,
		"255.255.255.255": false, "::1": false, "fd00::1": false, "::ffff:192.168.1.2": true,
	} {
		if got := IsPrivateLAN(netip.MustParseAddr(a)); got != want {
			t.Errorf("%s: %v, want %v", a, got, want)
		}
	}
}

func TestResolveLAN(t *testing.T) {
	ctx := context.Background()
	hosts := map[string][]netip.Addr{
		"pad.local":    {netip.MustParseAddr("8.8.4.4"), netip.MustParseAddr("192.168.1.20")},
		"public.host":  {netip.MustParseAddr("1.1.1.1")},
		"loopback.one": {netip.MustParseAddr("127.0.1.1")},
	}
	r := Resolver{
		LookupIPv4: func(_ context.Context, h string) ([]netip.Addr, error) {
			if a, ok := hosts[h]; ok {
				return a, nil
			}
			return nil, errors.New("no such host")
		},
		Discover: func(context.Context) []netip.Addr {
			return []netip.Addr{netip.MustParseAddr("127.0.1.1"), netip.MustParseAddr("100.64.0.2"), netip.MustParseAddr("10.1.2.3")}
		},
	}
	lan, err := ResolveLAN(ctx, "", "", r)
	if err != nil || lan.Bind != netip.MustParseAddr("10.1.2.3") || lan.AdvertiseHost != "" {
		t.Fatalf("discovery: %+v %v", lan, err)
	}
	lan, err = ResolveLAN(ctx, "pad.local", "pad.local", r)
	if err != nil || lan.Bind != netip.MustParseAddr("192.168.1.20") || lan.AdvertiseHost != "pad.local" {
		t.Fatalf("hostname: %+v %v", lan, err)
	}
	lan, err = ResolveLAN(ctx, "192.168.1.45", "", r)
	if err != nil || lan.Bind.String() != "192.168.1.45" {
		t.Fatalf("literal: %+v %v", lan, err)
	}
	for _, c := range []struct{ bind, adv, msg string }{
		{"192.168.1.45/24", "", "--bind-host must be a bare private IPv4 address or hostname"},
		{"", "http://x", "--advertise-host must be a bare private IPv4 address or hostname"},
		{"a b", "", "--bind-host must be a bare private IPv4 address or hostname"},
		{"[::1]", "", "--bind-host must be a bare private IPv4 address or hostname"},
		{"8.8.8.8", "", "--bind-host must be a private LAN IPv4 address"},
		{"100.64.1.1", "", "--bind-host must be a private LAN IPv4 address"},
		{"127.0.0.1", "", "--bind-host must be a private LAN IPv4 address"},
		{"0.0.0.0", "", "--bind-host must be a private LAN IPv4 address"},
		{"", "8.8.8.8", "--advertise-host must be a private LAN IPv4 address"},
		{"nowhere.invalid", "", "could not resolve --bind-host 'nowhere.invalid'"},
		{"public.host", "", "--bind-host must resolve to a private LAN address"},
		{"loopback.one", "", "--bind-host must resolve to a private LAN address"},
	} {
		_, err := ResolveLAN(ctx, c.bind, c.adv, r)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q %q: %v, want %q", c.bind, c.adv, err, c.msg)
		}
	}
	r.Discover = func(context.Context) []netip.Addr { return []netip.Addr{netip.MustParseAddr("127.0.0.1")} }
	if _, err := ResolveLAN(ctx, "", "", r); !errors.Is(err, ErrNoLANAddr) || err.Error() != "could not discover a private LAN address; pass --bind-host" {
		t.Fatalf("no address: %v", err)
	}
}

func TestSplitAuthority(t *testing.T) {
	for in, want := range map[string]struct {
		host string
		port int
		ok   bool
	}{
		"127.0.0.1:8765": {"127.0.0.1", 8765, true}, "LocalHost:1": {"localhost", 1, true}, "x": {"x", 80, true},
		"x:": {"x", 80, true}, "[::1]:5": {"::1", 5, true}, "[::1]": {"::1", 80, true}, "x:abc": {"", 0, false},
		"x:65536": {"", 0, false}, "x:+1": {"", 0, false}, "[::1": {"", 0, false}, "::1:5": {"", 0, false},
		"[zz]:1": {"", 0, false}, "x:0080": {"x", 80, true},
	} {
		h, p, ok := splitAuthority(in)
		if ok != want.ok || (ok && (h != want.host || p != want.port)) {
			t.Errorf("%q → %q %d %v, want %+v", in, h, p, ok, want)
		}
	}
}
