package cli

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/desktopopen"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Point (#23 High 1): the desktop opener Lets runs for a window's,
// home's or admin's one-time link (headless `lets open`, `lets chat`
// without lets-window) never has the link on its command line, which every
// local user can read; it gets the file:// address of a private page.
// Before the fix xdg-open got http://127.0.0.1:P/w/wN/?t=KEY itself.
func TestDesktopOpenerCommandLineHoldsNoKey(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the fake opener stands in for xdg-open")
	}
	sh := testutil.Command(t, "sh")
	bin, record := t.TempDir(), filepath.Join(t.TempDir(), "argv")
	script := "#!" + sh + "\nfor a in \"$0\" \"$@\"; do printf '%s\\n' \"$a\"; done > " + record + ".tmp && mv " + record + ".tmp " + record + "\n"
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	rt := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", rt)
	t.Setenv("LETS_HOME", filepath.Join(t.TempDir(), "lets-home"))

	const link = "http://127.0.0.1:41234/w/w3/?t=window-one-time-key-42"
	env := &Env{} // no OpenURL seam: the real opener
	if err := env.OpenInBrowser(link); err != nil {
		t.Fatal(err)
	}
	var data []byte
	testutil.EventuallyNoError(t, "the desktop opener ran", func() error {
		var err error
		data, err = os.ReadFile(record)
		return err
	})
	args := strings.Split(strings.TrimSpace(string(data)), "\n")
	if strings.Contains(string(data), "t=") || strings.Contains(string(data), "window-one-time-key") {
		t.Fatalf("the opener's command line holds the one-time link: %q", args)
	}
	u, err := url.Parse(args[len(args)-1])
	if err != nil || u.Scheme != "file" || !strings.HasPrefix(u.Path, filepath.Join(rt, "lets", "open")+"/") {
		t.Fatalf("the opener got %q, want a page in %s", args, filepath.Join(rt, "lets", "open"))
	}
	page, err := os.ReadFile(u.Path)
	if err != nil || !strings.Contains(string(page), link) {
		t.Fatalf("the page does not lead to the link (%v):\n%s", err, page)
	}
}

// fakeBrowserScript is a fake xdg-open for tests that run Lets as a
// process: it appends to record the address a browser would land on. Lets
// hands the opener a file:// redirect page (desktopopen), so the script
// reads the address from the page's refresh line; anything else it writes
// down as given.
func fakeBrowserScript(record string) string {
	// sed by its full path: some tests run Lets with a PATH that holds
	// nothing but their own fakes.
	sed, err := exec.LookPath("sed")
	if err != nil {
		sed = "/bin/sed"
	}
	return `#!/bin/sh
a="$1"
case "$a" in
file://*) a=$(` + sed + ` -n 's/^<meta http-equiv="refresh" content="0;url=\(.*\)">$/\1/p' "${a#file://}" | ` + sed + ` "s/&#39;/'/g; s/&#34;/\"/g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g") ;;
esac
printf '%s\n' "$a" >> '` + record + `'
`
}

// Point: the fake browser of the process tests writes down the address
// the redirect page leads to, keys and all.
func TestFakeBrowserScriptReadsThePage(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the fake browser is a shell script")
	}
	testutil.Command(t, "sh")
	bin, record := t.TempDir(), filepath.Join(t.TempDir(), "opened")
	script := filepath.Join(bin, "xdg-open")
	if err := os.WriteFile(script, []byte(fakeBrowserScript(record)), 0o755); err != nil {
		t.Fatal(err)
	}
	o := &desktopopen.Opener{Dirs: []string{filepath.Join(t.TempDir(), "lets", "open")}, Command: []string{script}}
	const link = "http://127.0.0.1:41234/w/w1/?t=key&b='x'"
	if err := o.Open(context.Background(), link); err != nil {
		t.Fatal(err)
	}
	if err := o.Open(context.Background(), "http://127.0.0.1:41234/#k=home"); err != nil {
		t.Fatal(err)
	}
	var data []byte
	testutil.Eventually(t, "the fake browser wrote both addresses down", func() bool {
		data, _ = os.ReadFile(record)
		return strings.Count(string(data), "\n") >= 2
	})
	// The opener does not wait for the browser, so the two fake browsers
	// run side by side and may write in either order.
	u, _ := url.Parse(link)
	got := strings.Fields(string(data))
	sort.Strings(got)
	want := []string{"http://127.0.0.1:41234/#k=home", u.String()}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the fake browser wrote %q, want %q", got, want)
	}
}
