package registry

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/manifest"
)

var (
	schemeRE = regexp.MustCompile(`^([a-zA-Z][a-zA-Z0-9+.-]*)://`)
	scpRE    = regexp.MustCompile(`^[A-Za-z0-9._~-]+@[A-Za-z0-9.-]+:[^/]`)
	refRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._/+-]{1,200}$`) })
	shaRE    = regexp.MustCompile(`^[0-9a-f]{40}$`)
	shortRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{4,39}$`) })
	sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// SplitSource splits `<url|path>[#ref]` into the source and the ref (the
// text after the last '#').
func SplitSource(s string) (source, ref string) {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// normalizeSource checks a source and makes a local path absolute. Only
// transports that cannot run commands are allowed.
func normalizeSource(src string) (string, error) {
	switch {
	case src == "":
		return "", fmt.Errorf("%w: say where to install from: a git URL or a folder path", ErrInstallFailed)
	case strings.HasPrefix(src, "-"):
		return "", fmt.Errorf("%w: %q looks like a flag, not a git URL or path", ErrInstallFailed, src)
	case strings.ContainsAny(src, "\x00\n\r"):
		return "", fmt.Errorf("%w: the source contains control characters", ErrInstallFailed)
	}
	if m := schemeRE.FindStringSubmatch(src); m != nil {
		switch strings.ToLower(m[1]) {
		case "https", "http", "ssh", "git", "file":
			return src, nil
		}
		return "", fmt.Errorf("%w: Lets installs from https://, ssh://, git://, file:// or a folder path, not %s://", ErrInstallFailed, m[1])
	}
	if strings.Contains(src, "::") {
		// git's transport helpers (ext::, fd::) can run programs.
		return "", fmt.Errorf("%w: %q uses a git transport helper, which Lets does not allow", ErrInstallFailed, src)
	}
	if scpRE.MatchString(src) {
		if _, err := os.Stat(src); err != nil {
			return src, nil // user@host:path (ssh)
		}
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrInstallFailed, src, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("%w: there is no folder %s (give a git URL, a git repository or a unique's folder)", ErrInstallFailed, abs)
	}
	return abs, nil
}

// progressFunc never nil.
func progressOf(p func(string)) func(string) {
	if p == nil {
		return func(string) {}
	}
	return p
}

// Install fetches a unique from git (`<url|path>[#ref]`, LIP 1 §11): a
// shallow clone with the system git, without submodules, prompts or
// hooks, whose size is checked from the git objects before checkout; or
// a copy of a plain folder (not a git repository) under the same limits.
// Then it checks the unique (schema, rules, files) and moves the folder
// into ~/.lets/uniques/<name>/ in one rename, with .lets-install.json
// recording {source, ref, commit, installedAt} (for a folder, "commit" is
// a sha256 of the copied files).
// progress (may be nil) gets short messages for a human. A unique of the
// same name installed from the same source is replaced (an update); one
// from another source is refused. On any failure nothing is left behind.
// Errors are *InvalidError (wrapping ErrInvalid) when the unique does not
// check out, and wrap ErrInstallFailed otherwise.
func (r *Registry) Install(ctx context.Context, spec string, progress func(string)) (*manifest.Unique, error) {
	src, ref := SplitSource(spec)
	return r.install(ctx, src, ref, "", progressOf(progress))
}

// Update reinstalls a user unique from its recorded source and ref.
func (r *Registry) Update(ctx context.Context, name string, progress func(string)) (*manifest.Unique, error) {
	u, err := r.Get(name)
	if err != nil {
		return nil, err
	}
	if u.Builtin {
		return nil, fmt.Errorf("%w: %s ships with Lets and is updated with Lets itself", ErrBuiltin, name)
	}
	if u.Install == nil {
		return nil, fmt.Errorf("%w: %s was not installed with `lets install`, so there is nothing to update it from", ErrInstallFailed, name)
	}
	return r.install(ctx, u.Install.Source, u.Install.Ref, name, progressOf(progress))
}

func (r *Registry) install(ctx context.Context, src, ref, expectName string, progress func(string)) (*manifest.Unique, error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.InstallTimeout)
	defer cancel()
	source, err := normalizeSource(src)
	if err != nil {
		return nil, err
	}
	if ref != "" && (!refRE().MatchString(ref) || strings.HasPrefix(ref, "-") || strings.Contains(ref, "..")) {
		return nil, fmt.Errorf("%w: %q is not a branch, tag or commit name", ErrInstallFailed, ref)
	}
	if err := os.MkdirAll(r.opts.UserDir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: create %s: %v", ErrInstallFailed, r.opts.UserDir, err)
	}
	tmp, err := os.MkdirTemp(r.opts.UserDir, tempPrefix)
	if err != nil {
		return nil, fmt.Errorf("%w: make a work folder in %s: %v", ErrInstallFailed, r.opts.UserDir, err)
	}
	defer os.RemoveAll(tmp)
	work := filepath.Join(tmp, "unique")

	var commit string
	folder := false
	if fi, err := os.Stat(source); err == nil && fi.IsDir() && filepath.IsAbs(source) && !isGitRepository(source) {
		folder = true
		// A plain folder (the usage says "<url|path>"): copied with the
		// same limits, then checked and moved into place like a clone.
		if ref != "" {
			return nil, fmt.Errorf("%w: %s is a plain folder, not a git repository, so it has no #%s; leave out the #… part or make the folder a git repository", ErrInstallFailed, source, ref)
		}
		progress("Copying the folder " + source + " …")
		if commit, err = copyFolder(ctx, source, work, r.opts.MaxInstallBytes); err != nil {
			return nil, err
		}
	} else {
		label := source
		if ref != "" {
			label += " (" + ref + ")"
		}
		progress("Fetching " + label + " …")
		if commit, err = r.fetch(ctx, source, ref, work, progress); err != nil {
			return nil, err
		}
		if err := os.RemoveAll(filepath.Join(work, ".git")); err != nil {
			return nil, fmt.Errorf("%w: tidy the clone: %v", ErrInstallFailed, err)
		}
	}
	if err := checkSize(work, r.opts.MaxInstallBytes); err != nil {
		return nil, err
	}

	progress("Checking unique.json and files …")
	m, warnings, err := r.checker.LoadDir(work)
	var ie *manifest.InvalidError
	if errors.As(err, &ie) {
		ie.Where = src
		return nil, ie
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInstallFailed, err)
	}
	for _, w := range warnings {
		progress("Note: " + w)
	}
	if _, ok := r.builtin[m.Name]; ok {
		return nil, &manifest.InvalidError{Where: src, Problems: []manifest.Problem{{Rule: 1, Field: "name", Message: fmt.Sprintf("%q is the name of a built-in unique; names are unique across registries, so this one needs another name", m.Name)}}}
	}
	if expectName != "" && m.Name != expectName {
		return nil, fmt.Errorf("%w: %s now names itself %q; uninstall %s and install it again", ErrInstallFailed, src, m.Name, expectName)
	}

	rec := manifest.InstallRecord{Source: source, Ref: ref, Commit: commit, Folder: folder, InstalledAt: r.opts.Now().UTC().Truncate(time.Second)}
	data, _ := json.MarshalIndent(rec, "", "  ")
	if err := atomicfile.Write(filepath.Join(work, manifest.InstallRecordFile), append(data, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInstallFailed, err)
	}

	r.installMu.Lock()
	defer r.installMu.Unlock()
	target := filepath.Join(r.opts.UserDir, m.Name)
	old, err := readInstallRecord(target)
	_, statErr := os.Lstat(target)
	switch {
	case statErr != nil && errors.Is(statErr, fs.ErrNotExist):
		if err := os.Rename(work, target); err != nil {
			return nil, fmt.Errorf("%w: move %s into place: %v", ErrInstallFailed, m.Name, err)
		}
	case err == nil && old.Source == source:
		if err := exchangeDirs(work, target); err != nil {
			return nil, fmt.Errorf("%w: replace %s: %v", ErrInstallFailed, m.Name, err)
		}
		// work now holds the previous version; the deferred RemoveAll of
		// tmp deletes it.
	case err == nil:
		return nil, fmt.Errorf("%w: a unique called %s is already installed from %s; run `lets uninstall %s` first to replace it with this one", ErrInstallFailed, m.Name, old.Source, m.Name)
	default:
		return nil, fmt.Errorf("%w: %s already exists and was not installed by `lets install`; move it away first", ErrInstallFailed, target)
	}

	u, err := r.Get(m.Name)
	if err != nil {
		return nil, fmt.Errorf("%w: installed %s but cannot read it back: %v", ErrInstallFailed, m.Name, err)
	}
	if folder {
		progress(fmt.Sprintf("Installed %s %s (a copy of the folder; run `lets install --update %s` after you change it).", m.Name, m.Version, m.Name))
	} else {
		progress(fmt.Sprintf("Installed %s %s (commit %s).", m.Name, m.Version, short(commit)))
	}
	return u, nil
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// checkSize refuses a clone larger than max bytes or with more than
// 20 000 entries.
func checkSize(dir string, max int64) error {
	var total int64
	count := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		count++
		if count > maxInstallEntries {
			return fmt.Errorf("%w: the unique has more than 20 000 files", ErrInstallFailed)
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			total += fi.Size()
			if total > max {
				return fmt.Errorf("%w: the unique is larger than %d MiB", ErrInstallFailed, max>>20)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrInstallFailed) {
		return fmt.Errorf("%w: look at the clone: %v", ErrInstallFailed, err)
	}
	return err
}

// Remove deletes a user unique's folder. Built-ins give an error wrapping
// ErrBuiltin. Saved sessions of the unique are not touched.
func (r *Registry) Remove(name string) error {
	u, err := r.Get(name)
	if err != nil {
		// A folder that does not check out can still be removed.
		dir := filepath.Join(r.opts.UserDir, name)
		if _, statErr := os.Lstat(dir); !manifest.ValidName(name) || statErr != nil {
			return err
		}
	} else if u.Builtin {
		return fmt.Errorf("%w: %s ships with Lets and cannot be uninstalled", ErrBuiltin, name)
	}
	r.installMu.Lock()
	defer r.installMu.Unlock()
	dir := filepath.Join(r.opts.UserDir, name)
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("%w %q: %v", ErrUnknownUnique, name, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		// A link to a folder being developed: remove the link only.
		if err := os.Remove(dir); err != nil {
			return fmt.Errorf("remove %s: %w", dir, err)
		}
	} else {
		// Rename first, so a half-deleted folder never looks like a unique.
		gone, err := os.MkdirTemp(r.opts.UserDir, removedPrefix)
		if err != nil {
			return fmt.Errorf("remove %s: %w", dir, err)
		}
		if err := os.Rename(dir, filepath.Join(gone, name)); err != nil {
			_ = os.Remove(gone)
			return fmt.Errorf("remove %s: %w", dir, err)
		}
		if err := os.RemoveAll(gone); err != nil {
			r.log.Warn("could not delete the removed unique's files; they are hidden and will be cleaned later", "path", gone, "err", err)
		}
	}
	r.mu.Lock()
	delete(r.user, name)
	delete(r.skipped, name)
	r.mu.Unlock()
	return nil
}

// gitConfig disables everything in a clone that could run code or ask a
// question: hooks, fsmonitor, transport helpers, submodules.
var gitConfig = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "protocol.ext.allow=never",
	"-c", "submodule.recurse=false",
	"-c", "advice.detachedHead=false",
	"-c", "init.defaultBranch=main",
}

// gitEnv is the environment of git: the caller's, without GIT_* variables
// that could point git elsewhere, and with prompts off.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || k == "SSH_ASKPASS" || k == "LC_ALL" || k == "LANGUAGE" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_ASKPASS=true",
		"SSH_ASKPASS=true",
		"GIT_SSH_COMMAND=ssh -o BatchMode=yes",
		"GCM_INTERACTIVE=never",
		"LC_ALL=C",
	)
}

// runGit runs one git command in dir and returns its trimmed stdout.
func (r *Registry) runGit(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, r.opts.Git, append(slicesClone(gitConfig), args...)...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	cmd.Stdin = nil
	var stdout bytes.Buffer
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stdout = &limitedWriter{w: &stdout, n: 1 << 20}
	cmd.Stderr = stderr
	killGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", fmt.Errorf("%w: git took too long and was stopped (%v)", ErrInstallFailed, ctx.Err())
	}
	var pe *fs.PathError
	if errors.Is(err, exec.ErrNotFound) || errors.As(err, &pe) && pe.Op == "fork/exec" {
		return "", fmt.Errorf("%w: Lets needs git to install uniques; install git (e.g. `sudo apt install git`) and try again", ErrInstallFailed)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", &gitError{args: args, msg: msg}
	}
	return strings.TrimSpace(stdout.String()), nil
}

type gitError struct {
	args []string
	msg  string
}

func (e *gitError) Error() string { return "git " + e.args[0] + ": " + e.msg }

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// fetch puts the files of source at ref into work and returns the commit.
// Nothing is checked out until the commit's tree has been measured from
// the git objects (checkTree): a tiny repository can hold a huge tree of
// zeros, and the limits must hold before git writes a byte of it.
func (r *Registry) fetch(ctx context.Context, source, ref, work string, progress func(string)) (string, error) {
	parent := filepath.Dir(work)
	rev := "HEAD"
	var err error
	switch {
	case ref == "":
		_, err = r.runGit(ctx, parent, "clone", "--quiet", "--no-checkout", "--depth", "1", "--no-recurse-submodules", "--no-tags", "--", source, work)
	case shaRE.MatchString(ref):
		rev, err = r.fetchCommit(ctx, source, ref, work)
	default:
		_, err = r.runGit(ctx, parent, "clone", "--quiet", "--no-checkout", "--depth", "1", "--no-recurse-submodules", "--branch", ref, "--", source, work)
		if err != nil && shortRE().MatchString(ref) && ctx.Err() == nil {
			// Not a branch or tag: maybe an abbreviated commit, which
			// only a full clone can find.
			_ = os.RemoveAll(work)
			err = r.fullClone(ctx, source, work)
			rev = ref
		}
	}
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) {
			hint := "check the URL, that the repository is public or your git credentials work, and the ref"
			return "", fmt.Errorf("%w: could not fetch %s: %s (%s)", ErrInstallFailed, source, ge.msg, hint)
		}
		return "", err
	}
	commit, err := r.runGit(ctx, work, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil || commit == "" {
		return "", fmt.Errorf("%w: %s has no commit %q; check the branch, tag or commit name", ErrInstallFailed, source, ref)
	}
	if !shaRE.MatchString(commit) && !sha256RE.MatchString(commit) {
		return "", fmt.Errorf("%w: git gave an odd commit id %q", ErrInstallFailed, commit)
	}
	progress("Fetched commit " + short(commit) + "; measuring its files before writing them …")
	if err := r.checkTree(ctx, work, commit); err != nil {
		return "", err
	}
	if _, err := r.runGit(ctx, work, "checkout", "--quiet", "--detach", commit); err != nil {
		return "", fmt.Errorf("%w: check out commit %s: %v", ErrInstallFailed, short(commit), err)
	}
	return commit, nil
}

// fetchCommit fetches one full commit id shallowly, falling back to a
// full clone when the server does not serve single commits. It returns
// the revision to look at.
func (r *Registry) fetchCommit(ctx context.Context, source, sha, work string) (string, error) {
	_, err := r.runGit(ctx, filepath.Dir(work), "init", "--quiet", "--", work)
	if err == nil {
		_, err = r.runGit(ctx, work, "fetch", "--quiet", "--depth", "1", "--no-tags", "--no-recurse-submodules", "--", source, sha)
	}
	if err == nil {
		return "FETCH_HEAD", nil
	}
	if ctx.Err() != nil {
		return "", err
	}
	_ = os.RemoveAll(work)
	return sha, r.fullClone(ctx, source, work)
}

func (r *Registry) fullClone(ctx context.Context, source, work string) error {
	_, err := r.runGit(ctx, filepath.Dir(work), "clone", "--quiet", "--no-checkout", "--no-recurse-submodules", "--", source, work)
	return err
}

// maxInstallEntries caps the files and folders of one unique.
const maxInstallEntries = 20000

// checkTree measures commit's tree from the git objects (`git ls-tree -r
// -t -l`), without checking anything out, and refuses a tree whose files
// add up to more than MaxInstallBytes or that has more than
// maxInstallEntries entries. It stops reading as soon as a limit is
// passed.
func (r *Registry) checkTree(ctx context.Context, work, commit string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.opts.Git, append(slicesClone(gitConfig), "ls-tree", "-r", "-t", "-l", "-z", "--full-tree", commit)...)
	cmd.Dir = work
	cmd.Env = gitEnv()
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	killGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("%w: measure the files: %v", ErrInstallFailed, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: measure the files: %v", ErrInstallFailed, err)
	}
	limitErr := measureTree(bufio.NewReaderSize(out, 64<<10), r.opts.MaxInstallBytes)
	if limitErr != nil {
		cancel() // stop git; the tree is refused anyway
	}
	waitErr := cmd.Wait()
	switch {
	case limitErr != nil && errors.Is(limitErr, ErrInstallFailed):
		return limitErr
	case limitErr != nil:
		return fmt.Errorf("%w: read the list of files: %v", ErrInstallFailed, limitErr)
	case ctx.Err() != nil:
		return fmt.Errorf("%w: git took too long and was stopped (%v)", ErrInstallFailed, ctx.Err())
	case waitErr != nil:
		return fmt.Errorf("%w: list the files of commit %s: %s", ErrInstallFailed, short(commit), strings.TrimSpace(stderr.String()))
	}
	return nil
}

// measureTree reads `git ls-tree -r -t -l -z` records ("<mode> <type>
// <object> <size>\t<path>\0") and returns an error wrapping
// ErrInstallFailed at the first record past a limit.
func measureTree(rd *bufio.Reader, max int64) error {
	var total int64
	entries := 0
	for {
		rec, err := rd.ReadString(0)
		if err == io.EOF && rec == "" {
			return nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		rec = strings.TrimSuffix(rec, "\x00")
		meta, name, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 4 {
			return fmt.Errorf("unexpected ls-tree line %q", rec)
		}
		entries++
		if entries > maxInstallEntries {
			return fmt.Errorf("%w: the unique has more than %d files and folders (counted in the git objects; nothing was written)", ErrInstallFailed, maxInstallEntries)
		}
		if fields[1] != "blob" {
			continue // trees count as entries; submodules are never fetched
		}
		size, perr := strconv.ParseInt(fields[3], 10, 64)
		if perr != nil || size < 0 {
			return fmt.Errorf("unexpected size in ls-tree line %q", rec)
		}
		total += size
		if total > max {
			return fmt.Errorf("%w: the unique is larger than %s (reached at %s, counted in the git objects before checkout, so nothing was written)", ErrInstallFailed, mib(max), name)
		}
	}
}

func mib(n int64) string {
	if n >= 1<<20 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	if n >= 1<<10 {
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// tailBuffer keeps the last max bytes written (git's last words).
type tailBuffer struct {
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// limitedWriter stops storing after n bytes but never fails the writer.
type limitedWriter struct {
	w interface{ Write([]byte) (int, error) }
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		q := p
		if len(q) > l.n {
			q = q[:l.n]
		}
		_, _ = l.w.Write(q)
		l.n -= len(q)
	}
	return len(p), nil
}
