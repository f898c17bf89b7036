package cli

import (
	"image"
	_ "image/png"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/qr/qrtest"
	"github.com/lets-app/lets/backend/surface/web"
	"github.com/lets-app/lets/backend/testenv/letstest"
)

var pinLine = regexp.MustCompile(`PIN\s+(\d{3}) (\d{3})`)

func TestPadPairPrintsURLQRAndPIN(t *testing.T) {
	srv := letstest.StartWebSurface(t, true)
	e := newTestEnv(t)
	paths := config.Paths{Home: e.home}
	if err := lets.WriteWebSurfaceInfo(paths, srv); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(lets.WebSurfaceInfoPath(paths)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("web-surface.json must be private: %v %v", fi.Mode(), err)
	}
	png := t.TempDir() + "/pair.png"
	if code := e.run("pad", "pair", "--new", "--png", png); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, e.out, e.err)
	}
	out := e.out.String()
	if os.Getenv("PAD_DEBUG") != "" {
		t.Logf("\n%s", out)
	}
	m := pinLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no PIN in:\n%s", out)
	}
	live, ok := srv.CurrentPairing()
	if !ok || live.PIN != m[1]+m[2] {
		t.Fatalf("printed PIN %s%s, the pad's PIN %q", m[1], m[2], live.PIN)
	}
	base := "http://192.168.1.10:" + strconv.Itoa(srv.Port())
	for _, want := range []string{"Open    " + base + "\n", "expires in 5 minutes", "QR image: " + png, "█▀", "same network"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "#pair=") || strings.Contains(out, letstest.PairTestToken) {
		t.Errorf("the pairing secret or admin token is printed:\n%s", out)
	}
	// The PNG scans to the pairing URL (base + one-use secret).
	f, err := os.Open(png)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	text, err := qrtest.Scan(img)
	if err != nil {
		t.Fatalf("the PNG does not scan: %v", err)
	}
	if text != live.URL {
		t.Fatalf("PNG holds %q, the pairing URL is %q", text, live.URL)
	}

	// Without --new the live code is reused, so a PIN shown elsewhere keeps working.
	e2 := newTestEnv(t)
	if code := e2.run("pad", "pair", "--no-qr", "--png", png, "--admin-url", srv.AdminURL()); code != 0 {
		t.Fatalf("exit %d\n%s", code, e2.err)
	}
	if !strings.Contains(e2.out.String(), "PIN     "+m[1]+" "+m[2]) || !strings.Contains(e2.out.String(), "already showing") {
		t.Fatalf("second run did not reuse the live PIN:\n%s", e2.out)
	}
	if strings.Contains(e2.out.String(), "█") {
		t.Error("--no-qr still drew the code")
	}
}

func TestPadPairErrorsAreKind(t *testing.T) {
	t.Run("not running", func(t *testing.T) {
		e := newTestEnv(t)
		if code := e.run("pad", "pair"); code == 0 || !strings.Contains(e.err.String(), "browser pad is not running") {
			t.Fatalf("exit %d: %s", code, e.err)
		}
	})
	t.Run("stale file of a stopped pad", func(t *testing.T) {
		e := newTestEnv(t)
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close() // nothing listens there now
		if code := e.run("pad", "pair", "--admin-url", web.AdminURL(port, "x")); code == 0 || !strings.Contains(e.err.String(), "not answering") {
			t.Fatalf("exit %d: %s", code, e.err)
		}
	})
	t.Run("LAN off", func(t *testing.T) {
		srv := letstest.StartWebSurface(t, false)
		e := newTestEnv(t)
		if code := e.run("pad", "pair", "--admin-url", srv.AdminURL()); code == 0 || !strings.Contains(e.err.String(), "phones can't reach the pad") {
			t.Fatalf("exit %d: %s", code, e.err)
		}
	})
	t.Run("wrong token", func(t *testing.T) {
		srv := letstest.StartWebSurface(t, true)
		e := newTestEnv(t)
		if code := e.run("pad", "pair", "--admin-url", web.AdminURL(srv.Port(), "not-the-token")); code == 0 || !strings.Contains(e.err.String(), "did not accept its admin link") {
			t.Fatalf("exit %d: %s", code, e.err)
		}
	})
	t.Run("admin URL must stay on this computer", func(t *testing.T) {
		e := newTestEnv(t)
		code := e.run("pad", "pair", "--admin-url", "http://192.168.1.10:8765/#admin=secret-token")
		if code == 0 || !strings.Contains(e.err.String(), "127.0.0.1") || strings.Contains(e.err.String(), "secret-token") {
			t.Fatalf("exit %d: %s", code, e.err)
		}
	})
}

func TestParseAdminURL(t *testing.T) {
	ep, err := parseAdminURL("http://127.0.0.1:8765/#admin=abc")
	if err != nil || ep.port != 8765 || ep.token != "abc" {
		t.Fatalf("%+v %v", ep, err)
	}
	for _, bad := range []string{"", "https://127.0.0.1:8765/#admin=abc", "http://127.0.0.1/#admin=abc", "http://127.0.0.1:8765/", "http://u@127.0.0.1:8765/#admin=a", "http://example.com:8765/#admin=a"} {
		if _, err := parseAdminURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestWebSurfaceInfoRoundTrip(t *testing.T) {
	srv := letstest.StartWebSurface(t, false)
	paths := config.Paths{Home: t.TempDir()}
	if err := lets.WriteWebSurfaceInfo(paths, srv); err != nil {
		t.Fatal(err)
	}
	info, err := lets.ReadWebSurfaceInfo(paths)
	if err != nil || info.AdminURL != srv.AdminURL() || info.Port != srv.Port() {
		t.Fatalf("%+v %v", info, err)
	}
	if err := os.Chmod(lets.WebSurfaceInfoPath(paths), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := lets.ReadWebSurfaceInfo(paths); err == nil {
		t.Error("a world-readable file was accepted")
	}
	if err := os.Chmod(lets.WebSurfaceInfoPath(paths), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := lets.RemoveWebSurfaceInfo(paths); err != nil {
		t.Fatal(err)
	}
	if _, err := lets.ReadWebSurfaceInfo(paths); err != lets.ErrWebSurfaceNotRunning {
		t.Fatalf("after remove: %v", err)
	}
}

func TestHumanMinutes(t *testing.T) {
	for sec, want := range map[int]string{300: "5 minutes", 60: "1 minute", 90: "1 minute 30 seconds", 1: "1 second", 45: "45 seconds"} {
		if got := humanMinutes(sec); got != want {
			t.Errorf("%d: %q, want %q", sec, got, want)
		}
	}
}
