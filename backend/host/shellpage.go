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

func (s *Server) handleShellPage(w http.ResponseWriter, r *http.Request, win *window) {
	origin, ok := s.origins.get(win.name)
	if !ok {
		var err error
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
	err := shellPageTmpl.Execute(&buf, map[string]any{
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
