//go:build desktop && production && webkit2_41

package window

/*
#cgo linux pkg-config: gtk+-3.0 webkit2gtk-4.1
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>

static WebKitWebView *letsFindWebView(GtkWidget *w) {
	if (WEBKIT_IS_WEB_VIEW(w)) return WEBKIT_WEB_VIEW(w);
	if (!GTK_IS_CONTAINER(w)) return NULL;
	WebKitWebView *found = NULL;
	GList *children = gtk_container_get_children(GTK_CONTAINER(w));
	for (GList *l = children; l != NULL && found == NULL; l = l->next) {
		found = letsFindWebView(GTK_WIDGET(l->data));
	}
	g_list_free(children);
	return found;
}

// letsCutBridge removes Wails' script message handler from every web view,
// on the GTK main loop.
static gboolean letsCutBridge(gpointer unused) {
	GList *tops = gtk_window_list_toplevels();
	for (GList *l = tops; l != NULL; l = l->next) {
		WebKitWebView *v = letsFindWebView(GTK_WIDGET(l->data));
		if (v != NULL) {
			WebKitUserContentManager *m = webkit_web_view_get_user_content_manager(v);
			webkit_user_content_manager_unregister_script_message_handler(m, "external");
		}
	}
	g_list_free(tops);
	return G_SOURCE_REMOVE;
}

static void letsScheduleCutBridge(void) { g_idle_add(letsCutBridge, NULL); }

// letsInitGTK starts GTK without exiting the process when it cannot
// (gtk_init would, with status 1): 1 when it started.
static int letsInitGTK(void) { return gtk_init_check(NULL, NULL) ? 1 : 0; }
*/
import "C"

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	goruntime "runtime"
	"syscall"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/logger"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// Supported says whether this binary has native windows.
const Supported = true

func init() {
	// GTK wants every call on the thread that initialised it; keeping the
	// main goroutine on the main thread makes that the thread Wails runs on.
	goruntime.LockOSThread()
}

// run shows the window with Wails until it closes.
func run(ctx context.Context, c *controller) error {
	// SIGTERM is how Lets closes a window (session.close, quit); SIGINT
	// is a person's Ctrl+C on `lets window` run by hand.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-sigs:
		case <-ctx.Done():
		case <-stop:
			return
		}
		c.terminate()
	}()

	if err := initGTK(); err != nil {
		return err
	}

	width, height := c.launch.size()
	err := wails.Run(&options.App{
		Title:  c.launch.title(),
		Width:  width,
		Height: height,
		// The host's page paints its own background; this is what shows
		// for the few milliseconds before it does.
		BackgroundColour: &options.RGBA{R: 250, G: 248, B: 245, A: 255},
		AssetServer:      &assetserver.Options{Handler: startPage(c.launch.URL)},
		Logger:           wailsLogger{log: c.log},
		LogLevel:         logger.WARNING,
		// The window shows a page of the host, not a Wails app: no Wails
		// context menu, no reload shortcuts of its own.
		LogLevelProduction: logger.WARNING,
		OnStartup: func(wctx context.Context) {
			// The window shows the host's pages and, inside them, the
			// uniques' untrusted frames; none of them may talk to Wails
			// (open URLs with xdg-open, write the clipboard, quit).
			// Lets never needs that bridge: the window's only messages
			// come from GTK itself (load finished, close button).
			C.letsScheduleCutBridge()
			c.started(wailsRuntime{ctx: wctx})
		},
		OnDomReady:    func(context.Context) { c.loaded() },
		OnBeforeClose: func(context.Context) bool { return c.beforeClose() },
		Linux:         &linux.Options{ProgramName: "lets", WebviewGpuPolicy: linux.WebviewGpuPolicyNever},
	})
	if err != nil {
		return fmt.Errorf("open the window (is the GTK/WebKitGTK 4.1 runtime installed? `lets doctor` checks): %w", err)
	}
	return nil
}

// initGTK starts GTK on this (the main) thread before Wails does. Wails
// panics when it cannot (status 2, like any crash); here that case is
// ErrNoGTK, which `lets window` turns into its own exit status
// (ExitNoGTK), so Lets can tell "the display refused GTK" from a crash.
// Wails' own gtk_init_check then finds GTK started and returns at once.
func initGTK() error {
	// What Wails does before its gtk_init_check: GTK picks its backend
	// when it starts, so this must come first.
	if os.Getenv("GDK_BACKEND") == "" {
		switch os.Getenv("XDG_SESSION_TYPE") {
		case "", "unspecified", "x11":
			_ = os.Setenv("GDK_BACKEND", "x11")
		}
	}
	if C.letsInitGTK() != 1 {
		return fmt.Errorf("%w (DISPLAY=%q, WAYLAND_DISPLAY=%q)", ErrNoGTK, os.Getenv("DISPLAY"), os.Getenv("WAYLAND_DISPLAY"))
	}
	return nil
}

// startPage is the one page Wails serves itself: it replaces itself with
// the host's shell page, so the window's history holds only that page.
func startPage(target string) http.Handler {
	js, _ := json.Marshal(target) // escapes <, > and & for a script element
	page := []byte("<!doctype html><html><head><meta charset=\"utf-8\"><title>" + html.EscapeString("Lets") +
		"</title><style>html,body{margin:0;background:#faf8f5}</style><script>location.replace(" + string(js) + ");</script></head><body></body></html>")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(page)
	})
}

// wailsRuntime is Runtime over Wails' runtime package, bound to the
// context Wails gave OnStartup (the only one its calls accept).
type wailsRuntime struct{ ctx context.Context }

func (r wailsRuntime) SetTitle(title string)     { wailsruntime.WindowSetTitle(r.ctx, title) }
func (r wailsRuntime) SetSize(width, height int) { wailsruntime.WindowSetSize(r.ctx, width, height) }
func (r wailsRuntime) SetPosition(x, y int)      { wailsruntime.WindowSetPosition(r.ctx, x, y) }
func (r wailsRuntime) Size() (int, int)          { return wailsruntime.WindowGetSize(r.ctx) }
func (r wailsRuntime) Position() (int, int)      { return wailsruntime.WindowGetPosition(r.ctx) }
func (r wailsRuntime) Quit()                     { wailsruntime.Quit(r.ctx) }

// wailsLogger sends Wails' own log lines to slog.
type wailsLogger struct{ log *slog.Logger }

func (l wailsLogger) Print(m string)   { l.log.Info(m, "from", "wails") }
func (l wailsLogger) Trace(m string)   { l.log.Debug(m, "from", "wails") }
func (l wailsLogger) Debug(m string)   { l.log.Debug(m, "from", "wails") }
func (l wailsLogger) Info(m string)    { l.log.Info(m, "from", "wails") }
func (l wailsLogger) Warning(m string) { l.log.Warn(m, "from", "wails") }
func (l wailsLogger) Error(m string)   { l.log.Error(m, "from", "wails") }
func (l wailsLogger) Fatal(m string)   { l.log.Error(m, "from", "wails") }
