// Package desktopopen opens a web address in the person's browser without
// putting the address on any command line. Every local user can read a
// process's arguments (/proc/*/cmdline, ps), and the addresses Lets opens
// carry one-time keys, so the address goes into a small redirect page
// (mode 0600, in a private 0700 folder) and the desktop's opener gets only
// that file's name. The page sends the browser on at once and is removed
// after Keep; a later call removes any left behind by a process that ended
// first (a headless `lets open` exits right after opening).
//
// Browsers confined by snap or flatpak may be unable to read the runtime
// folder or a hidden folder in home; the page's address is then shown by
// the browser as unreadable, and the host still refuses the key to other
// users (backend/host), so nothing leaks.
package desktopopen

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/config"
)

// Keep is how long a redirect page stays: long enough for a browser that
// is still starting to read it.
const Keep = 2 * time.Minute

// Errors Open returns, wrapped with the details.
var (
	// ErrNotWebAddress: only http and https addresses are opened.
	ErrNotWebAddress = errors.New("not a web address")
	// ErrNoPrivateFolder: no folder fit for the redirect page was found.
	ErrNoPrivateFolder = errors.New("no private folder for the page that opens the browser")
)

const (
	filePrefix = "open-"
	fileSuffix = ".html"
)

// Opener opens addresses through redirect pages. The zero value uses the
// platform's opener, the folders of DefaultDirs and the real clock.
type Opener struct {
	// Dirs are the candidate folders for the pages, the first fit one is
	// used; nil means DefaultDirs(os.Getenv).
	Dirs []string
	// Command is the program (and leading arguments) that opens a file;
	// the page's file:// address is added last. nil means the platform's:
	// xdg-open, open, or rundll32 url.dll,FileProtocolHandler.
	Command []string
	Clock   clock.Clock
	// Keep overrides the package's Keep when positive.
	Keep time.Duration
	Log  *slog.Logger
}

// Open opens rawURL in the person's browser with a zero Opener.
func Open(ctx context.Context, rawURL string) error {
	return (&Opener{}).Open(ctx, rawURL)
}

// DefaultDirs are the folders the pages go into, best first:
// $XDG_RUNTIME_DIR/lets/open, then the open folder in Lets' state folder.
func DefaultDirs(getenv func(string) string) []string {
	var dirs []string
	if rt := getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		dirs = append(dirs, filepath.Join(rt, "lets", "open"))
	}
	if home, err := config.ResolveHome(getenv); err == nil {
		dirs = append(dirs, filepath.Join(config.Paths{Home: home}.StateDir(), "open"))
	}
	return dirs
}

func (o *Opener) clock() clock.Clock { return clock.Or(o.Clock) }

func (o *Opener) keep() time.Duration {
	if o.Keep > 0 {
		return o.Keep
	}
	return Keep
}

func (o *Opener) log() *slog.Logger {
	if o.Log != nil {
		return o.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (o *Opener) command() []string {
	if len(o.Command) > 0 {
		return o.Command
	}
	switch runtime.GOOS {
	case "darwin":
		return []string{"open"}
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler"}
	default:
		return []string{"xdg-open"}
	}
}

// Open writes the redirect page for rawURL, starts the opener on it
// without waiting for it, and removes the page after Keep. Pages older
// than Keep left by earlier calls are removed first.
func (o *Opener) Open(ctx context.Context, rawURL string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("open %q in the browser: %w (only http and https addresses are opened)", redact(rawURL), ErrNotWebAddress)
	}
	dir, err := o.privateDir()
	if err != nil {
		return err
	}
	now := o.clock().Now()
	o.removeStale(dir, now)
	file, err := writePage(dir, now, u.String())
	if err != nil {
		return err
	}
	cmdline := append(append([]string(nil), o.command()...), fileURL(file))
	cmd := exec.Command(cmdline[0], cmdline[1:]...)
	if err := cmd.Start(); err != nil {
		_ = os.Remove(file)
		return fmt.Errorf("start %s to open the browser (install it, or open the address yourself): %w", cmdline[0], err)
	}
	go func() { _ = cmd.Wait() }()
	o.clock().AfterFunc(o.keep(), func() {
		if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
			o.log().Warn("could not remove the page that opened the browser", "file", file, "err", err)
		}
	})
	return nil
}

// redact drops the query of an address for error messages: it may hold a
// key.
func redact(raw string) string {
	before, _, _ := strings.Cut(raw, "?")
	return before
}

// privateDir returns the first candidate folder that is (or can be made)
// ours, private and reached without symlinks.
func (o *Opener) privateDir() (string, error) {
	dirs := o.Dirs
	if dirs == nil {
		dirs = DefaultDirs(os.Getenv)
	}
	var reasons []string
	for _, d := range dirs {
		if err := ensurePrivate(d); err != nil {
			o.log().Warn("a folder for the browser's page is not private; trying the next", "dir", d, "err", err)
			reasons = append(reasons, err.Error())
			continue
		}
		return d, nil
	}
	if len(reasons) == 0 {
		reasons = append(reasons, "set XDG_RUNTIME_DIR or LETS_HOME")
	}
	return "", fmt.Errorf("%w: %s", ErrNoPrivateFolder, strings.Join(reasons, "; "))
}

// ensurePrivate makes dir, its parent (Lets' own "lets" or "state"
// folder) and the folder above if missing, mode 0700, and checks that both and the folder above
// them are real folders of this user that nobody else can write to.
func ensurePrivate(dir string) error {
	parent := filepath.Dir(dir)
	base := filepath.Dir(parent)
	// A missing data folder (Lets not set up yet) is made as Lets makes it.
	if _, err := os.Lstat(base); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(base, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", base, err)
		}
	}
	if err := checkFolder(base, false); err != nil {
		return err
	}
	for _, d := range []string{parent, dir} {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("create %s: %w", d, err)
		}
		if err := checkFolder(d, true); err != nil {
			return err
		}
	}
	return nil
}

// checkFolder checks that d is a folder (not a symlink) owned by this user
// and not writable by others; with tighten, one looser than 0700 is made
// 0700.
func checkFolder(d string, tighten bool) error {
	fi, err := os.Lstat(d)
	if err != nil {
		return fmt.Errorf("check %s: %w", d, err)
	}
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("%s is not a plain folder (a link or a file is in its place)", d)
	}
	if err := ownedByMe(fi); err != nil {
		return fmt.Errorf("%s: %w", d, err)
	}
	if runtime.GOOS == "windows" {
		return nil
	}
	switch {
	case tighten && fi.Mode().Perm() != 0o700:
		if err := os.Chmod(d, 0o700); err != nil {
			return fmt.Errorf("make %s private (mode 0700): %w", d, err)
		}
	case !tighten && fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s can be written by other users (mode %o)", d, fi.Mode().Perm())
	}
	return nil
}

// writePage creates the redirect page (mode 0600, a fresh name that tells
// when it was made) and returns its path.
func writePage(dir string, now time.Time, target string) (string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", fmt.Errorf("open the folder %s: %w", dir, err)
	}
	defer root.Close()
	var name string
	var f *os.File
	for range 10 {
		name = filePrefix + strconv.FormatInt(now.Unix(), 10) + "-" + rand.Text() + fileSuffix
		f, err = root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("create the page that opens the browser in %s: %w", dir, err)
		}
	}
	if f == nil {
		return "", fmt.Errorf("create the page that opens the browser in %s: no free name", dir)
	}
	path := filepath.Join(dir, name)
	_, werr := f.WriteString(page(target))
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(path)
		return "", fmt.Errorf("write the page that opens the browser: %w", err)
	}
	return path, nil
}

// page is the redirect page: a meta refresh, a script for browsers that
// wait on it, and a link for a person if neither runs.
func page(target string) string {
	attr := html.EscapeString(target)
	js, _ := json.Marshal(target) // escapes <, > and & too
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<meta http-equiv="refresh" content="0;url=` + attr + `">
<title>Opening Lets…</title>
<style>
:root { color-scheme: light dark; background: #f6f5f2; color: #1d1f24; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 34rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.35rem; }
a { color: #1f5fbf; }
:focus-visible { outline: 3px solid currentColor; outline-offset: 2px; }
@media (prefers-color-scheme: dark) { :root { background: #121316; color: #eceae6; } a { color: #9ecbff; } }
</style>
</head>
<body>
<main>
<h1>Opening Lets…</h1>
<p>If nothing happens, <a href="` + attr + `">open Lets here</a>.</p>
</main>
<script>location.replace(` + string(js) + `);</script>
</body>
</html>
`
}

// removeStale removes pages in dir made more than Keep before now, by the
// time in their names (files of other shapes are left alone).
func (o *Opener) removeStale(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		made, ok := madeAt(e.Name())
		if !ok || e.IsDir() || now.Sub(made) < o.keep() {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
			o.log().Warn("could not remove an old page that opened the browser", "file", e.Name(), "err", err)
		}
	}
}

// madeAt reads the time from a page's name: open-<unix seconds>-<random>.html.
func madeAt(name string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(name, filePrefix)
	if !ok || !strings.HasSuffix(rest, fileSuffix) {
		return time.Time{}, false
	}
	secs, _, ok := strings.Cut(rest, "-")
	if !ok {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(n, 0), true
}

// fileURL is the file:// address of path.
func fileURL(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/… on Windows
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
