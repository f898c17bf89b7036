package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/qr"
	"github.com/lets-app/lets/backend/surface/web"
)

// `lets pad pair` shows how a phone or tablet joins the browser pad: the
// LAN URL, a QR code (in the terminal and as a PNG) and the PIN. It talks
// to the running browser surface as the loopback administrator (Web
// Surface Protocol 1, create_pairing), with the admin URL that the process
// running the surface leaves in state/web-surface.json (lets.WriteWebSurfaceInfo)
// or that the user passes with --admin-url.

// adminEndpoint is where and how to reach the browser surface as admin.
type adminEndpoint struct {
	port  int
	token string
}

// parseAdminURL accepts only the loopback admin URL the surface prints,
// http://127.0.0.1:PORT/#admin=TOKEN: the admin token must never travel to
// another host.
func parseAdminURL(raw string) (adminEndpoint, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return adminEndpoint{}, fmt.Errorf("the admin URL %q is not a URL: %w", raw, err)
	}
	host := u.Hostname()
	if u.Scheme != "http" || (host != "127.0.0.1" && host != "localhost") || u.User != nil {
		return adminEndpoint{}, fmt.Errorf("the admin URL must look like http://127.0.0.1:PORT/#admin=… (the one the pad printed when it started); got %q", redactAdmin(raw))
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil || port < 1 || port > 65535 {
		return adminEndpoint{}, fmt.Errorf("the admin URL has no valid port: %q", redactAdmin(raw))
	}
	frag, _ := url.ParseQuery(u.Fragment)
	tok := frag.Get("admin")
	if tok == "" || len(tok) > web.MaxAdminTokenLength {
		return adminEndpoint{}, fmt.Errorf("the admin URL has no #admin= token: %q", redactAdmin(raw))
	}
	return adminEndpoint{port: port, token: tok}, nil
}

// redactAdmin hides the token of an admin URL in messages.
func redactAdmin(raw string) string {
	if i := strings.Index(raw, "admin="); i >= 0 {
		return raw[:i+len("admin=")] + "…"
	}
	return raw
}

// pairingResult is what `lets pad pair` shows.
type pairingResult struct {
	PIN        string
	PairingURL string
	LANURL     string
	ExpiresIn  int
	Fresh      bool // made now (false: the live pairing was reused)
}

// errLANOff: the surface runs without LAN access, so phones cannot connect.
type errLANOff struct{ noInterface bool }

func (e errLANOff) Error() string {
	if e.noInterface {
		return "phones can't reach the pad: it only listens on this computer, and this computer has no private network address (Wi-Fi or Ethernet on a home or office network). Connect to a network, then restart the pad with `--lan`"
	}
	return "phones can't reach the pad: it only listens on this computer. Restart it with LAN access (`lets pad daemon --web --lan`) so a phone on the same Wi-Fi can pair"
}

// requestPairing connects as the loopback admin and gets a pairing: the
// live one if it has at least minLeft seconds left (so a PIN shown on the
// admin page keeps working), else a new one.
func requestPairing(ctx context.Context, ep adminEndpoint, forceNew bool, minLeft int) (pairingResult, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	origin := "http://127.0.0.1:" + strconv.Itoa(ep.port)
	dialer := websocket.Dialer{HandshakeTimeout: 5 * time.Second}
	conn, resp, err := dialer.DialContext(ctx, "ws://127.0.0.1:"+strconv.Itoa(ep.port)+"/ws", http.Header{"Origin": {origin}})
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		var ne *net.OpError
		if errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) {
			return pairingResult{}, fmt.Errorf("the browser pad is not answering on 127.0.0.1:%d; is it still running? Start it with `lets pad daemon --web --lan`: %w", ep.port, err)
		}
		return pairingResult{}, fmt.Errorf("could not talk to the browser pad on 127.0.0.1:%d (is another program using that port?): %w", ep.port, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetReadDeadline(dl)
		conn.SetWriteDeadline(dl)
	}
	conn.SetReadLimit(64 << 10)
	send := func(m map[string]any) error {
		m["protocol"] = 1
		return conn.WriteJSON(m)
	}
	type message struct {
		Type       string `json:"type"`
		Admin      bool   `json:"admin"`
		LANEnabled bool   `json:"lan_enabled"`
		PIN        string `json:"pin"`
		PairingURL string `json:"pairing_url"`
		ExpiresIn  int    `json:"expires_in"`
		Code       string `json:"code"`
		Error      string `json:"error"`
	}
	read := func() (message, error) {
		var m message
		_, data, err := conn.ReadMessage()
		if err != nil {
			return m, fmt.Errorf("the browser pad closed the connection: %w", err)
		}
		if err := json.Unmarshal(data, &m); err != nil {
			return m, fmt.Errorf("the browser pad sent something that is not JSON: %w", err)
		}
		return m, nil
	}
	if err := send(map[string]any{"type": "authenticate", "credential": ep.token}); err != nil {
		return pairingResult{}, fmt.Errorf("send to the browser pad: %w", err)
	}
	first, err := read()
	if err != nil {
		return pairingResult{}, err
	}
	switch {
	case first.Type == "error" && first.Code == "forbidden":
		return pairingResult{}, errors.New("the pad did not accept its admin link (it was restarted since the link was written?); restart the pad, then run `lets pad pair` again")
	case first.Type == "error":
		return pairingResult{}, fmt.Errorf("the browser pad refused the connection: %s (%s)", first.Error, first.Code)
	case first.Type != "authenticated" || !first.Admin:
		return pairingResult{}, fmt.Errorf("the browser pad answered %q instead of accepting this computer as its administrator", first.Type)
	}
	if !first.LANEnabled {
		return pairingResult{}, errLANOff{noInterface: !hasPrivateLAN()}
	}
	// A live pairing is replayed right after `authenticated`; anything
	// else (surface, experience_state) means there is none. Read it in
	// every case, so the reply to create_pairing is the next pairing.
	next, err := read()
	if err != nil {
		return pairingResult{}, err
	}
	if next.Type == "pairing" && !forceNew && next.ExpiresIn >= minLeft {
		return pairingResult{PIN: next.PIN, PairingURL: next.PairingURL, LANURL: baseOf(next.PairingURL), ExpiresIn: next.ExpiresIn}, nil
	}
	if err := send(map[string]any{"type": "create_pairing"}); err != nil {
		return pairingResult{}, fmt.Errorf("send to the browser pad: %w", err)
	}
	for range 32 {
		m, err := read()
		if err != nil {
			return pairingResult{}, err
		}
		switch m.Type {
		case "pairing":
			return pairingResult{PIN: m.PIN, PairingURL: m.PairingURL, LANURL: baseOf(m.PairingURL), ExpiresIn: m.ExpiresIn, Fresh: true}, nil
		case "error":
			if m.Code == "lan_disabled" {
				return pairingResult{}, errLANOff{noInterface: !hasPrivateLAN()}
			}
			return pairingResult{}, fmt.Errorf("the browser pad could not make a pairing code: %s (%s)", m.Error, m.Code)
		}
	}
	return pairingResult{}, errors.New("the browser pad did not answer with a pairing code")
}

// baseOf strips the #pair= secret from a pairing URL.
func baseOf(pairingURL string) string {
	base, _, _ := strings.Cut(pairingURL, "#")
	return strings.TrimSuffix(base, "/")
}

// hasPrivateLAN reports whether some interface has a private LAN IPv4.
func hasPrivateLAN() bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return true // unknown: do not claim there is none
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && web.IsPrivateLAN(p.Addr()) {
			return true
		}
	}
	return false
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func runPadPair(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("lets pad pair", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	adminURL := fs.String("admin-url", "", "the pad's admin URL, http://127.0.0.1:PORT/#admin=… (default: from the running pad)")
	pngPath := fs.String("png", "", "where to save the QR code as a PNG (default: ~/.lets/state/pad-pair.png)")
	forceNew := fs.Bool("new", false, "always make a new PIN, even if one is still valid")
	noQR := fs.Bool("no-qr", false, "do not draw the QR code in the terminal")
	pos, err := parsePad(env, "pair", fs, args)
	if err != nil {
		return err
	}
	if err := padNoArgs("pair", fs, pos); err != nil {
		return err
	}
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	home, err := config.ResolveHome(getenv)
	if err != nil {
		return err
	}
	paths := config.Paths{Home: home}
	raw := *adminURL
	if raw == "" {
		info, err := lets.ReadWebSurfaceInfo(paths)
		if err != nil {
			return err
		}
		raw = info.AdminURL
	}
	ep, err := parseAdminURL(raw)
	if err != nil {
		return err
	}
	res, err := requestPairing(ctx, ep, *forceNew, 120)
	if err != nil {
		return err
	}
	code, err := qr.Encode(res.PairingURL)
	if err != nil {
		return fmt.Errorf("draw the QR code: %w", err)
	}
	png := *pngPath
	if png == "" {
		if err := os.MkdirAll(paths.StateDir(), 0o700); err != nil {
			return fmt.Errorf("make %s: %w", paths.StateDir(), err)
		}
		png = filepath.Join(paths.StateDir(), "pad-pair.png")
	}
	pngErr := code.WritePNGFile(png, 10)
	printPairing(env.Stdout, res, code, !*noQR, isTerminal(env.Stdout) && getenv("TERM") != "dumb", png, pngErr, time.Now())
	return nil
}

func printPairing(w io.Writer, res pairingResult, code *qr.Code, drawQR, ansi bool, png string, pngErr error, now time.Time) {
	fmt.Fprintln(w, "Pair a phone or tablet with the pad")
	fmt.Fprintln(w)
	if drawQR {
		fmt.Fprintln(w, "  Scan this code with the phone's camera:")
		fmt.Fprintln(w)
		fmt.Fprint(w, code.Terminal(qr.TerminalOptions{ANSI: ansi, Indent: "  "}))
		fmt.Fprintln(w)
		fmt.Fprintln(w, "  or open the pad on the phone and type the PIN:")
	} else {
		fmt.Fprintln(w, "  Open the pad on the phone and type the PIN:")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "    Open    %s\n", printable(res.LANURL))
	fmt.Fprintf(w, "    PIN     %s %s\n", res.PIN[:3], res.PIN[3:])
	fmt.Fprintln(w)
	until := now.Add(time.Duration(res.ExpiresIn) * time.Second)
	fmt.Fprintf(w, "  The code works once and expires in %s (at %s).\n", humanMinutes(res.ExpiresIn), until.Format("15:04"))
	if !res.Fresh {
		fmt.Fprintln(w, "  (This is the code the pad is already showing; use --new for a fresh one.)")
	}
	if pngErr != nil {
		fmt.Fprintf(w, "  Could not save the QR image: %v\n", pngErr)
	} else {
		fmt.Fprintf(w, "  QR image: %s\n", png)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The phone must be on the same network as this computer. Only pair devices you trust.")
}

// humanMinutes renders 300 as "5 minutes", 90 as "1 minute 30 seconds".
func humanMinutes(sec int) string {
	m, s := sec/60, sec%60
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return strconv.Itoa(n) + " " + unit + "s"
	}
	switch {
	case m == 0:
		return plural(s, "second")
	case s == 0:
		return plural(m, "minute")
	default:
		return plural(m, "minute") + " " + plural(s, "second")
	}
}
