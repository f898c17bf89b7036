package window_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// TestPagesCannotReachWails: a page in the window (the shell, or a unique
// in its frame) finds no Wails bridge, so it cannot ask the window process
// to open URLs with xdg-open, write the clipboard or quit. The probe page
// posts Wails' quit message: if the bridge were there, the window would
// close itself.
func TestPagesCannotReachWails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Lets with the desktop tags and runs WebKit; not in -short")
	}
	g := startGUIRig(t)

	saw := make(chan string, 4)
	mux := http.NewServeMux()
	mux.HandleFunc("/w/probe/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>probe</title><body>probe<script>
const h = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.external;
let posted = "no";
try { if (h) { h.postMessage("Q"); posted = "yes"; } } catch (e) { posted = "threw"; }
fetch("/beacon?bridge=" + (h ? "present" : "absent") + "&posted=" + posted);
</script></body>`)
	})
	mux.HandleFunc("/beacon", func(w http.ResponseWriter, r *http.Request) {
		saw <- r.URL.RawQuery
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.bin, "window")
	cmd.Env = g.env
	cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"window":"probe","unique":"probe","title":"Probe","url":"http://%s/w/probe/"}`+"\n", ln.Addr()))
	out := g.serve.Stdout // the rig's log, under its one lock
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	// The page reports what it found and whether its quit message went
	// out: with the bridge cut, there was nothing to post it to, so the
	// window has nothing to close on.
	select {
	case q := <-saw:
		if !strings.Contains(q, "bridge=absent") || !strings.Contains(q, "posted=no") {
			t.Errorf("the page found Wails' bridge (%s)", q)
		}
	case err := <-exited:
		t.Fatalf("the window ended before its page ran: %v\n%s", err, g.logText())
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatalf("the probe page did not run within %v\n%s", testutil.EventuallyTimeout, g.logText())
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the window did not end cleanly on SIGTERM: %v", err)
		}
	case <-time.After(testutil.EventuallyTimeout):
		_ = cmd.Process.Kill()
		t.Fatalf("the window did not end within %v of SIGTERM", testutil.EventuallyTimeout)
	}
}
