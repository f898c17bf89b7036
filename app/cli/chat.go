package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
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
	// chatFolder is the default working folder, in the person's home.
	chatFolder = "Lets"
	// chatLabel names the chat's Claude sessions on pads and phones
	// (claudehook.LabelEnv) instead of the working folder's name.
	chatLabelEnv = claudehook.LabelEnv
	chatLabel    = "Chat"
	// chatRestarts is how often a conversation's claude is started again
	// (--resume) after it ended unexpectedly within a minute.
	chatRestarts = 3
	// chatStopGrace is how long a stopping claude gets after its stdin
	// closes, and again after SIGTERM.
	chatStopGrace = 800 * time.Millisecond
)

// chatStoreDir is where the conversations are kept: ~/.lets/conversations.
func chatStoreDir(p config.Paths) string { return filepath.Join(p.Home, "conversations") }

// chatWorkDir is the default working folder of a new conversation: ~/Lets.
func chatWorkDir(env *Env) (string, error) {
	home := env.Getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("find your home folder for the chat's working folder: %w", err)
		}
	}
	return filepath.Join(home, chatFolder), nil
}

// chatStore opens the conversations of the data folder.
func chatStore(env *Env, st *setup) (*conversations.Store, error) {
	dir, err := chatWorkDir(env)
	if err != nil {
		return nil, err
	}
	return conversations.New(conversations.Options{Root: chatStoreDir(st.paths), DefaultDir: dir, Logger: st.log.With("part", "conversations")}), nil
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
func newChat(env *Env, st *setup, cfg config.Config, wireSocket func() string) (*chatdriver.Manager, error) {
	store, err := chatStore(env, st)
	if err != nil {
		return nil, err
	}
	exe, err := letsExecutable(env.Getenv)
	if err != nil {
		return nil, fmt.Errorf("find the lets program for Claude's tools and hooks: %w", err)
	}
	mcpFile, settingsFile, err := writeChatClaudeFiles(st.paths, exe, cfg.Claude.ApprovalTimeout())
	if err != nil {
		return nil, err
	}
	claudeEnv := chatClaudeEnv(env)
	find := chatFindClaude(env, st.paths)
	opts := chatdriver.Options{
		Paths: st.paths,
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
			Grace: chatStopGrace,
		},
		FindClaude:    find,
		InstallClaude: chatInstallClaude(env, st.paths),
		OpenURL:       env.openURL,
		Logger:        st.log.With("part", "chat"),
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

// writeChatClaudeFiles writes (0600, under state/) the --mcp-config that
// gives every conversation `lets mcp` and the --settings that gives it
// Lets' hooks, and returns their paths.
func writeChatClaudeFiles(p config.Paths, exe string, approvalTimeout time.Duration) (mcpFile, settingsFile string, err error) {
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

// chatClaudeEnv is the environment of a conversation's claude.
func chatClaudeEnv(env *Env) []string {
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
// env.openURL (a 0600 redirect page, nothing in argv) when this Lets has
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
			err := env.openURL(l.URL)
			if err == nil {
				return nil
			}
			log.Warn("the window could not open in the browser either; it waits on the home page", "window", l.Window, "err", err)
		}
		fmt.Fprintf(env.Stdout, "A window is waiting for you: %s — open it from Lets' home page\n", printable(l.Title))
		return errNoWindowHere
	}
	o.OnShowHomeLink = func(link string) (string, error) {
		if browser && env.openURL(link) == nil {
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

// runChat is `lets chat`: open a conversation in the running Lets, list
// the conversations, or delete one.
func runChat(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("chat")
	conv := fs.String("conversation", "", "continue the conversation `ID` (lets chat --list shows them); default: a new one")
	list := fs.Bool("list", false, "list the conversations, newest first: title, last used, folder, id")
	del := fs.String("delete", "", "delete the conversation `ID` (Claude Code's own session files stay)")
	asJSON := fs.Bool("json", false, "print JSON")
	folder := fs.String("folder", "", "the working folder `DIR` of a new conversation: where Claude reads and writes files (default ~/Lets)")
	if err := parseFlags(env, "chat", fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	n := 0
	for _, on := range []bool{*conv != "", *list, *del != ""} {
		if on {
			n++
		}
	}
	if n > 1 {
		return &UsageError{Msg: "choose one of --conversation, --list and --delete", flags: fs}
	}
	for _, id := range []string{*conv, *del} {
		if id != "" && !conversations.ValidID(id) {
			return &UsageError{Msg: (&conversations.BadIDError{ID: id}).Error(), flags: fs}
		}
	}
	home, err := config.ResolveHome(env.Getenv)
	if err != nil {
		return err
	}
	if *folder != "" && (*conv != "" || *list || *del != "") {
		return &UsageError{Msg: "--folder chooses where a new conversation works; a conversation you continue keeps its folder", flags: fs}
	}
	paths := config.Paths{Home: home}
	switch {
	case *list:
		return listChats(env, paths, *asJSON)
	case *del != "":
		return deleteChat(ctx, env, paths, *del, *asJSON)
	}
	c, err := newHostClient(paths)
	if errors.Is(err, config.ErrHostNotRunning) {
		return errors.New("Lets is not running. Start it first — double-click Lets, or run `lets` (or `lets serve` without a desktop) — then run `lets chat` again, or pick \"Chat with Claude\" in the Lets tray menu")
	}
	if err != nil {
		return err
	}
	req := hostapi.ChatRequest{Conversation: *conv}
	if *folder != "" {
		abs, err := filepath.Abs(*folder)
		if err != nil {
			return fmt.Errorf("the folder %s: %w", *folder, err)
		}
		req.Folder = abs
	}
	a, err := c.c.Chat(ctx, req, 90*time.Second)
	if err != nil {
		ae := refusal(err)
		switch {
		case refusedWith(err, hostapi.CodeUnknownConversation):
			return fmt.Errorf("there is no conversation %s; `lets chat --list` shows the ones you can continue", *conv)
		case ae != nil && ae.Status == http.StatusNotFound:
			return fmt.Errorf("the running Lets is older and has no Chat with Claude; quit it and start this version (`lets`)")
		}
		return cliHostError(err)
	}
	if *asJSON {
		out := map[string]string{"window": a.Window, "conversation": *conv, "shown": a.Shown}
		if a.Home != "" {
			out["home"] = a.Home
		}
		return printJSON(env.Stdout, out)
	}
	if *conv == "" {
		fmt.Fprintf(env.Stdout, "A new conversation with Claude is in window %s.\n", a.Window)
	} else {
		fmt.Fprintf(env.Stdout, "Conversation %s is in window %s.\n", *conv, a.Window)
	}
	fmt.Fprintln(env.Stdout, shownWords(a.Shown, a.Home))
	return nil
}

// listChats reads the conversations from the data folder (Lets need not
// run).
func listChats(env *Env, paths config.Paths, asJSON bool) error {
	store := conversations.New(conversations.Options{Root: chatStoreDir(paths)})
	list, err := store.List()
	if err != nil {
		return err
	}
	if asJSON {
		out := make([]hostapi.ChatInfo, 0, len(list))
		for _, i := range list {
			out = append(out, hostapi.ChatInfo{ID: i.ID, Title: i.Title, Updated: i.Updated.UTC(), Dir: i.Dir, Turns: i.Turns})
		}
		return printJSON(env.Stdout, map[string]any{"conversations": out})
	}
	if len(list) == 0 {
		fmt.Fprintln(env.Stdout, "No conversations with Claude yet. Start one with `lets chat`, or pick \"Chat with Claude\" in the Lets tray menu.")
		return nil
	}
	for _, i := range list {
		msgs := fmt.Sprintf("%d messages", i.Turns)
		if i.Turns == 1 {
			msgs = "1 message"
		}
		fmt.Fprintf(env.Stdout, "%s\n  last used %s · folder %s · %s\n  id %s\n", textsafe.OneLine(i.Title, 70), i.Updated.Local().Format("2 Jan 2006 15:04"), i.Dir, msgs, i.ID)
	}
	fmt.Fprintln(env.Stdout, "Continue one with `lets chat --conversation <id>`.")
	return nil
}

// deleteChat deletes through the running Lets (which closes the window
// and stops Claude first), or in the data folder when Lets is not running.
func deleteChat(ctx context.Context, env *Env, paths config.Paths, id string, asJSON bool) error {
	c, err := newHostClient(paths)
	switch {
	case errors.Is(err, config.ErrHostNotRunning):
		err = conversations.New(conversations.Options{Root: chatStoreDir(paths)}).Delete(id)
	case err != nil:
		return err
	default:
		err = cliHostError(c.c.DeleteChat(ctx, id, 30*time.Second))
		if refusedWith(err, hostapi.CodeUnknownConversation) {
			err = conversations.ErrNotFound
		}
	}
	if errors.Is(err, conversations.ErrNotFound) {
		return fmt.Errorf("there is no conversation %s (maybe it was deleted already); `lets chat --list` shows them", id)
	}
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(env.Stdout, map[string]string{"deleted": id})
	}
	fmt.Fprintf(env.Stdout, "Deleted conversation %s.\n", id)
	return nil
}

// shownWords says where a window Lets opened is, for the person at the
// terminal (the host's "shown" and "home").
func shownWords(shown, home string) string {
	if shown == host.ShownWaiting {
		if home == "" {
			home = "Lets' home page"
		}
		return "It is waiting for you on Lets' home page: " + home
	}
	return "Lets opened it on your screen (in its own window or your browser)."
}
