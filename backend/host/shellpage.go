package host

import (
	"bytes"
	"encoding/json"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/lets-app/lets/backend/token"
)

// shellPageTmpl is the shell page of a window. The token sits only in the
// page's own subresource URLs and its config block; the script keeps it in
// memory and strips it from the address bar.
var shellPageTmpl = template.Must(template.New("shell").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{{.Title}}</title>
<link rel="stylesheet" href="/w/{{.Window}}/shell.css?t={{.Token}}">
<script type="application/json" id="lets-config">{{.Config}}</script>
<script defer src="/w/{{.Window}}/shell.js?t={{.Token}}"></script>
</head>
<body>
<div id="lets-shell" class="shell" data-state="connecting">
  <header class="bar">
    <span class="dot" aria-hidden="true"></span>
    <h1 class="title">{{.Title}}</h1>
    <span class="status" id="lets-status" role="status" aria-live="polite">Connecting…</span>
  </header>
  <main class="stage">
    <iframe id="lets-unique" title="{{.Title}}" sandbox="allow-scripts allow-same-origin allow-forms allow-modals allow-downloads" allow="clipboard-write" referrerpolicy="no-referrer"></iframe>
  </main>
  <div class="toasts" id="lets-toasts" aria-live="polite"></div>
</div>
</body>
</html>
`))

// shellConfig is what the shell script reads from the page.
type shellConfig struct {
	Window      string `json:"window"`
	Token       string `json:"token"`
	Unique      string `json:"unique"`
	Title       string `json:"title"`
	FrameURL    string `json:"frameUrl"`
	FrameOrigin string `json:"frameOrigin"`
	Version     string `json:"version"`
}

// shellCSP is the policy of the shell page (spec §8.2), plus directives
// that only narrow it.
func shellCSP(frameOrigin string) string {
	return "default-src 'self'; frame-src " + frameOrigin + "; connect-src 'self'; img-src 'self' data: blob:; base-uri 'none'; form-action 'none'; object-src 'none'; frame-ancestors 'none'"
}

// handleShellPage is GET /w/<wid>/?t=<one-time key>. The first load with
// the key spends it and mints the window token, which is written only into
// this page; any other load (a reload, a copied link, a second browser)
// gets a kind page that says how to open the unique again. Only a
// connection from the user running Lets may spend the key (fromOwner).
func (s *Server) handleShellPage(w http.ResponseWriter, r *http.Request) {
	if s.core == nil {
		writeError(w, http.StatusServiceUnavailable, "internal", "this host runs without a data folder, so it has no windows")
		return
	}
	key := presentedToken(r)
	if token.Equal(key, s.opts.Token) {
		writeLinkPage(w, http.StatusForbidden, linkPage{Heading: "This is not a window link",
			Text: "The address holds Lets' own key, which never opens a window. Open the app from Lets instead."})
		return
	}
	// The link may have reached the browser through xdg-open's command
	// line, which every local user can read: only the person's own sockets
	// may spend its key, and a refusal leaves the key for them.
	if !s.fromOwner(r, "window link") {
		writeLinkPage(w, http.StatusForbidden, linkPage{Heading: "This window opens only for the person who started it",
			Text: "Another account on this computer tried to open this window, so Lets kept it closed. If it is yours, open it while signed in to your own account; the link still works there."})
		return
	}
	win, outcome, err := s.core.claimLaunch(r.PathValue("wid"), key)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "the window could not be opened: "+err.Error())
		return
	}
	switch outcome {
	case launchUnknown:
		writeLinkPage(w, http.StatusNotFound, linkPage{Heading: "This window is closed",
			Text: "Lets has no open window at this address any more."})
		return
	case launchUsed:
		writeLinkPage(w, http.StatusGone, linkPage{Heading: "This window's link was already used", Unique: win.name, Title: win.title,
			Text: "Each window opens from a link that works only once, so nobody else can take the window over. Reloading the page cannot bring it back, but you can open it again."})
		return
	case launchBadKey:
		writeLinkPage(w, http.StatusUnauthorized, linkPage{Heading: "This link is not complete", Unique: win.name, Title: win.title,
			Text: "The window's address is missing its key, or the key is wrong."})
		return
	}
	origin, ok := s.origins.get(win.name)
	if !ok {
		if origin, err = s.origins.ensure(win.unique); err != nil {
			writeError(w, http.StatusServiceUnavailable, "internal", err.Error())
			return
		}
		origin.addWindow(win)
	}
	cfg := shellConfig{Window: win.id, Token: win.token, Unique: win.name, Title: win.title,
		FrameURL: origin.frameURL(win), FrameOrigin: origin.url(), Version: s.opts.Version}
	cfgJSON, _ := json.Marshal(cfg)
	var buf bytes.Buffer
	err = shellPageTmpl.Execute(&buf, map[string]any{
		"Title": win.title, "Window": win.id, "Token": win.token,
		// JSON inside a non-executed script block: html/template escapes
		// it for the script context.
		"Config": template.JS(cfgJSON),
	})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "the shell page could not be rendered")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", shellCSP(origin.url()))
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	_, _ = w.Write(buf.Bytes())
}

// linkPage is the kind page shown instead of a window that cannot open.
type linkPage struct {
	Heading string
	Text    string
	// Unique and Title name the window's unique when it is known.
	Unique string
	Title  string
}

var linkPageTmpl = template.Must(template.New("link").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>{{.Heading}} · Lets</title>
<style>
:root { color-scheme: light dark; --bg: #f6f5f2; --fg: #1d1f24; --muted: #5b606b; --card: #ffffff; --line: #dedbd3; --code: #efede7; }
@media (prefers-color-scheme: dark) { :root { --bg: #121316; --fg: #eceae6; --muted: #a7abb4; --card: #1b1d22; --line: #30333a; --code: #262930; } }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: var(--bg); color: var(--fg); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 34rem; margin: 2rem; padding: 2rem 2.25rem; background: var(--card); border: 1px solid var(--line); border-radius: 14px; }
h1 { font-size: 1.35rem; margin: 0 0 .75rem; }
p { margin: .6rem 0; color: var(--muted); }
p.lead { color: var(--fg); }
code { font: .95em ui-monospace, "SFMono-Regular", Menlo, monospace; background: var(--code); padding: .1em .35em; border-radius: 5px; }
ul { padding-left: 1.2rem; color: var(--muted); }
li { margin: .35rem 0; }
details { margin: .9rem 0; color: var(--muted); }
summary { cursor: pointer; color: var(--fg); }
:focus-visible { outline: 3px solid currentColor; outline-offset: 2px; }
@media (max-width: 30rem) { main { margin: 1rem .75rem; padding: 1.4rem 1.2rem; } }
</style>
</head>
<body>
<main>
<h1 id="lets-link-heading">{{.Heading}}</h1>
<p class="lead">{{.Text}}</p>
<p>To open {{if .Title}}{{.Title}}{{else}}the app{{end}} again, choose it in the Lets home window, or ask Claude to open it.</p>
<details>
<summary>Details</summary>
<ul>
<li>In a terminal: <code>lets open {{if .Unique}}{{.Unique}}{{else}}&lt;unique&gt;{{end}}</code>;</li>
<li>add <code>--resume last</code> to pick up its last saved session;</li>
<li><code>lets windows</code> lists the windows that are open now.</li>
</ul>
</details>
<p>You can close this tab.</p>
</main>
</body>
</html>
`))

// linkPageCSP allows the page's own inline style and nothing else.
const linkPageCSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func writeLinkPage(w http.ResponseWriter, status int, p linkPage) {
	w.Header().Set("X-Frame-Options", "DENY")
	writeLinkPageWith(w, status, p, linkPageCSP)
}

// writeLinkPageWith writes the kind page under the policy csp (a unique's
// origin keeps its own frame-ancestors: the page may show in the window's
// frame).
func writeLinkPageWith(w http.ResponseWriter, status int, p linkPage, csp string) {
	var buf bytes.Buffer
	if err := linkPageTmpl.Execute(&buf, p); err != nil {
		writeError(w, status, "unauthorized", p.Heading)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", csp)
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// shellAssets are the files of the shell bundle a window page may load.
var shellAssets = map[string]bool{"shell.js": true, "shell.css": true}

func (s *Server) handleShellAsset(w http.ResponseWriter, r *http.Request, win *window) {
	name := r.PathValue("file")
	if !shellAssets[name] {
		writeError(w, http.StatusNotFound, "not_found", "no such shell file")
		return
	}
	data, err := fs.ReadFile(s.shell, name)
	if err != nil {
		writeError(w, http.StatusNotFound, "not_found", "no such shell file")
		return
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if strings.HasSuffix(name, ".js") {
		ctype = "text/javascript; charset=utf-8"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'")
	_, _ = w.Write(data)
}
