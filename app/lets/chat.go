package lets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/chatdriver"
	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/claudesetup"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/conversations"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/service"
	"github.com/lets-app/lets/backend/textsafe"
)

// "Chat with Claude": the `lets`/`lets serve` process runs the
// conversations (backend/chatdriver) next to the host; the tray, the home
// page and `lets chat` open them.

// Files and folders of the chat, and its Claude Code environment.
const (
	// chatMCPFile and chatSettingsFile (in the data folder's state/) are
	// the --mcp-config and --settings every conversation's claude gets:
	// `lets mcp` and Lets' hooks.
	chatMCPFile      = "chat-mcp.json"
	chatSettingsFile = "chat-settings.json"
	// ChatFolder is the default working folder, in the person's home.
	ChatFolder = "Lets"
	// chatLabel names the chat's Claude sessions on pads and phones
	// (claudehook.LabelEnv) instead of the working folder's name.
	chatLabelEnv = claudehook.LabelEnv
	chatLabel    = "Chat"
	// chatRestarts is how often a conversation's claude is started again
	// (--resume) after it ended unexpectedly within a minute.
	chatRestarts = 3
	// ChatStopGrace is how long a stopping claude gets after its stdin
	// closes, and again after SIGTERM.
	ChatStopGrace = 800 * time.Millisecond
)

// ChatStoreDir is where the conversations are kept: ~/.lets/conversations.
func ChatStoreDir(p config.Paths) string { return filepath.Join(p.Home, "conversations") }

// chatWorkDir is the default working folder of a new conversation: ~/Lets.
func chatWorkDir(env *Env) (string, error) {
	home := env.Getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("find your home folder for the chat's working folder: %w", err)
		}
	}
	return filepath.Join(home, ChatFolder), nil
}

// chatStore opens the conversations of the data folder.
func chatStore(env *Env, st *Setup) (*conversations.Store, error) {
	dir, err := chatWorkDir(env)
	if err != nil {
		return nil, err
	}
	return conversations.New(conversations.Options{Root: ChatStoreDir(st.Paths), DefaultDir: dir, Logger: st.Log.With("part", "conversations")}), nil
}

// chatAllowedTools is the permission rule that lets the chat's Claude use
// every tool of Lets' MCP server (mcp__lets__open, …) without asking.
const chatAllowedTools = "mcp__lets"

// newChat builds the chat manager of a `lets`/`lets serve` process: the
// conversations store, the real Claude Code starter (or Env.ChatStart),
// Lets' MCP server and hooks for every conversation, sign-in through
// Claude Code, the permission mode from config.json. Run it as a service.
// wireSocket names the pad daemon's socket for permission questions on the
// pads and phones ("" without a daemon).
func newChat(env *Env, st *Setup, cfg config.Config, wireSocket func() string) (*chatdriver.Manager, error) {
	store, err := chatStore(env, st)
	if err != nil {
		return nil, err
	}
	exe, err := Executable(env.Getenv)
	if err != nil {
		return nil, fmt.Errorf("find the lets program for Claude's tools and hooks: %w", err)
	}
	mcpFile, settingsFile, err := WriteChatClaudeFiles(st.Paths, exe, cfg.Claude.ApprovalTimeout())
	if err != nil {
		return nil, err
	}
	claudeEnv := ChatClaudeEnv(env)
	find := ChatFindClaude(env, st.Paths)
	opts := chatdriver.Options{
		Paths: st.Paths,
		Store: store,
		Start: chatdriver.StartProcess,
		Agent: chatdriver.AgentOptions{
			MCPConfig:             mcpFile,
			Settings:              settingsFile,
			Env:                   claudeEnv,
			PermissionMode:        cfg.Claude.PermissionMode,
			PermissionPromptStdio: true,
			// Lets' own tools (open a window, listen, say something in
			// it) are what the chat is for: asking the person before each
			// one would only puzzle them. Everything else still asks.
			ExtraArgs:    []string{"--allowedTools", chatAllowedTools},
			RestartLimit: chatRestarts,
			// Lets stops all its parts within two seconds.
			Grace: ChatStopGrace,
		},
		FindClaude:    find,
		InstallClaude: chatInstallClaude(env, st.Paths),
		OpenURL:       env.OpenInBrowser,
		Logger:        st.Log.With("part", "chat"),
		WireSocket:    wireSocket,
	}
	opts.Auth, opts.Login = chatdriver.ClaudeAuth(find, claudeEnv)
	opts.Trust = chatTrust(env, st)
	if env.ChatStart != nil {
		// A test's agent: no Claude Code to find or ask.
		opts.Start, opts.FindClaude, opts.Auth, opts.Login = env.ChatStart, nil, nil, nil
		opts.Agent.Claude = "fake-claude"
	}
	return chatdriver.New(opts)
}

// WriteChatClaudeFiles writes (0600, under state/) the --mcp-config that
// gives every conversation `lets mcp` and the --settings that gives it
// Lets' hooks, and returns their paths.
func WriteChatClaudeFiles(p config.Paths, exe string, approvalTimeout time.Duration) (mcpFile, settingsFile string, err error) {
	mcp, err := json.MarshalIndent(map[string]any{
		"mcpServers": map[string]any{"lets": map[string]any{"command": exe, "args": []string{"mcp"}}},
	}, "", "  ")
	if err != nil {
		return "", "", err
	}
	// Every hook but PermissionRequest: the chat asks its own permission
	// questions (on stdio), in the window and on the pads at once; a hook
	// asking too would put up a second card for the same question.
	hooks := claudesetup.Hooks(exe, approvalTimeout)
	delete(hooks, claudesetup.Event(claudehook.EventPermissionRequest))
	settings, _, err := claudesetup.Merge([]byte("{}"), hooks)
	if err != nil {
		return "", "", fmt.Errorf("make the chat's Claude Code settings: %w", err)
	}
	dir := p.StateDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("make %s for the chat's Claude Code files: %w", dir, err)
	}
	mcpFile, settingsFile = filepath.Join(dir, chatMCPFile), filepath.Join(dir, chatSettingsFile)
	if err := atomicfile.Write(mcpFile, append(mcp, '\n'), 0o600); err != nil {
		return "", "", fmt.Errorf("write the chat's MCP config: %w", err)
	}
	if err := atomicfile.Write(settingsFile, settings, 0o600); err != nil {
		return "", "", fmt.Errorf("write the chat's Claude Code settings: %w", err)
	}
	return mcpFile, settingsFile, nil
}

// chatClaudeKeys are the variables a conversation's claude takes from
// Env.Getenv over this process's environment, so `lets mcp` and the hooks
// it starts reach this Lets (LETS_HOME) and claude finds its own set-up.
var chatClaudeKeys = []string{
	config.HomeEnv, "HOME", "PATH", "LANG", "CLAUDE_CONFIG_DIR",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
	"ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
	"DISABLE_AUTOUPDATER", "DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING", "DISABLE_BUG_COMMAND",
	"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "CLAUDE_CODE_ENABLE_TELEMETRY",
}

// ChatClaudeEnv is the environment of a conversation's claude.
func ChatClaudeEnv(env *Env) []string {
	out := make([]string, 0, len(os.Environ())+len(chatClaudeKeys)+1)
	set := map[string]bool{}
	for _, k := range chatClaudeKeys {
		if v := env.Getenv(k); v != "" {
			out = append(out, k+"="+v)
			set[k] = true
		}
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !set[k] && k != chatLabelEnv && k != claudehook.ChatEnv {
			out = append(out, kv)
		}
	}
	// ChatEnv keeps the PermissionRequest hook of the person's own set-up
	// (lets setup claude) out of the chat: the chat asks its questions
	// itself, so one question is one card.
	return append(out, chatLabelEnv+"="+chatLabel, claudehook.ChatEnv+"=1")
}

// chatService runs the manager under the supervisor.
func chatService(m *chatdriver.Manager) service.Service {
	return service.Func{ServiceName: "chat", Fn: m.Run}
}

// chatHost gives the host the manager's conversations (host.Chats).
type chatHost struct{ m *chatdriver.Manager }

func (c chatHost) List() []hostapi.ChatInfo {
	list := c.m.List()
	out := make([]hostapi.ChatInfo, 0, len(list))
	for _, i := range list {
		out = append(out, hostapi.ChatInfo{ID: i.ID, Title: i.Title, Dir: i.Dir, Updated: i.Updated, Turns: i.Turns, Window: c.m.Window(i.ID)})
	}
	return out
}

func (c chatHost) Open(ctx context.Context, id string) (hostapi.ChatOpened, error) {
	w, url, err := c.m.OpenChat(ctx, id)
	return hostapi.ChatOpened{Window: w, URL: url}, err
}
func (c chatHost) OpenNew(ctx context.Context, folder string) (hostapi.ChatOpened, error) {
	w, url, err := c.m.OpenNew(ctx, folder)
	return hostapi.ChatOpened{Window: w, URL: url}, err
}
func (c chatHost) Delete(id string) error { return c.m.Delete(id) }

// hostChats is the host's Chats for m; a true nil interface without one.
func hostChats(m *chatdriver.Manager) host.Chats {
	if m == nil {
		return nil
	}
	return chatHost{m: m}
}

// windowsInBrowser makes the host show every window itself (issue #23):
// a window no native window took opens in the desktop browser through
// env.OpenInBrowser (a 0600 redirect page, nothing in argv) when this Lets has
// a display; otherwise serve's own output (the person's terminal) says a
// window waits on the home page, and the host keeps it waiting there.
// The one-time URL never goes back to whoever asked for the window.
func windowsInBrowser(browser bool, env *Env, log *slog.Logger, o host.Options) host.Options {
	native := o.OnOpen
	o.OnOpen = func(l host.WindowLaunch) error {
		if native != nil {
			err := native(l)
			if err == nil {
				return nil
			}
			log.Warn("the window could not open by itself", "window", l.Window, "err", err)
		}
		if browser {
			err := env.OpenInBrowser(l.URL)
			if err == nil {
				return nil
			}
			log.Warn("the window could not open in the browser either; it waits on the home page", "window", l.Window, "err", err)
		}
		fmt.Fprintf(env.Stdout, "A window is waiting for you: %s — open it from Lets' home page\n", textsafe.Line(l.Title, 0))
		return errNoWindowHere
	}
	o.OnShowHomeLink = func(link string) (string, error) {
		if browser && env.OpenInBrowser(link) == nil {
			return "browser", nil
		}
		fmt.Fprintf(env.Stdout, "Lets' home page: open this link in a browser on this computer (it works once, within two minutes):\n  %s\n", link)
		return "terminal", nil
	}
	return o
}

// hasDisplay says whether this Lets can show a browser: a desktop session
// (X11 or Wayland).
func hasDisplay(getenv func(string) string) bool {
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}

// errNoWindowHere keeps a window waiting for the person on the home page.
var errNoWindowHere = errors.New("no window could be shown here: it waits for the person on the home page")
