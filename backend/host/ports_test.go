package host

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// writeUniqueFolder writes a plain folder holding the test unique name.
func writeUniqueFolder(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for p, data := range boardFiles(name, []string{}) {
		f := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readPortsFile(t *testing.T, home string) portsState {
	t.Helper()
	st := portsState{}
	raw, err := os.ReadFile(filepath.Join(home, "state", "ports.json"))
	if err != nil {
		if os.IsNotExist(err) {
			return st
		}
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatalf("ports.json: %v", err)
	}
	return st
}

// freePort is a loopback port nobody listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Issue #10 (ports of uninstalled uniques): uninstalling a unique stops its
// origin and forgets its port, so a different unique installed later under
// the same name does not inherit its origin and browser storage.
func TestUninstallForgetsTheUniquesPort(t *testing.T) {
	th := startLIPHost(t)
	first := writeUniqueFolder(t, "tally")
	if code, body := th.call(t, "POST", "/lip/install", map[string]any{"source": first}, testHostToken); code != http.StatusOK {
		t.Fatalf("install: %d %v", code, body)
	}
	th.open(t, "tally", "")
	o, ok := th.origins.get("tally")
	if !ok {
		t.Fatal("no origin after open")
	}
	port := o.port
	if st := readPortsFile(t, th.home); st.Uniques["tally"] != port || st.Sources["tally"] != first {
		t.Fatalf("ports.json before uninstall: %+v, want tally on %d from %s", st, port, first)
	}
	if code, body := th.call(t, "DELETE", "/lip/uniques/tally", nil, testHostToken); code != http.StatusOK {
		t.Fatalf("remove: %d %v", code, body)
	}
	if _, ok := th.origins.get("tally"); ok {
		t.Fatal("the removed unique's origin still runs")
	}
	if st := readPortsFile(t, th.home); st.Uniques["tally"] != 0 || st.Sources["tally"] != "" {
		t.Fatalf("ports.json still remembers the removed unique: %+v", st)
	}
	if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
		c.Close()
		t.Fatalf("the removed unique's port %d still answers", port)
	}
}

// A port remembered for a unique from another source is not reused, and
// the first browser let in on a port new to the unique is told to clear
// the origin's storage (in case the port held another unique before); a
// port remembered for the same source is reused without clearing.
func TestPortBelongsToTheUniqueFromOneSource(t *testing.T) {
	home := t.TempDir()
	taken := freePort(t)
	st := portsState{Uniques: map[string]int{"board": taken}, Sources: map[string]string{"board": "https://example.invalid/other.git"}}
	th := startLIPHostAt(t, home)
	th.origins.writePorts(st)

	w := th.open(t, "board", "")
	o, _ := th.origins.get("board")
	if o.port == taken {
		t.Fatalf("board got the port remembered for a unique from another source (%d)", taken)
	}
	if got := readPortsFile(t, home); got.Sources["board"] != "built-in" || got.Uniques["board"] != o.port {
		t.Fatalf("ports.json after open: %+v", got)
	}
	exchange := func(o *uniqueOrigin, w testWindow) *http.Response {
		t.Helper()
		win, ok := th.core.window(w.Window)
		if !ok {
			t.Fatalf("no window %s", w.Window)
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Get(o.url() + "/index.html?t=" + url.QueryEscape(win.frameToken))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("token exchange: %s", resp.Status)
		}
		return resp
	}
	if got := exchange(o, w).Header.Get("Clear-Site-Data"); got != `"cache", "storage"` {
		t.Fatalf("first browser on a new port: Clear-Site-Data %q", got)
	}
	if got := exchange(o, w).Header.Get("Clear-Site-Data"); got != "" {
		t.Fatalf("second exchange on the same origin cleared again: %q", got)
	}

	port := o.port
	th.stop()
	th2 := startLIPHostAt(t, home)
	w2 := th2.open(t, "board", "")
	o2, _ := th2.origins.get("board")
	if o2.port != port {
		t.Fatalf("same unique, same source: port %d after restart, was %d", o2.port, port)
	}
	th = th2
	if got := exchange(o2, w2).Header.Get("Clear-Site-Data"); got != "" {
		t.Fatalf("a remembered port must keep its storage, got Clear-Site-Data %q", got)
	}
}
