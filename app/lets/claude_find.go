package lets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/lets-app/lets/backend/agent"
	"github.com/lets-app/lets/backend/chatdriver"
	"github.com/lets-app/lets/backend/claudefind"
	"github.com/lets-app/lets/backend/claudeinstall"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/host"
)

// Claude Code is found in one way everywhere (backend/claudefind): the
// chat, the home page, `lets setup claude`, `lets doctor`. Installing it
// (backend/claudeinstall) puts it in the data folder, where they all look
// first.

// claudeFindOptions are the finder's options for this Lets.
func claudeFindOptions(env *Env, p config.Paths) claudefind.Options {
	return claudefind.Options{DataDir: p.Home, Getenv: env.Getenv}
}

// ChatFindClaude is the chat's FindClaude: the path only (no version run
// at every start), and agent.ErrNotInstalled when there is none, which
// the chat turns into its install screen.
func ChatFindClaude(env *Env, p config.Paths) func() (string, error) {
	o := claudeFindOptions(env, p)
	o.SkipVersion = true
	return func() (string, error) {
		f, err := claudefind.Find(context.Background(), o)
		if err != nil {
			return "", fmt.Errorf("%w: %w", agent.ErrNotInstalled, err)
		}
		return f.Path, nil
	}
}

// claudeInstallEnv is npm's environment: this process's, with the PATH and
// HOME Lets was given.
func claudeInstallEnv(env *Env) []string {
	out := make([]string, 0, len(os.Environ())+2)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "PATH" && k != "HOME" {
			out = append(out, kv)
		}
	}
	for _, k := range []string{"PATH", "HOME"} {
		if v := env.Getenv(k); v != "" {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// installClaude installs Claude Code into the data folder, reporting
// progress (the chat's and the home page's Install Claude Code button).
func installClaude(ctx context.Context, env *Env, p config.Paths, progress func(claudeinstall.Progress)) (claudefind.Found, error) {
	return claudeinstall.Install(ctx, claudeinstall.Options{DataDir: p.Home, Env: claudeInstallEnv(env)}, progress)
}

// chatInstallClaude is the chat's InstallClaude.
func chatInstallClaude(env *Env, p config.Paths) func(context.Context, func(chatdriver.InstallProgress)) error {
	return func(ctx context.Context, progress func(chatdriver.InstallProgress)) error {
		_, err := installClaude(ctx, env, p, func(x claudeinstall.Progress) {
			progress(chatdriver.InstallProgress{Percent: x.Percent, Text: x.Text})
		})
		return err
	}
}

// homeClaudeVersionTimeout bounds the home page's `claude --version`.
const homeClaudeVersionTimeout = 3 * time.Second

// homeClaudeOptions gives the home page the finder and the installer.
func homeClaudeOptions(o host.HomeOptions, env *Env, p config.Paths) host.HomeOptions {
	finder := &claudefind.Finder{}
	o.FindClaude = func(ctx context.Context) (claudefind.Found, error) {
		// The overview waits for this: a claude that hangs on --version
		// costs the page three seconds once, not ten (the answer is cached).
		fo := claudeFindOptions(env, p)
		fo.VersionTimeout = homeClaudeVersionTimeout
		return finder.Find(ctx, fo)
	}
	o.InstallClaude = func(ctx context.Context, progress func(claudeinstall.Progress)) (claudefind.Found, error) {
		return installClaude(ctx, env, p, progress)
	}
	return o
}

// ClaudeVersionNote is the words for an old or unreadable claude, "" when
// the version is fine.
func ClaudeVersionNote(f claudefind.Found) string {
	switch {
	case f.Old != nil:
		return fmt.Sprintf("%s; if something does not work, update it (npm update -g %s, or the Install Claude Code button on the home page)", f.Old, claudeinstall.Package)
	case f.VersionErr != nil:
		var ve *claudefind.VersionError
		if errors.As(f.VersionErr, &ve) && errors.Is(ve, context.DeadlineExceeded) {
			return "its version could not be read in time (it did not answer `claude --version`)"
		}
		return "its version could not be read: " + f.VersionErr.Error()
	}
	return ""
}
