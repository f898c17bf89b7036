// Package claudeinstall installs Claude Code into Lets' own folder under
// the data folder (<data>/claude-code), with npm and without sudo, pinned
// to the version Lets is tested with. backend/claudefind looks there first.
//
// npm takes its registry, proxy and cache from its own configuration
// (~/.npmrc, npm_config_* variables), so a test points it at a loopback
// stand-in with npm_config_registry. Nothing secret goes into npm's argv.
package claudeinstall

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lets-app/lets/backend/claudefind"
)

// Package is Claude Code's npm package.
const Package = "@anthropic-ai/claude-code"

// Step is where an install is.
type Step string

const (
	StepStarted     Step = "started"
	StepDownloading Step = "downloading"
	StepInstalling  Step = "installing"
	StepDone        Step = "done"
)

// Progress is one report of an install. Percent is 0–100, or -1 when
// nobody can tell how far along it is (show a moving bar).
type Progress struct {
	Step    Step   `json:"step"`
	Percent int    `json:"percent"`
	Text    string `json:"text"`
}

// Options configure an install.
type Options struct {
	// DataDir is Lets' data folder (~/.lets); required.
	DataDir string
	// Version is the Claude Code version; "" means
	// claudefind.TestedVersion.
	Version string
	// Env is npm's environment; nil means this process's. Its PATH is
	// where npm and node are looked for.
	Env []string
	// OSRelease is the os-release file naming the distribution for the
	// "Node.js is missing" advice; "" means /etc/os-release.
	OSRelease string
	// Timeout bounds the whole install; 0 means 10 minutes.
	Timeout time.Duration
}

// tailLines is how many of npm's last lines a failure keeps.
const tailLines = 12

// NodeMissingError: node or npm is not installed. Advice says how to
// install them on this distribution.
type NodeMissingError struct {
	Missing string // "node" or "npm"
	Advice  string
}

func (e *NodeMissingError) Error() string {
	return "Node.js is missing. " + e.Advice
}

// NPMFailedError: npm ran and failed. Tail is the last lines it printed.
type NPMFailedError struct {
	ExitCode int
	Tail     []string
}

func (e *NPMFailedError) Error() string {
	msg := fmt.Sprintf("Installing Claude Code did not work (npm stopped with code %d). Check that this computer is online and try again", e.ExitCode)
	if len(e.Tail) > 0 {
		msg += ". npm said:\n" + strings.Join(e.Tail, "\n")
	}
	return msg
}

// NotFoundAfterError: npm said it worked but claude is not where it
// should be.
type NotFoundAfterError struct {
	Path string
	Err  error
}

func (e *NotFoundAfterError) Error() string {
	return fmt.Sprintf("npm finished, but Claude Code is not at %s (%v); remove that folder and try again", e.Path, e.Err)
}

func (e *NotFoundAfterError) Unwrap() error { return e.Err }

// Install installs Claude Code and returns what the finder then finds.
// progress may be nil. Cancelling ctx stops npm and everything it started;
// the error is then ctx's (context.Canceled). Errors: *NodeMissingError,
// *NPMFailedError, *NotFoundAfterError, ctx's.
func Install(ctx context.Context, o Options, progress func(Progress)) (claudefind.Found, error) {
	if o.DataDir == "" {
		return claudefind.Found{}, errors.New("claudeinstall: Options.DataDir is required")
	}
	if progress == nil {
		progress = func(Progress) {}
	}
	version := o.Version
	if version == "" {
		version = claudefind.TestedVersion
	}
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	path := lookupEnv(env, "PATH")
	for _, prog := range []string{"node", "npm"} {
		if _, ok := lookIn(path, prog); !ok {
			return claudefind.Found{}, &NodeMissingError{Missing: prog, Advice: nodeAdvice(o.OSRelease)}
		}
	}
	npm, _ := lookIn(path, "npm")
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	prefix := filepath.Join(o.DataDir, claudefind.OwnFolder)
	if err := os.MkdirAll(prefix, 0o700); err != nil {
		return claudefind.Found{}, fmt.Errorf("make %s for Claude Code: %w", prefix, err)
	}
	progress(Progress{Step: StepStarted, Percent: 0, Text: "Getting ready to install Claude Code…"})
	cmd := exec.Command(npm, "install", "--prefix", prefix,
		"--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=http",
		Package+"@"+version)
	cmd.Dir = prefix
	cmd.Env = env
	// Its own process group, so a cancel stops npm and every script it ran.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return claudefind.Found{}, fmt.Errorf("start npm: %w", err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return claudefind.Found{}, fmt.Errorf("start npm (%s): %w", npm, err)
	}
	pgid := cmd.Process.Pid
	stopped := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		case <-stopped:
		}
	}()
	tail := readProgress(out, progress)
	werr := cmd.Wait()
	close(stopped)
	wg.Wait()
	// Whatever npm left behind in its group goes too.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	if ctx.Err() != nil {
		return claudefind.Found{}, ctx.Err()
	}
	if werr != nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			code = ee.ExitCode()
		}
		return claudefind.Found{}, &NPMFailedError{ExitCode: code, Tail: tail}
	}
	found, err := claudefind.Find(ctx, claudefind.Options{DataDir: o.DataDir, Getenv: func(k string) string {
		if k == "PATH" || k == "HOME" || k == "NVM_DIR" {
			return ""
		}
		return lookupEnv(env, k)
	}})
	if err != nil || found.Source != claudefind.SourceLets {
		return claudefind.Found{}, &NotFoundAfterError{Path: claudefind.OwnBin(o.DataDir), Err: err}
	}
	progress(Progress{Step: StepDone, Percent: 100, Text: "Claude Code is installed."})
	return found, nil
}

// readProgress turns npm's output into progress reports until it ends and
// returns its last lines. npm (--loglevel=http) prints one "http fetch"
// line per file it fetches; the package's own tarball means downloading
// is nearly over and unpacking follows.
func readProgress(r io.Reader, progress func(Progress)) []string {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var tail []string
	fetched := 0
	installing := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		tail = append(tail, line)
		if len(tail) > tailLines {
			tail = tail[1:]
		}
		if !strings.Contains(line, "http fetch") {
			continue
		}
		fetched++
		if installing {
			continue
		}
		if strings.Contains(line, ".tgz") {
			installing = true
			progress(Progress{Step: StepInstalling, Percent: 80, Text: "Unpacking Claude Code…"})
			continue
		}
		pct := 10 + 10*fetched
		if pct > 70 {
			pct = 70
		}
		progress(Progress{Step: StepDownloading, Percent: pct, Text: "Downloading Claude Code…"})
	}
	return tail
}

func lookupEnv(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

func lookIn(path, prog string) (string, bool) {
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, prog)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// nodeAdvice says how to install Node.js and npm on the distribution that
// osRelease (the os-release file) names.
func nodeAdvice(osRelease string) string {
	if osRelease == "" {
		osRelease = "/etc/os-release"
	}
	b, _ := os.ReadFile(osRelease)
	id, like, name := "", "", ""
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"'`)
		switch k {
		case "ID":
			id = v
		case "ID_LIKE":
			like = v
		case "NAME":
			name = v
		}
	}
	ids := append([]string{id}, strings.Fields(like)...)
	has := func(want ...string) bool {
		for _, i := range ids {
			for _, w := range want {
				if i == w {
					return true
				}
			}
		}
		return false
	}
	if name == "" {
		name = "this computer"
	}
	switch {
	case has("debian", "ubuntu"):
		return fmt.Sprintf("On %s, install it in a terminal with: sudo apt install nodejs npm", name)
	case has("fedora", "rhel", "centos"):
		return fmt.Sprintf("On %s, install it in a terminal with: sudo dnf install nodejs npm", name)
	case has("arch", "manjaro"):
		return fmt.Sprintf("On %s, install it in a terminal with: sudo pacman -S nodejs npm", name)
	case has("opensuse", "suse", "opensuse-tumbleweed", "opensuse-leap"):
		return fmt.Sprintf("On %s, install it in a terminal with: sudo zypper install nodejs npm", name)
	}
	return "Install Node.js (it comes with npm) from your system's software centre or from nodejs.org."
}
