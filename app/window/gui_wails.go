//go:build desktop && production && webkit2_41

package window

/*
#cgo linux pkg-config: gtk+-3.0 webkit2gtk-4.1
#include <stdlib.h>
#include <gtk/gtk.h>
#include <gdk/gdkx.h>
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
// (gtk_init would, with status 1): 1 when it started. The program name
// and class make every window's WM_CLASS ("lets", "Lets"): GDK takes the
// class from the program name when it starts, which would otherwise be
// the file's name (lets-window).
static int letsInitGTK(const char *name, const char *class) {
	g_set_prgname(name);
	if (!gtk_init_check(NULL, NULL)) return 0;
	gdk_set_program_class(class);
	// A slower text caret (one blink every 3 s, not every 1.2 s). GTK
	// stops a caret's blinking after gtk-cursor-blink-timeout, but WebKit
	// blinks it for as long as a field has the focus, so an idle chat
	// window (its message box focused) redrew itself 1.7 times a second:
	// 1.3 % of a core for nothing; 0.7 % with this. (Turning blinking off
	// made WebKit redraw more, not less.) A person's own setting of
	// no blinking or a slower blink is kept.
	GtkSettings *settings = gtk_settings_get_default();
	if (settings != NULL) {
		gint blink = 0;
		g_object_get(settings, "gtk-cursor-blink-time", &blink, NULL);
		if (blink < 3000) g_object_set(settings, "gtk-cursor-blink-time", 3000, NULL);
	}
	return 1;
}

// letsWorkArea is the work area (the monitor less panels and docks) of the
// primary monitor, or of the first one: 1 when there is one.
static int letsWorkArea(int *x, int *y, int *w, int *h) {
	GdkDisplay *d = gdk_display_get_default();
	if (d == NULL) return 0;
	GdkMonitor *m = gdk_display_get_primary_monitor(d);
	if (m == NULL && gdk_display_get_n_monitors(d) > 0) m = gdk_display_get_monitor(d, 0);
	if (m == NULL) return 0;
	GdkRectangle r;
	gdk_monitor_get_workarea(m, &r);
	*x = r.x; *y = r.y; *w = r.width; *h = r.height;
	return r.width > 0 && r.height > 0;
}

// letsMainWindow is the window Wails shows (the toplevel holding the web
// view), or NULL before it exists.
static GtkWindow *letsMainWindow(void) {
	GtkWindow *found = NULL;
	GList *tops = gtk_window_list_toplevels();
	for (GList *l = tops; l != NULL && found == NULL; l = l->next) {
		if (GTK_IS_WINDOW(l->data) && letsFindWebView(GTK_WIDGET(l->data)) != NULL) found = GTK_WINDOW(l->data);
	}
	g_list_free(tops);
	return found;
}

typedef struct { int x, y, w, h, tries; } letsPlaceArgs;

// letsPlace sizes and moves the window once Wails has shown it. It runs
// at low priority and waits (every 5 ms) for the window to be visible:
// Wails centres the window on its monitor from an idle callback queued
// right after it shows it, and that must run first, or it would undo this.
static gboolean letsPlace(gpointer data) {
	letsPlaceArgs *a = data;
	GtkWindow *w = letsMainWindow();
	if (w == NULL || !gtk_widget_get_visible(GTK_WIDGET(w))) {
		// A window that is not shown within 5 s is left where it is.
		if (++a->tries < 1000) return G_SOURCE_CONTINUE;
		g_free(a);
		return G_SOURCE_REMOVE;
	}
	gtk_window_resize(w, a->w, a->h);
	gtk_window_move(w, a->x, a->y);
	g_free(a);
	return G_SOURCE_REMOVE;
}

static void letsSchedulePlace(int x, int y, int w, int h) {
	letsPlaceArgs *a = g_new(letsPlaceArgs, 1);
	a->x = x; a->y = y; a->w = w; a->h = h; a->tries = 0;
	g_timeout_add_full(G_PRIORITY_LOW, 5, letsPlace, a, NULL);
}

// letsPresent brings the window to the front, un-minimised and focused. On
// X11 it passes the X server's current time: window managers refuse focus
// to a window whose request is older than the person's last click
// elsewhere (focus-stealing prevention), and a request without a time
// (0) is often only flagged as "wants attention".
static gboolean letsPresent(gpointer unused) {
	GtkWindow *w = letsMainWindow();
	if (w == NULL) return G_SOURCE_REMOVE;
	guint32 t = GDK_CURRENT_TIME;
	GdkWindow *gw = gtk_widget_get_window(GTK_WIDGET(w));
	if (gw != NULL && GDK_IS_X11_WINDOW(gw)) t = gdk_x11_get_server_time(gw);
	gtk_window_deiconify(w);
	gtk_window_present_with_time(w, t);
	return G_SOURCE_REMOVE;
}

static void letsSchedulePresent(void) { g_idle_add(letsPresent, NULL); }
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
	"unsafe"

	"github.com/lets-app/lets/app/window/geometry"
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

	width, height := c.fit(workArea())
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
		Linux:         &linux.Options{ProgramName: WMName, Icon: AppIcon, WebviewGpuPolicy: linux.WebviewGpuPolicyNever},
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
	name, class := C.CString(WMName), C.CString(WMClass)
	defer C.free(unsafe.Pointer(name))
	defer C.free(unsafe.Pointer(class))
	if C.letsInitGTK(name, class) != 1 {
		return fmt.Errorf("%w (DISPLAY=%q, WAYLAND_DISPLAY=%q)", ErrNoGTK, os.Getenv("DISPLAY"), os.Getenv("WAYLAND_DISPLAY"))
	}
	return nil
}

// workArea is the primary monitor's work area (zero when GTK knows none);
// GTK must have started.
func workArea() geometry.Rect {
	var x, y, w, h C.int
	if C.letsWorkArea(&x, &y, &w, &h) != 1 {
		return geometry.Rect{}
	}
	return geometry.Rect{X: int(x), Y: int(y), Width: int(w), Height: int(h)}
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

func (r wailsRuntime) SetTitle(title string) { wailsruntime.WindowSetTitle(r.ctx, title) }
func (r wailsRuntime) Place(g geometry.Rect) {
	C.letsSchedulePlace(C.int(g.X), C.int(g.Y), C.int(g.Width), C.int(g.Height))
}
func (r wailsRuntime) Present()             { C.letsSchedulePresent() }
func (r wailsRuntime) Size() (int, int)     { return wailsruntime.WindowGetSize(r.ctx) }
func (r wailsRuntime) Position() (int, int) { return wailsruntime.WindowGetPosition(r.ctx) }
func (r wailsRuntime) Quit()                { wailsruntime.Quit(r.ctx) }

// wailsLogger sends Wails' own log lines to slog.
type wailsLogger struct{ log *slog.Logger }

func (l wailsLogger) Print(m string)   { l.log.Info(m, "from", "wails") }
func (l wailsLogger) Trace(m string)   { l.log.Debug(m, "from", "wails") }
func (l wailsLogger) Debug(m string)   { l.log.Debug(m, "from", "wails") }
func (l wailsLogger) Info(m string)    { l.log.Info(m, "from", "wails") }
func (l wailsLogger) Warning(m string) { l.log.Warn(m, "from", "wails") }
func (l wailsLogger) Error(m string)   { l.log.Error(m, "from", "wails") }
func (l wailsLogger) Fatal(m string)   { l.log.Error(m, "from", "wails") }
