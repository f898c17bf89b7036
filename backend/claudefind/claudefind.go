// Package claudefind is the one place Lets looks for Claude Code's
// `claude` command: the home page, the chat, `lets setup claude`,
// `lets doctor` and the tray all ask it, so they agree even when Lets was
// started at login with a short PATH.
//
// It looks in Lets' own install folder first (what the Install Claude Code
// button puts there, see backend/claudeinstall), then on PATH, then in the
// places a login shell's PATH usually has and a desktop session's lacks
// (~/.local/bin, ~/.npm-global/bin, ~/.claude/local, nvm's folders,
// /usr/local/bin, …). It reads the version with `claude --version`
// (bounded, cached by path and modification time) and warns when it is
// older than the version Lets is tested with.
package claudefind

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// TestedVersion is the Claude Code version Lets is tested with: the
// Makefile's CLAUDE_CODE_VERSION (a test keeps the two equal) and the one
// the Install Claude Code button installs.
const TestedVersion = "2.1.332"

// OwnFolder is the folder under the data folder (~/.lets) that Lets
// installs Claude Code into.
const OwnFolder = "claude-code"

// DefaultVersionTimeout bounds one `claude --version`.
const DefaultVersionTimeout = 10 * time.Second

// Source says where claude was found.
type Source string

const (
	// SourceLets is Lets' own install folder.
	SourceLets Source = "lets"
	// SourcePath is a folder on PATH.
	SourcePath Source = "path"
	// SourceUsual is a usual place outside PATH (~/.local/bin, nvm, …).
	SourceUsual Source = "usual-place"
)

// Found is a claude command.
type Found struct {
	Path   string `json:"path"`
	Source Source `json:"source"`
	// Version is what `claude --version` said ("2.1.332"); "" when it
	// could not be read (VersionErr says why).
	Version    string `json:"version,omitempty"`
	VersionErr error  `json:"-"`
	// Old is set when Version is older than the tested version.
	Old *OldVersion `json:"old,omitempty"`
}

// OldVersion warns that the claude found is older than the one Lets is
// tested with: it may work, but some things may not.
type OldVersion struct {
	Have   string `json:"have"`
	Tested string `json:"tested"`
}

func (o *OldVersion) String() string {
	return fmt.Sprintf("Claude Code %s is older than %s, the version Lets is tested with", o.Have, o.Tested)
}

// ErrNotFound is what NotFoundError matches with errors.Is.
var ErrNotFound = errors.New("Claude Code is not installed")

// NotFoundError says where claude was looked for.
type NotFoundError struct {
	Searched []string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("Claude Code (the claude command) is not installed: looked in %s", strings.Join(e.Searched, ", "))
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// Options say where to look.
type Options struct {
	// DataDir is Lets' data folder (~/.lets); "" skips Lets' own folder.
	DataDir string
	// Getenv reads PATH, HOME and NVM_DIR; nil means os.Getenv.
	Getenv func(string) string
	// Tested is the version to warn below; "" means TestedVersion.
	Tested string
	// VersionTimeout bounds `claude --version`; 0 means
	// DefaultVersionTimeout.
	VersionTimeout time.Duration
	// SkipVersion finds without running claude.
	SkipVersion bool
}

// OwnBin is where claude is after Lets installed it into dataDir.
func OwnBin(dataDir string) string {
	return filepath.Join(dataDir, OwnFolder, "node_modules", ".bin", "claude")
}

// Finder finds claude and remembers versions it read. The zero value is
// ready; share one to keep the cache.
type Finder struct {
	mu    sync.Mutex
	cache map[versionKey]versionAnswer
}

// versionAnswer is what one claude said, or why it said nothing: a claude
// that hangs is not asked again until the file changes.
type versionAnswer struct {
	version string
	err     error
}

type versionKey struct {
	path  string
	mtime time.Time
	size  int64
}

// Find is a Finder's Find without a shared cache.
func Find(ctx context.Context, o Options) (Found, error) {
	var f Finder
	return f.Find(ctx, o)
}

// Find looks for claude in the order the package comment gives and reads
// its version. A claude whose version cannot be read is still found
// (Found.VersionErr says why). Errors: *NotFoundError.
func (f *Finder) Find(ctx context.Context, o Options) (Found, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	found, searched, ok := locate(o.DataDir, getenv)
	if !ok {
		return Found{}, &NotFoundError{Searched: searched}
	}
	if o.SkipVersion {
		return found, nil
	}
	v, err := f.version(ctx, found.Path, o.VersionTimeout)
	if err != nil {
		found.VersionErr = err
		return found, nil
	}
	found.Version = v
	tested := o.Tested
	if tested == "" {
		tested = TestedVersion
	}
	if Older(v, tested) {
		found.Old = &OldVersion{Have: v, Tested: tested}
	}
	return found, nil
}

type place struct {
	dir    string
	source Source
}

// Places lists, in order, every folder Find looks in.
func Places(dataDir string, getenv func(string) string) []string {
	var out []string
	for _, p := range places(dataDir, getenv) {
		out = append(out, p.dir)
	}
	return out
}

func places(dataDir string, getenv func(string) string) []place {
	var out []place
	if dataDir != "" {
		out = append(out, place{filepath.Dir(OwnBin(dataDir)), SourceLets})
	}
	for _, d := range filepath.SplitList(getenv("PATH")) {
		out = append(out, place{d, SourcePath})
	}
	if home := getenv("HOME"); home != "" && filepath.IsAbs(home) {
		for _, d := range []string{".local/bin", ".npm-global/bin", ".claude/local", ".volta/bin", ".bun/bin", ".yarn/bin", "bin"} {
			out = append(out, place{filepath.Join(home, d), SourceUsual})
		}
		nvm := getenv("NVM_DIR")
		if nvm == "" {
			nvm = filepath.Join(home, ".nvm")
		}
		for _, d := range nvmBins(nvm) {
			out = append(out, place{d, SourceUsual})
		}
	}
	for _, d := range []string{"/usr/local/bin", "/opt/homebrew/bin", "/usr/bin"} {
		out = append(out, place{d, SourceUsual})
	}
	return out
}

// nvmBins lists nvm's node versions' bin folders, newest first.
func nvmBins(nvm string) []string {
	entries, err := os.ReadDir(filepath.Join(nvm, "versions", "node"))
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, strings.TrimPrefix(e.Name(), "v"))
		}
	}
	sort.Slice(names, func(i, j int) bool { return Older(names[j], names[i]) })
	var out []string
	for _, n := range names {
		out = append(out, filepath.Join(nvm, "versions", "node", "v"+n, "bin"))
	}
	return out
}

func locate(dataDir string, getenv func(string) string) (Found, []string, bool) {
	var searched []string
	seen := map[string]bool{}
	for _, p := range places(dataDir, getenv) {
		if p.dir == "" || !filepath.IsAbs(p.dir) || seen[p.dir] {
			continue
		}
		seen[p.dir] = true
		searched = append(searched, p.dir)
		c := filepath.Join(p.dir, "claude")
		if fi, err := os.Stat(c); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return Found{Path: c, Source: p.source}, searched, true
		}
	}
	return Found{}, searched, false
}

// VersionError is a `claude --version` that failed or said nothing Lets
// can read.
type VersionError struct {
	Path string
	Out  string
	Err  error
}

func (e *VersionError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s --version failed: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("%s --version printed no version (%q)", e.Path, e.Out)
}

func (e *VersionError) Unwrap() error { return e.Err }

var versionRE = regexp.MustCompile(`\b(\d+\.\d+\.\d+)\b`)

func (f *Finder) version(ctx context.Context, path string, limit time.Duration) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", &VersionError{Path: path, Err: err}
	}
	key := versionKey{path: path, mtime: fi.ModTime(), size: fi.Size()}
	f.mu.Lock()
	a, ok := f.cache[key]
	f.mu.Unlock()
	if ok {
		return a.version, a.err
	}
	if limit <= 0 {
		limit = DefaultVersionTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	v, err := runVersion(cctx, path)
	if ctx.Err() != nil {
		// The caller gave up: that says nothing about this claude.
		return "", &VersionError{Path: path, Err: ctx.Err()}
	}
	f.mu.Lock()
	if f.cache == nil {
		f.cache = map[versionKey]versionAnswer{}
	}
	f.cache[key] = versionAnswer{version: v, err: err}
	f.mu.Unlock()
	return v, err
}

// runVersion runs `claude --version` until ctx ends.
func runVersion(ctx context.Context, path string) (string, error) {
	cmd := exec.CommandContext(ctx, path, "--version")
	// No update checks or telemetry for a version question.
	cmd.Env = append(os.Environ(), "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return "", &VersionError{Path: path, Err: ctx.Err()}
	}
	if err != nil {
		return "", &VersionError{Path: path, Err: err}
	}
	m := versionRE.FindStringSubmatch(string(out))
	if m == nil {
		return "", &VersionError{Path: path, Out: strings.TrimSpace(string(out))}
	}
	return m[1], nil
}

// Older reports whether version a is older than b (dotted numbers; a
// part that is not a number counts as 0).
func Older(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		x, y := part(pa, i), part(pb, i)
		if x != y {
			return x < y
		}
	}
	return false
}

func part(p []string, i int) int {
	if i >= len(p) {
		return 0
	}
	s := p[i]
	if j := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); j >= 0 {
		s = s[:j]
	}
	n, _ := strconv.Atoi(s)
	return n
}
