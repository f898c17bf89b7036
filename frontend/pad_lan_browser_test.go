package frontend_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/backend/surface/web"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

// The LAN end-to-end tests run a phone's browser against the real server
// without any real network: the server's LAN listener binds 127.0.0.2 and
// is advertised as pad-host.test; Chromium resolves pad-host.test to
// 127.0.0.4, where a relay the test starts forwards each connection to
// 127.0.0.2 from the source address 127.0.0.3. The server runs with
// web.Options.AllowLoopbackLAN (the option for rigs like this one), so
// only 127.0.0.1 is the administrator's loopback and the relayed browser
// is a remote device that must pair.

const (
	lanHost   = "pad-host.test"
	lanBind   = "127.0.0.2"
	phoneFrom = "127.0.0.3" // the "phone's" address as the server sees it
	relayAt   = "127.0.0.4"
)

// lanRig is padRig plus the LAN side.
type lanRig struct {
	*padRig
	relay string // base URL phones open: http://pad-host.test:PORT
}

func startLANRig(t *testing.T) *lanRig {
	t.Helper()
	opts := web.Options{LAN: &web.LAN{Bind: netip.MustParseAddr(lanBind), AdvertiseHost: lanHost}, AllowLoopbackLAN: true}
	for _, a := range []string{lanBind, phoneFrom, relayAt} {
		testutil.LoopbackAlias(t, a)
	}
	rig := startPadRig(t, opts)
	port := rig.srv.Port()
	startRelay(t, relayAt+":"+strconv.Itoa(port), lanBind+":"+strconv.Itoa(port), phoneFrom)
	return &lanRig{padRig: rig, relay: "http://" + lanHost + ":" + strconv.Itoa(port)}
}

// startRelay forwards TCP connections from listen to upstream, dialling
// from the address from.
func startRelay(t *testing.T, listen, upstream, from string) {
	t.Helper()
	ln, err := net.Listen("tcp4", listen)
	if err != nil {
		t.Fatalf("relay: %v", err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	track := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	dialer := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: testutil.EventuallyTimeout}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := dialer.Dial("tcp4", upstream)
			if err != nil {
				c.Close()
				continue
			}
			track(c)
			track(up)
			pipe := func(dst, src net.Conn) {
				defer wg.Done()
				_, _ = io.Copy(dst, src)
				dst.Close()
				src.Close()
			}
			wg.Add(2)
			go pipe(up, c)
			go pipe(c, up)
		}
	}()
}

// phoneBrowser is a fresh headless Chromium that resolves pad-host.test to
// the relay and looks like a 390×844 phone.
func phoneBrowser(t *testing.T) context.Context {
	t.Helper()
	ctx := browsertest.New(t, browsertest.Options{
		Width: 390, Height: 844, Timeout: 90 * time.Second,
		HostResolverRules: "MAP " + lanHost + " " + relayAt,
	})
	if err := chromedp.Run(ctx, phone(390, 844)); err != nil {
		t.Fatalf("phone emulation: %v", err)
	}
	return ctx
}

// newPairing makes a pairing as the admin (over a protocol client).
func (r *lanRig) newPairing(t *testing.T) (pin, pairingURL string) {
	t.Helper()
	admin := dialPad(t, r.padRig, adminToken)
	admin.next(t, "authenticated", nil)
	// The snapshot after authentication replays the live pairing (made at
	// start-up) and ends with experience_state; the reply comes after it.
	admin.next(t, "experience_state", nil)
	admin.send(t, map[string]any{"protocol": 1, "type": "create_pairing"})
	m := admin.next(t, "pairing", nil)
	return m["pin"].(string), m["pairing_url"].(string)
}

// pairWithPIN opens the LAN URL on a phone and types pin.
func pairWithPIN(t *testing.T, ctx context.Context, base, pin string) {
	t.Helper()
	if err := chromedp.Run(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(`#pin-form`, chromedp.ByID),
		chromedp.SendKeys(`#pin`, pin, chromedp.ByID),
		waitJS(ctx, `document.body.dataset.screen === 'pad'`),
	); err != nil {
		var state string
		_ = chromedp.Run(ctx, chromedp.Evaluate(`document.body.dataset.screen + ' | ' + document.getElementById('pair-title').textContent + ' | ' + document.getElementById('pair-detail').textContent + ' | ' + document.getElementById('wait-title').textContent + ' | ' + document.getElementById('conn-text').textContent`, &state))
		t.Fatalf("pair with the PIN: %v (page: %s)", err, state)
	}
}

// TestPadLANPairWithPIN is e2e case (2), PIN run, and case (3) on the
// paired phone: it pairs with the PIN, keeps a session token for
// reconnects, and one tap on Approve delivers exactly one action.
func TestPadLANPairWithPIN(t *testing.T) {
	rig := startLANRig(t)
	sub := rig.threeAgents(t)
	pin, _ := rig.newPairing(t)
	// The admin page shows the live code (replayed to admins)…
	admin := browsertest.New(t, browsertest.Options{Width: 1280, Height: 900})
	var shown string
	if err := chromedp.Run(admin,
		chromedp.Navigate(rig.adminURL()),
		chromedp.WaitVisible(`#pairing`, chromedp.ByID),
		chromedp.Evaluate(`document.getElementById('pin-digits').textContent.replace(/\s/g, '')`, &shown),
	); err != nil {
		t.Fatal(err)
	}
	if shown != pin {
		t.Errorf("admin page shows PIN %q, want %q", shown, pin)
	}
	ctx := phoneBrowser(t)
	pairWithPIN(t, ctx, rig.relay, pin)
	// …and drops it once the phone used it, listing the new device.
	if err := chromedp.Run(admin,
		waitJS(admin, `document.getElementById('pairing').hidden && document.querySelectorAll('#device-list li').length === 1`),
		waitJS(admin, `document.getElementById('admin-note').textContent.includes('is paired')`),
	); err != nil {
		t.Fatalf("admin page after pairing: %v", err)
	}
	var token string
	var adminPanel bool
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`localStorage.getItem('pad-lattice-session-token') || ''`, &token),
		chromedp.Evaluate(`!document.getElementById('admin').hidden`, &adminPanel),
	); err != nil {
		t.Fatal(err)
	}
	if len(token) != 43 || adminPanel {
		t.Fatalf("after pairing: token %d chars, admin panel shown %v", len(token), adminPanel)
	}
	clickScene(t, ctx, "Reviewer")
	approveOnce(t, ctx, sub, `.act[data-act="approve"]`)
	browsertest.Screenshot(t, ctx, "pad-phone-paired.png")
	// A reload reconnects with the stored token, no PIN needed.
	if err := chromedp.Run(ctx, chromedp.Reload(), chromedp.WaitVisible(`#pad-screen`, chromedp.ByID)); err != nil {
		t.Fatalf("reconnect with the session token: %v", err)
	}
}

// TestPadLANPairWithQRLink is e2e case (2), QR run: the pairing URL alone
// pairs the phone, the secret leaves the address bar, and the PIN of the
// same pairing is then used up.
func TestPadLANPairWithQRLink(t *testing.T) {
	rig := startLANRig(t)
	rig.threeAgents(t)
	pin, pairingURL := rig.newPairing(t)
	if !strings.HasPrefix(pairingURL, rig.relay+"/#pair=") {
		t.Fatalf("pairing URL %q", pairingURL)
	}
	ctx := phoneBrowser(t)
	var href string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(pairingURL),
		chromedp.WaitVisible(`#pad-screen`, chromedp.ByID),
		chromedp.Location(&href),
	); err != nil {
		t.Fatalf("pair with the QR link: %v", err)
	}
	if strings.Contains(href, "pair=") {
		t.Errorf("the pairing secret stays in the address bar: %s", href)
	}
	// The PIN of that pairing no longer works on a second phone.
	other := phoneBrowser(t)
	var title string
	if err := chromedp.Run(other,
		chromedp.Navigate(rig.relay+"/"),
		chromedp.WaitVisible(`#pin-form`, chromedp.ByID),
		chromedp.SendKeys(`#pin`, pin, chromedp.ByID),
		waitJS(other, `document.getElementById('pair-title').textContent === "That PIN didn't work"`),
		chromedp.Text(`#pair-title`, &title, chromedp.ByID),
	); err != nil {
		t.Fatalf("second phone with a used PIN: %v", err)
	}
	browsertest.Screenshot(t, other, "pad-pair-wrong-pin-phone.png")
}

// TestPadLANRevokeOneDevice is e2e case (4): the admin page lists two
// paired phones; Disconnect on one sends that phone back to pairing while
// the other keeps working.
func TestPadLANRevokeOneDevice(t *testing.T) {
	rig := startLANRig(t)
	rig.threeAgents(t)
	phones := make([]context.Context, 2)
	for i := range phones {
		pin, _ := rig.newPairing(t)
		phones[i] = phoneBrowser(t)
		pairWithPIN(t, phones[i], rig.relay, pin)
	}
	admin := browsertest.New(t, browsertest.Options{Width: 1280, Height: 900})
	if err := chromedp.Run(admin,
		chromedp.Navigate(rig.adminURL()),
		chromedp.WaitVisible(`#devices-box`, chromedp.ByID),
		waitJS(admin, `document.querySelectorAll('#device-list li').length === 2`),
		waitJS(admin, `document.querySelectorAll('#device-list .dot.on').length === 2`),
	); err != nil {
		t.Fatalf("admin device list: %v", err)
	}
	browsertest.Screenshot(t, admin, "pad-admin-devices.png")
	// The devices are listed in pairing order: revoke the first phone.
	if err := chromedp.Run(admin, chromedp.Click(`#device-list li:first-child button`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	var title string
	if err := chromedp.Run(phones[0],
		chromedp.WaitVisible(`#pin-form`, chromedp.ByID),
		chromedp.Text(`#pair-title`, &title, chromedp.ByID),
	); err != nil {
		t.Fatalf("revoked phone: %v", err)
	}
	if title != "This phone was disconnected" {
		t.Errorf("revoked phone says %q", title)
	}
	if err := chromedp.Run(admin, waitJS(admin, `document.querySelectorAll('#device-list li').length === 1`)); err != nil {
		t.Fatal(err)
	}
	// Issue #26: focus was on the Disconnect just pressed; it moves to the
	// phone now in its place, not to the page.
	var focused bool
	if err := chromedp.Run(admin, chromedp.Evaluate(`document.activeElement === document.querySelector('#device-list li button')`, &focused)); err != nil || !focused {
		t.Errorf("after Disconnect, focus is not on the other phone's Disconnect (%v)", err)
	}
	// The other phone is still on the pad and still in control.
	rig.state(t, "builder", "Builder", wire.StateWaitingForReply)
	if err := chromedp.Run(phones[1],
		waitJS(phones[1], `[...document.querySelectorAll('#agent-list .chip')].some(c => c.textContent === 'Needs a reply' && c.closest('button').textContent.includes('Builder'))`),
	); err != nil {
		t.Fatalf("the other phone stopped updating: %v", err)
	}
	var screen string
	if err := chromedp.Run(phones[1], chromedp.Evaluate(`document.body.dataset.screen`, &screen)); err != nil || screen != "pad" {
		t.Fatalf("the other phone shows %q", screen)
	}
}

// TestPadLANWrongPINLocksOut is e2e case (5): five wrong PINs lock this
// phone out as the spec says (5 failures within 60 s lock the peer for
// every credential); the page says so with the time left and the server
// refuses even the right PIN from that address meanwhile.
func TestPadLANWrongPINLocksOut(t *testing.T) {
	rig := startLANRig(t)
	pin, _ := rig.newPairing(t)
	wrong := "000000"
	if pin == wrong {
		wrong = "111111"
	}
	ctx := phoneBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(rig.relay+"/"), chromedp.WaitVisible(`#pin-form`, chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		var detail string
		if err := chromedp.Run(ctx,
			waitJS(ctx, `!document.getElementById('pin').disabled && !document.getElementById('pin-submit').disabled`),
			chromedp.SendKeys(`#pin`, wrong, chromedp.ByID),
			waitJS(ctx, fmt.Sprintf(`(() => { const d = document.getElementById('pair-detail').textContent; return %d < 5 ? d.includes('%d tr') : d.includes('Try again in'); })()`, i, 5-i)),
			chromedp.Text(`#pair-detail`, &detail, chromedp.ByID),
		); err != nil {
			t.Fatalf("wrong PIN %d: %v", i, err)
		}
	}
	var title, button string
	var disabled bool
	if err := chromedp.Run(ctx,
		chromedp.Text(`#pair-title`, &title, chromedp.ByID),
		chromedp.Text(`#pin-submit`, &button, chromedp.ByID),
		chromedp.Evaluate(`document.getElementById('pin').disabled`, &disabled),
	); err != nil {
		t.Fatal(err)
	}
	if title != "Too many wrong PINs" || !disabled || !strings.HasPrefix(button, "Wait ") {
		t.Errorf("locked page: title %q, button %q, disabled %v", title, button, disabled)
	}
	// The server agrees: the right PIN from the same address is refused.
	dialer := websocket.Dialer{NetDialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(phoneFrom)}}).DialContext}
	port := strconv.Itoa(rig.srv.Port())
	h := http.Header{"Origin": {"http://" + lanHost + ":" + port}}
	h.Set("Host", lanHost+":"+port)
	c, _, err := dialer.Dial("ws://"+lanBind+":"+port+"/ws", h)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(testutil.EventuallyTimeout)) // a limit for an answer that never comes
	if err := c.WriteJSON(map[string]any{"protocol": 1, "type": "authenticate", "credential": pin}); err != nil {
		t.Fatal(err)
	}
	_, data, err := c.ReadMessage()
	var m map[string]any
	if err != nil || json.Unmarshal(data, &m) != nil || m["code"] != "forbidden" {
		t.Fatalf("the right PIN during the lock-out: %s %v", data, err)
	}
}
