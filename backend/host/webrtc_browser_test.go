package host

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestBrowserUniqueCannotUseWebRTC (issue #10, WebRTC): a unique page that
// builds an RTCPeerConnection with a STUN server on loopback — in its own
// window and through a fresh same-origin iframe, which has pristine
// globals — never reaches that server: the CSP blocks WebRTC where the
// engine supports it, and the SDK preamble removes the API where it does
// not.
func TestBrowserUniqueCannotUseWebRTC(t *testing.T) {
	stun, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stun.Close()
	got := make(chan string, 16)
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := stun.ReadFrom(buf)
			if err != nil {
				return
			}
			select {
			case got <- from.String() + " sent " + strconv.Itoa(n) + " bytes":
			default:
			}
		}
	}()
	stunURL := "stun:" + stun.LocalAddr().String()

	th := startLIPHost(t)
	win := th.openOnly(t, "board", "")
	o, _ := th.origins.get("board")
	uo := o.url()
	ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 600, Timeout: 60 * time.Second})
	uc := watchContexts(ctx)
	if err := chromedp.Run(ctx, chromedp.Navigate(win.URL), chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery)); err != nil {
		t.Fatalf("shell page: %v", err)
	}
	uc.pollIn(t, ctx, uo, `window.lip && document.readyState === "complete"`)
	var tried map[string]string
	uc.evalIn(t, ctx, uo, `(async () => {
  const out = {};
  const stun = `+jsString(stunURL)+`;
  const attempt = async (name, get) => {
    try {
      const w = get();
      const PC = w.RTCPeerConnection || w.webkitRTCPeerConnection;
      if (typeof PC !== "function") { out[name] = "no RTCPeerConnection"; return; }
      const pc = new PC({iceServers: [{urls: stun}]});
      pc.createDataChannel("probe");
      await pc.setLocalDescription(await pc.createOffer());
      out[name] = "created";
    } catch (e) {
      out[name] = "threw " + e.name + ": " + e.message;
    }
  };
  const loaded = (f) => new Promise((resolve) => { f.addEventListener("load", resolve, {once: true}); setTimeout(resolve, 3000); });
  await attempt("window", () => window);
  // A fresh same-origin frame has pristine globals.
  const child = document.createElement("iframe");
  document.body.append(child);
  await attempt("frames[0] right after append", () => window[0]);
  await attempt("iframe.contentWindow", () => child.contentWindow);
  await attempt("contentDocument.defaultView", () => child.contentDocument.defaultView);
  const holder = document.createElement("div");
  document.body.append(holder);
  holder.innerHTML = "<iframe></iframe>";
  await attempt("innerHTML frame via frames[1]", () => window[1]);
  const h = document.createElement("div");
  const sh = h.attachShadow({mode: "open"});
  document.body.append(h);
  sh.append(document.createElement("iframe"));
  await attempt("shadow-root frame", () => sh.querySelector("iframe").contentWindow);
  const named = document.createElement("iframe");
  named.name = "probe-target";
  document.body.append(named);
  await attempt("window.open of a named frame", () => window.open("", "probe-target"));
  // A frame navigated to a non-HTML file of the unique (sandboxed), and
  // to one of its pages (the SDK is in it).
  const js = document.createElement("iframe");
  js.src = "/app.js";
  const jsLoaded = loaded(js);
  document.body.append(js);
  await jsLoaded;
  await attempt("frame showing app.js", () => js.contentWindow);
  const page = document.createElement("iframe");
  page.src = "/sub/a.txt";
  const pageLoaded = loaded(page);
  document.body.append(page);
  await pageLoaded;
  await attempt("frame showing a text file", () => page.contentWindow);
  const again = document.createElement("iframe");
  again.src = "/index.html";
  const againLoaded = loaded(again);
  document.body.append(again);
  await againLoaded;
  await attempt("frame showing the unique's page", () => again.contentWindow);
  child.src = "about:blank#again";
  await new Promise((r) => setTimeout(r, 200));
  await attempt("frame navigated to about:blank again", () => window[0]);
  return out;
})()`, &tried)
	t.Logf("RTCPeerConnection attempts: %v", tried)
	select {
	case msg := <-got:
		t.Fatalf("the unique reached the loopback STUN server (%s); attempts %v", msg, tried)
	case <-time.After(3 * time.Second):
	}
	if len(tried) != 11 {
		t.Fatalf("attempts %v", tried)
	}
	for name, res := range tried {
		// Absent, or a frame of another origin (SecurityError).
		if res != "no RTCPeerConnection" && !strings.HasPrefix(res, "threw SecurityError") {
			t.Errorf("%s: %q, want no RTCPeerConnection", name, res)
		}
	}
}
