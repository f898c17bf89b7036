package host

import (
	"net/http"
	"sort"
	"time"

	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/token"
)

// Windows that wait for the person (issue #23). A window's one-time URL
// makes whoever loads it first "the person" of that window: they answer
// its allow prompts and approval cards and type in its chat. So the URL
// goes only to surfaces the person owns: a native window or the desktop
// browser the app starts (Options.OnOpen), or the home page signed in
// with a home token (which only the person's own browser can claim from
// a home link). No answer to a host-token caller (Claude's `lets mcp`, a
// script of the agent, the CLI) ever carries it, nor a home link.

// How an opened window was shown (the "shown" of POST /lip/open's answer).
const (
	// ShownWindow: Options.OnOpen took the launch (a native window, or the
	// app opened the desktop browser itself).
	ShownWindow = hostapi.ShownWindow
	// ShownWaiting: nothing could show it; it waits for the person on the
	// home page ("Waiting for you").
	ShownWaiting = hostapi.ShownWaiting
)

// launchURL is the shell page of window id with its one-time key.
func launchURL(hostURL, id, key string) string {
	return hostURL + "/w/" + id + "/?t=" + key
}

// waitingWindow is one window of the home page's "Waiting for you" card.
type waitingWindow struct {
	Window   string    `json:"window"`
	Unique   string    `json:"unique"`
	Title    string    `json:"title"`
	OpenedAt time.Time `json:"opened_at"`
}

// markWaiting says nothing showed window id: it waits for the person.
func (c *lipCore) markWaiting(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w, ok := c.windows[id]; ok && !w.launched {
		w.waiting = true
	}
}

// waitingWindows lists the windows that wait for the person, oldest first.
func (c *lipCore) waitingWindows() []waitingWindow {
	c.mu.Lock()
	out := []waitingWindow{}
	for _, w := range c.windows {
		if w.waiting && !w.launched {
			out = append(out, waitingWindow{Window: w.id, Unique: w.name, Title: w.title, OpenedAt: w.opened.UTC()})
		}
	}
	c.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return winNum(out[i].Window) < winNum(out[j].Window) })
	return out
}

// waitingURL is the one-time URL of window id if it waits for the person.
func (c *lipCore) waitingURL(id, hostURL string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.windows[id]
	if !ok || !w.waiting || w.launched || w.launch == "" {
		return "", false
	}
	return launchURL(hostURL, w.id, w.launch), true
}

// isPerson reports whether the request carries a real home token: the
// home page the person signed in to from a home link. The host token is
// not a person (it is what `lets mcp` and the agent's scripts hold).
func (s *Server) isPerson(r *http.Request) bool {
	return s.home.valid(headerToken(r))
}

// requirePerson lets through a real home token only: the host token and a
// window token are 403, anything else 401.
func (s *Server) requirePerson(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := presentedToken(r)
		switch {
		case s.home.valid(headerToken(r)):
			next(w, r)
		case token.Equal(t, s.opts.Token) && t != "":
			writeError(w, http.StatusForbidden, "forbidden", "only the person's own home page can show a waiting window; the host token cannot")
		case s.core != nil && s.core.isWindowToken(t):
			writeError(w, http.StatusForbidden, "forbidden", "a window token cannot use the home page's API")
		default:
			w.Header().Set("WWW-Authenticate", `Bearer realm="lets-home"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "this page needs a fresh link: open Home from the Lets tray menu, or run `lets` again")
		}
	})
}

// registerWaiting adds the home page's "Waiting for you" routes.
func (s *Server) registerWaiting(mux *http.ServeMux) {
	mux.Handle("GET /home/api/waiting", s.requirePerson(s.lipOnly(s.handleWaiting)))
	mux.Handle("POST /home/api/windows/{wid}/show", s.requirePerson(s.lipOnly(s.handleShowWaiting)))
}

func (s *Server) handleWaiting(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"waiting": s.core.waitingWindows()})
}

// handleShowWaiting gives the person's home page the one-time URL of a
// waiting window, to load it in the same click.
func (s *Server) handleShowWaiting(w http.ResponseWriter, r *http.Request) {
	u, ok := s.core.waitingURL(r.PathValue("wid"), s.URL())
	if !ok {
		writeError(w, http.StatusNotFound, "not_waiting", "that window is not waiting any more: it was opened already, or it closed")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"url": u})
}

// launch hands a just-opened window to Options.OnOpen and settles what the
// answer says: res.URL stays only for a person's own surface (person), and
// only when nothing else showed the window.
func (s *Server) launch(res *hostapi.OpenAnswer, win *window, person bool) {
	url := res.URL
	res.URL = ""
	if s.opts.OnOpen != nil {
		err := s.opts.OnOpen(WindowLaunch{Window: res.Window, Unique: win.name, Title: win.title, URL: url})
		if err == nil {
			res.Shown = ShownWindow
			return
		}
		s.opts.Log.Info("no window could show it; the window waits for the person on the home page", "window", res.Window, "err", err)
	}
	s.core.markWaiting(res.Window)
	res.Shown, res.Home = ShownWaiting, s.URL()+"/"
	if person {
		res.URL = url
	}
}
