package frontend_test

import (
	"context"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/surface/web"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Issue #21, "Pair a phone, really": the tray's "Pair a phone…" opens the
// pad page's pairing view; one clear consent switches phone access on
// live, the QR code and PIN appear, a phone pairs with them, and the same
// page switches phone access off again. All of it by keyboard. The "LAN"
// is 127.0.0.2 behind the relay of pad_lan_browser_test.go.

const consentText = "Let phones on this network connect to Lets — only on networks you trust."

// consentRig is a pad whose phone access is off, with the app's switch
// (address 127.0.0.2, advertised as pad-host.test; the choice goes to a
// config.json of its own).
type consentRig struct {
	*padRig
	relay  string
	config string
}

func startConsentRig(t *testing.T) *consentRig {
	t.Helper()
	for _, a := range []string{lanBind, phoneFrom, relayAt} {
		testutil.LoopbackAlias(t, a)
	}
	rig := startPadRig(t, web.Options{AllowLoopbackLAN: true})
	// startPadRig registers a LAN base URL like the reference harness;
	// this pad starts with phones off, as a fresh Lets does.
	if err := rig.srv.DisableLAN(); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"handoff": "stay", "web": {"theme": "dark"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	rig.srv.SetLANSwitch(&web.LANSwitch{
		Resolve: func(context.Context) (*web.LAN, error) {
			return &web.LAN{Bind: netip.MustParseAddr(lanBind), AdvertiseHost: lanHost}, nil
		},
		Remember: func(on bool) error {
			return config.Update(cfg, func(c *config.Config) error { c.Web.LAN = on; return nil })
		},
	})
	port := rig.srv.Port()
	startRelay(t, relayAt+":"+strconv.Itoa(port), lanBind+":"+strconv.Itoa(port), phoneFrom)
	return &consentRig{padRig: rig, relay: "http://" + lanHost + ":" + strconv.Itoa(port), config: cfg}
}

// remembered is web.lan in the rig's config.json (whose other keys must
// survive).
func (r *consentRig) remembered(t *testing.T) bool {
	t.Helper()
	c, err := config.Load(r.config)
	if err != nil || c.Handoff != "stay" || string(c.Web.Unknown["theme"]) != `"dark"` {
		t.Fatalf("config.json lost the person's settings: %+v %v", c, err)
	}
	return c.Web.LAN
}

// lanAnswers reports whether the LAN address takes connections.
func (r *consentRig) lanAnswers() bool {
	nc, err := net.DialTimeout("tcp4", net.JoinHostPort(lanBind, strconv.Itoa(r.srv.Port())), testutil.EventuallyTimeout)
	if err != nil {
		return false
	}
	nc.Close()
	return true
}

// tabTo presses Tab until the element with id has the focus (at most 20
// presses), proving it is reachable by keyboard.
func tabTo(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	for range 20 {
		var active string
		if err := chromedp.Run(ctx, chromedp.KeyEvent(kb.Tab), chromedp.Evaluate(`document.activeElement ? document.activeElement.id : ''`, &active)); err != nil {
			t.Fatal(err)
		}
		if active == id {
			return
		}
	}
	t.Fatalf("#%s is not reachable with Tab", id)
}

// accessibleNames lists the visible buttons of the admin card without a
// name, and images without alt text.
const unlabelled = `[...document.querySelectorAll('#admin button, #admin img')]
  .filter(e => e.offsetParent !== null)
  .filter(e => e.tagName === 'IMG' ? !e.alt : !(e.getAttribute('aria-label') || e.textContent.trim()))
  .map(e => e.id || e.outerHTML.slice(0, 60)).join(',')`

func TestPadPairAPhoneConsentQRCodeAndSwitchOff(t *testing.T) {
	rig := startConsentRig(t)
	if rig.lanAnswers() {
		t.Fatal("the LAN address answers before the person allowed phones")
	}
	link, err := rig.srv.AdminOpenURLFor(web.AdminViewPair)
	if err != nil {
		t.Fatal(err)
	}
	admin := browsertest.New(t, browsertest.Options{Width: 1100, Height: 860})

	// The pairing view: only what pairing needs, the consent in words.
	var view, title, text, href, describedBy, padShown, docTitle, missing string
	var pairingHidden, lanOffHidden bool
	if err := chromedp.Run(admin,
		chromedp.Navigate(link),
		chromedp.WaitVisible(`#lan-consent`, chromedp.ByID),
		chromedp.Evaluate(`document.body.dataset.view`, &view),
		chromedp.Text(`#admin-title`, &title, chromedp.ByID),
		chromedp.Text(`#lan-consent-text`, &text, chromedp.ByID),
		chromedp.Location(&href),
		chromedp.Evaluate(`document.getElementById('lan-allow').getAttribute('aria-describedby')`, &describedBy),
		chromedp.Evaluate(`getComputedStyle(document.querySelector('.device-wrap')).display`, &padShown),
		chromedp.Evaluate(`document.title`, &docTitle),
		chromedp.Evaluate(`document.getElementById('pairing').hidden`, &pairingHidden),
		chromedp.Evaluate(`document.getElementById('lan-off').hidden`, &lanOffHidden),
		chromedp.Evaluate(unlabelled, &missing),
	); err != nil {
		t.Fatal(err)
	}
	if view != "pair" || title != "Pair a phone" || padShown != "none" || !strings.Contains(docTitle, "Pair a phone") {
		t.Errorf("pairing view: view %q, title %q, pad display %q, document title %q", view, title, padShown, docTitle)
	}
	if text != consentText || !strings.Contains(describedBy, "lan-consent-text") {
		t.Errorf("consent: %q (described by %q), want %q", text, describedBy, consentText)
	}
	if !strings.HasSuffix(href, "/#view=pair") || strings.Contains(href, "admin=") {
		t.Errorf("address bar %q: want the view kept and no admin token", href)
	}
	if !pairingHidden || !lanOffHidden {
		t.Errorf("before the consent: pairing shown %v, --lan hint shown %v", !pairingHidden, !lanOffHidden)
	}
	if missing != "" {
		t.Errorf("unlabelled controls: %s", missing)
	}
	browsertest.Screenshot(t, admin, "pad-pair-consent.png")

	// The consent, by keyboard: Tab to the button, Enter.
	tabTo(t, admin, "lan-allow")
	var pin, qr, note string
	var qrWidth int
	if err := chromedp.Run(admin,
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#pairing`, chromedp.ByID),
		waitJS(admin, `/^[0-9]{3} [0-9]{3}$/.test(document.getElementById('pin-digits').textContent)`),
		waitJS(admin, `document.getElementById('qr').complete && document.getElementById('qr').naturalWidth > 0`),
		waitJS(admin, `document.activeElement && document.activeElement.id === 'pairing'`),
		chromedp.WaitVisible(`#lan-stop`, chromedp.ByID),
		chromedp.Evaluate(`document.getElementById('pin-digits').textContent.replace(/\s/g, '')`, &pin),
		chromedp.Evaluate(`document.getElementById('qr').src`, &qr),
		chromedp.Evaluate(`document.getElementById('qr').naturalWidth`, &qrWidth),
		chromedp.Text(`#admin-note`, &note, chromedp.ByID),
		chromedp.Evaluate(unlabelled, &missing),
	); err != nil {
		t.Fatalf("after the consent: %v", err)
	}
	if !strings.HasPrefix(qr, "data:image/svg+xml") || qrWidth < 100 {
		t.Errorf("QR code %.40q, %d px wide", qr, qrWidth)
	}
	if !strings.Contains(note, "can connect now") || missing != "" {
		t.Errorf("note %q, unlabelled controls %q", note, missing)
	}
	p, ok := rig.srv.CurrentPairing()
	if !ok || p.PIN != pin || !strings.HasPrefix(p.URL, rig.relay+"/#pair=") {
		t.Fatalf("the page shows PIN %s, the server's pairing is %+v (live %v)", pin, p, ok)
	}
	if !rig.lanAnswers() || !rig.remembered(t) {
		t.Fatalf("after the consent: LAN answers %v, remembered %v", rig.lanAnswers(), rig.remembered(t))
	}
	browsertest.Screenshot(t, admin, "pad-pair-code.png")

	// A phone on the "network" pairs with that PIN.
	phoneCtx := phoneBrowser(t)
	pairWithPIN(t, phoneCtx, rig.relay, pin)

	// Switching off, by keyboard: the phone is sent back to pairing, the
	// consent is offered again with the focus on it, and it is remembered.
	tabTo(t, admin, "lan-stop")
	if err := chromedp.Run(admin,
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#lan-consent`, chromedp.ByID),
		waitJS(admin, `document.getElementById('pairing').hidden && document.getElementById('lan-stop').hidden`),
		waitJS(admin, `document.activeElement && document.activeElement.id === 'lan-allow'`),
		chromedp.Text(`#admin-note`, &note, chromedp.ByID),
	); err != nil {
		t.Fatalf("switching off: %v", err)
	}
	if !strings.Contains(note, "can no longer connect") {
		t.Errorf("note after switching off: %q", note)
	}
	var phoneTitle string
	if err := chromedp.Run(phoneCtx,
		chromedp.WaitVisible(`#pin-form`, chromedp.ByID),
		chromedp.Text(`#pair-title`, &phoneTitle, chromedp.ByID),
	); err != nil {
		t.Fatalf("the phone after switching off: %v", err)
	}
	if phoneTitle != "This phone was disconnected" {
		t.Errorf("the phone says %q", phoneTitle)
	}
	if rig.lanAnswers() || rig.remembered(t) {
		t.Fatalf("after switching off: LAN answers %v, remembered %v", rig.lanAnswers(), rig.remembered(t))
	}
}

// "Virtual pad" opens the pad; the pairing view offers the way there.
func TestPadVirtualPadAndPairAPhoneAreDifferentViews(t *testing.T) {
	rig := startConsentRig(t)
	link, err := rig.srv.AdminOpenURLFor(web.AdminViewPad)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.New(t, browsertest.Options{Width: 1100, Height: 860})
	var view, title, padShown string
	var showPadHidden bool
	if err := chromedp.Run(ctx,
		chromedp.Navigate(link),
		chromedp.WaitVisible(`#device`, chromedp.ByID),
		chromedp.WaitVisible(`#lan-consent`, chromedp.ByID),
		chromedp.Evaluate(`document.body.dataset.view`, &view),
		chromedp.Text(`#admin-title`, &title, chromedp.ByID),
		chromedp.Evaluate(`getComputedStyle(document.querySelector('.device-wrap')).display`, &padShown),
		chromedp.Evaluate(`document.getElementById('show-pad').hidden`, &showPadHidden),
	); err != nil {
		t.Fatal(err)
	}
	if view != "pad" || title != "Connect a phone" || padShown == "none" || !showPadHidden {
		t.Errorf("virtual pad: view %q, title %q, pad display %q, 'Show the virtual pad' hidden %v", view, title, padShown, showPadHidden)
	}

	// From the pairing view, "Show the virtual pad" (by keyboard) goes to
	// the pad and puts the focus on it.
	pair, err := rig.srv.AdminOpenURLFor(web.AdminViewPair)
	if err != nil {
		t.Fatal(err)
	}
	other := browsertest.New(t, browsertest.Options{Width: 1100, Height: 860})
	if err := chromedp.Run(other,
		chromedp.Navigate(pair),
		chromedp.WaitVisible(`#show-pad`, chromedp.ByID),
	); err != nil {
		t.Fatal(err)
	}
	tabTo(t, other, "show-pad")
	var href string
	if err := chromedp.Run(other,
		chromedp.KeyEvent(kb.Enter),
		waitJS(other, `document.body.dataset.view === 'pad' && getComputedStyle(document.querySelector('.device-wrap')).display !== 'none'`),
		waitJS(other, `document.activeElement && document.getElementById('device').contains(document.activeElement)`),
		chromedp.Location(&href),
	); err != nil {
		t.Fatalf("Show the virtual pad: %v", err)
	}
	if strings.Contains(href, "view=pair") {
		t.Errorf("after Show the virtual pad the address is %s", href)
	}
}

// The consent reads well in light and dark: its text and the button keep
// a visible contrast with their background.
func TestPadPairConsentLightAndDark(t *testing.T) {
	rig := startConsentRig(t)
	for _, scheme := range []string{"dark", "light"} {
		link, err := rig.srv.AdminOpenURLFor(web.AdminViewPair)
		if err != nil {
			t.Fatal(err)
		}
		ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 800})
		var textColour, cardColour, buttonColour, buttonText string
		if err := chromedp.Run(ctx,
			browsertest.Media("prefers-color-scheme", scheme),
			chromedp.Navigate(link),
			chromedp.WaitVisible(`#lan-consent`, chromedp.ByID),
			chromedp.Evaluate(`getComputedStyle(document.getElementById('lan-consent-text')).color`, &textColour),
			chromedp.Evaluate(`getComputedStyle(document.getElementById('admin')).backgroundColor`, &cardColour),
			chromedp.Evaluate(`getComputedStyle(document.getElementById('lan-allow')).backgroundColor`, &buttonColour),
			chromedp.Evaluate(`getComputedStyle(document.getElementById('lan-allow')).color`, &buttonText),
		); err != nil {
			t.Fatal(err)
		}
		if textColour == cardColour || buttonColour == buttonText || buttonColour == cardColour {
			t.Errorf("%s: text %s on %s, button %s on %s", scheme, textColour, cardColour, buttonText, buttonColour)
		}
		browsertest.Screenshot(t, ctx, "pad-pair-consent-"+scheme+".png")
	}
}
