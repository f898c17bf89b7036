package desktopopen

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

const secretURL = "http://127.0.0.1:41234/w/w7/?t=one-time-key-0123456789abcdef"

// fakeOpener puts an xdg-open on a fresh PATH that writes its arguments,
// one a line, to the returned file, as the desktop's opener would get
// them.
func fakeOpener(t *testing.T) (record string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake opener is a shell script")
	}
	sh := testutil.Command(t, "sh")
	bin := t.TempDir()
	record = filepath.Join(t.TempDir(), "argv")
	script := "#!" + sh + "\nfor a in \"$0\" \"$@\"; do printf '%s\\n' \"$a\"; done > " + record + ".tmp && mv " + record + ".tmp " + record + "\n"
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return record
}

// recordedArgs waits for the fake opener's arguments.
func recordedArgs(t *testing.T, record string) []string {
	t.Helper()
	var data []byte
	testutil.EventuallyNoError(t, "the opener ran", func() error {
		var err error
		data, err = os.ReadFile(record)
		return err
	})
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// privateRuntimeDir is a stand-in for $XDG_RUNTIME_DIR (mode 0700).
func privateRuntimeDir(t *testing.T) string {
	t.Helper()
	rt := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	return rt
}

// pageOf returns the path of the page the opener was given.
func pageOf(t *testing.T, args []string) string {
	t.Helper()
	last := args[len(args)-1]
	u, err := url.Parse(last)
	if err != nil || u.Scheme != "file" {
		t.Fatalf("the opener got %q, want a file:// address", last)
	}
	return filepath.FromSlash(u.Path)
}

// Point (#23 High 1): the desktop's opener gets a file:// address of a
// private page, never the address with its key; the page is 0600 in a 0700
// folder under $XDG_RUNTIME_DIR and sends the browser to the address.
func TestOpenPutsNoKeyOnTheCommandLine(t *testing.T) {
	record := fakeOpener(t)
	rt := privateRuntimeDir(t)
	t.Setenv("XDG_RUNTIME_DIR", rt)
	t.Setenv("LETS_HOME", filepath.Join(t.TempDir(), "lets-home"))
	o := &Opener{Clock: clock.NewFake(time.Unix(1_800_000_000, 0))}
	if err := o.Open(context.Background(), secretURL); err != nil {
		t.Fatal(err)
	}
	args := recordedArgs(t, record)
	for _, a := range args {
		if strings.Contains(a, "t=") || strings.Contains(a, "one-time-key") || strings.Contains(a, "127.0.0.1") {
			t.Fatalf("the opener's command line holds the address: %q", args)
		}
	}
	file := pageOf(t, args)
	wantDir := filepath.Join(rt, "lets", "open")
	if filepath.Dir(file) != wantDir {
		t.Fatalf("the page is at %s, want it in %s", file, wantDir)
	}
	for _, c := range []struct {
		path string
		mode os.FileMode
	}{{file, 0o600}, {wantDir, 0o700}, {filepath.Dir(wantDir), 0o700}} {
		fi, err := os.Lstat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != c.mode || fi.Mode()&os.ModeSymlink != 0 {
			t.Errorf("%s has mode %v, want %o", c.path, fi.Mode(), c.mode)
		}
	}
	page, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<meta http-equiv="refresh" content="0;url=` + secretURL + `">`,
		`<a href="` + secretURL + `">`,
		`location.replace("` + secretURL + `")`,
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %s:\n%s", want, page)
		}
	}
}

// Point: without $XDG_RUNTIME_DIR the page goes into Lets' own state folder.
func TestOpenFallsBackToTheDataFolder(t *testing.T) {
	record := fakeOpener(t)
	home := filepath.Join(t.TempDir(), "lets-home")
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("LETS_HOME", home)
	// Lets' data folder does not exist yet (a pad daemon started first):
	// it is made, private.
	o := &Opener{Clock: clock.NewFake(time.Unix(1_800_000_000, 0))}
	if err := o.Open(context.Background(), secretURL); err != nil {
		t.Fatal(err)
	}
	file := pageOf(t, recordedArgs(t, record))
	if want := filepath.Join(home, "state", "open"); filepath.Dir(file) != want {
		t.Fatalf("the page is at %s, want it in %s", file, want)
	}
	for _, d := range []string{home, filepath.Join(home, "state")} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want mode 0700", d, fi, err)
		}
	}
}

// Point: the page is removed once Keep has passed on the opener's clock.
func TestOpenRemovesThePageAfterKeep(t *testing.T) {
	record := fakeOpener(t)
	dir := filepath.Join(privateRuntimeDir(t), "lets", "open")
	fake := clock.NewFake(time.Unix(1_800_000_000, 0))
	o := &Opener{Dirs: []string{dir}, Clock: fake}
	if err := o.Open(context.Background(), secretURL); err != nil {
		t.Fatal(err)
	}
	file := pageOf(t, recordedArgs(t, record))
	fake.Advance(Keep - time.Second)
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the page went before Keep: %v", err)
	}
	fake.Advance(time.Second)
	testutil.Eventually(t, "the page is removed after Keep", func() bool {
		_, err := os.Stat(file)
		return errors.Is(err, os.ErrNotExist)
	})
}

// Point: pages left by a process that ended before Keep (a headless
// `lets open`) are removed at the next call; newer ones and other files
// stay.
func TestOpenRemovesStalePagesAtTheNextCall(t *testing.T) {
	fakeOpener(t)
	dir := filepath.Join(privateRuntimeDir(t), "lets", "open")
	now := time.Unix(1_800_000_000, 0)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	name := func(at time.Time) string {
		return filepath.Join(dir, "open-"+strconv.FormatInt(at.Unix(), 10)+"-X.html")
	}
	stale, fresh, other := name(now.Add(-Keep-time.Second)), name(now.Add(-Keep+time.Second)), filepath.Join(dir, "notes.txt")
	for _, f := range []string{stale, fresh, other} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	o := &Opener{Dirs: []string{dir}, Clock: clock.NewFake(now)}
	if err := o.Open(context.Background(), secretURL); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a page older than Keep is still there: %v", err)
	}
	for _, f := range []string{fresh, other} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s should stay: %v", f, err)
		}
	}
}

// Point: a folder reached through a symlink, or one other users can write
// to, is not used: the next candidate is, and with none left Open fails
// without running the opener.
func TestOpenRefusesFoldersThatAreNotPrivate(t *testing.T) {
	record := fakeOpener(t)
	rt := privateRuntimeDir(t)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(rt, "lets")); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil { // past the umask
		t.Fatal(err)
	}
	linked, loose := filepath.Join(rt, "lets", "open"), filepath.Join(shared, "lets", "open")
	fake := clock.NewFake(time.Unix(1_800_000_000, 0))

	o := &Opener{Dirs: []string{linked, loose}, Clock: fake}
	err := o.Open(context.Background(), secretURL)
	if !errors.Is(err, ErrNoPrivateFolder) {
		t.Fatalf("open with only unsafe folders: %v, want ErrNoPrivateFolder", err)
	}
	if strings.Contains(err.Error(), "one-time-key") {
		t.Errorf("the error shows the key: %v", err)
	}
	if _, err := os.Stat(record); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the opener ran with no private folder")
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("something was written through the symlink: %v", entries)
	}

	good := filepath.Join(privateRuntimeDir(t), "lets", "open")
	o.Dirs = []string{linked, good}
	if err := o.Open(context.Background(), secretURL); err != nil {
		t.Fatal(err)
	}
	if file := pageOf(t, recordedArgs(t, record)); filepath.Dir(file) != good {
		t.Fatalf("the page is at %s, want it in the next private folder %s", file, good)
	}
}

// Point: a folder of another user is not used, even when private.
func TestOpenRefusesAnotherUsersFolder(t *testing.T) {
	if os.Geteuid() != 0 {
		testutil.Missing(t, testutil.RequireToolsEnv, "only root can give a folder to another user", "run this test as root (CI and `make test` do)")
	}
	record := fakeOpener(t)
	rt := privateRuntimeDir(t)
	theirs := filepath.Join(rt, "lets")
	if err := os.Mkdir(theirs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	o := &Opener{Dirs: []string{filepath.Join(theirs, "open")}, Clock: clock.NewFake(time.Unix(1_800_000_000, 0))}
	if err := o.Open(context.Background(), secretURL); !errors.Is(err, ErrNoPrivateFolder) || !strings.Contains(err.Error(), "uid 65534") {
		t.Fatalf("open into another user's folder: %v, want ErrNoPrivateFolder naming the owner", err)
	}
	if _, err := os.Stat(record); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the opener ran with no private folder")
	}
}

// Point: a folder of ours looser than 0700 is made private before use.
func TestOpenTightensALooseFolderOfOurs(t *testing.T) {
	record := fakeOpener(t)
	dir := filepath.Join(privateRuntimeDir(t), "lets", "open")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	o := &Opener{Dirs: []string{dir}, Clock: clock.NewFake(time.Unix(1_800_000_000, 0))}
	if err := o.Open(context.Background(), secretURL); err != nil {
		t.Fatal(err)
	}
	recordedArgs(t, record)
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want mode 0700", d, fi.Mode(), err)
		}
	}
}

// Point: only web addresses are opened.
func TestOpenRefusesOtherAddresses(t *testing.T) {
	record := fakeOpener(t)
	o := &Opener{Dirs: []string{filepath.Join(privateRuntimeDir(t), "lets", "open")}, Clock: clock.NewFake(time.Unix(1_800_000_000, 0))}
	for _, u := range []string{"file:///etc/passwd", "javascript:alert(1)", "/w/w1/?t=x", "http:///nohost"} {
		if err := o.Open(context.Background(), u); !errors.Is(err, ErrNotWebAddress) {
			t.Errorf("open %q: %v, want ErrNotWebAddress", u, err)
		}
	}
	if _, err := os.Stat(record); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the opener ran for an address that is not a web address")
	}
}

// Point: addresses that would break out of the page's attribute or script
// are escaped.
func TestPageEscapesTheAddress(t *testing.T) {
	p := page(`http://127.0.0.1:1/?a="><script>x</script>&b='`)
	if strings.Contains(p, `"><script>x`) || strings.Contains(p, "</script>&") {
		t.Fatalf("the address broke out of the page:\n%s", p)
	}
}
