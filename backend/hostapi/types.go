package hostapi

import (
	"encoding/json"
	"time"

	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/ring"
	"github.com/lets-app/lets/backend/sessions"
)

// Status is what GET /lip/status answers.
type Status struct {
	Version   string    `json:"version"`
	PID       int       `json:"pid"`
	Port      int       `json:"port"`
	URL       string    `json:"url"`
	DataDir   string    `json:"data_dir"`
	StartedAt time.Time `json:"started_at"`
	UptimeSec float64   `json:"uptime_s"`
	// Services lists the running parts, e.g. "host", "wire".
	Services []string `json:"services"`
	// WireSocket is the agent daemon's socket when it runs.
	WireSocket string `json:"wire_socket,omitempty"`

	// LIP is the protocol major; Epoch the ring's id of this host run.
	LIP     int         `json:"lip"`
	Epoch   string      `json:"epoch,omitempty"`
	Ring    *RingStatus `json:"ring,omitempty"`
	Windows []Window    `json:"windows"`
	Uniques int         `json:"uniques"`
}

// RingStatus is the event ring in Status.
type RingStatus struct {
	Size     int    `json:"size"`
	Capacity int    `json:"capacity"`
	Oldest   uint64 `json:"oldest"`
	Newest   uint64 `json:"newest"`
	Waiting  int    `json:"waiting"` // listen requests blocked right now
}

// Window is an open window as GET /lip/windows and GET /lip/status list it.
type Window struct {
	Window    string `json:"window"`
	Unique    string `json:"unique"`
	Title     string `json:"title"`
	Connected bool   `json:"connected"`
	Queued    int    `json:"queued"`
	Session   string `json:"session,omitempty"`
	Opened    int64  `json:"opened"`
	// ClaudePID is the claude process the window is bound to, and
	// ClaudeSession that process's session once a hook reported it.
	ClaudePID     int    `json:"claude_pid,omitempty"`
	ClaudeSession string `json:"claude_session,omitempty"`
}

// WindowList is GET /lip/windows's answer.
type WindowList struct {
	Windows []Window `json:"windows"`
}

// Unique is one installed unique in GET /lip/uniques. The fields are in
// the order the host has always written them (alphabetical).
type Unique struct {
	Builtin     bool              `json:"builtin"`
	Commands    map[string]string `json:"commands"`
	Commit      string            `json:"commit"`
	Description string            `json:"description"`
	Domains     []string          `json:"domains"`
	Events      map[string]string `json:"events"`
	Exec        []string          `json:"exec"`
	Name        string            `json:"name"`
	Source      string            `json:"source"`
	Title       string            `json:"title"`
	Version     string            `json:"version"`
	Warnings    []string          `json:"warnings"`
}

// UniqueList is GET /lip/uniques's answer.
type UniqueList struct {
	Uniques []Unique `json:"uniques"`
}

// InstallRequest is the body of POST /lip/install.
type InstallRequest struct {
	Source string `json:"source"`
	Ref    string `json:"ref"`
}

// Installed is POST /lip/install's answer.
type Installed struct {
	Commit   string   `json:"commit"`
	Name     string   `json:"name"`
	Version  string   `json:"version"`
	Warnings []string `json:"warnings"`
}

// Removed is DELETE /lip/uniques/{name}'s answer.
type Removed struct {
	Removed string `json:"removed"`
}

// How an opened window was shown (OpenAnswer.Shown).
const (
	// ShownWindow: the app took the launch (a native window, or it opened
	// the desktop browser itself).
	ShownWindow = "window"
	// ShownWaiting: nothing could show it; it waits for the person on the
	// home page ("Waiting for you").
	ShownWaiting = "waiting"
)

// OpenRequest is the body of POST /lip/open.
type OpenRequest struct {
	Unique string `json:"unique"`
	Resume string `json:"resume,omitempty"`
	Title  string `json:"title,omitempty"`
}

// OpenAnswer is POST /lip/open's answer: what lip-1 §8.1 lists, plus how
// the window was shown. It never carries the window token, and never the
// one-time URL for a caller with the host token (issue #23).
type OpenAnswer struct {
	Window string `json:"window"`
	// URL is the shell page with a one-time key, only for the person's
	// own home page asking for a window no native window took.
	URL string `json:"url,omitempty"`
	// Shown is ShownWindow or ShownWaiting.
	Shown string `json:"shown,omitempty"`
	// Home is the home page's address (no key) when Shown is
	// ShownWaiting, so a caller can tell the person where to look.
	Home     string            `json:"home,omitempty"`
	Guide    string            `json:"guide"`
	Events   map[string]string `json:"events"`
	Commands map[string]string `json:"commands"`
	Session  *sessions.Info    `json:"session,omitempty"`
}

// Gap is a listen answer's gap: events From..To left the ring before the
// cursor read them; Lost of them are gone. It is the ring's own type.
type Gap = ring.Gap

// ListenResult is GET /lip/listen's answer as a client reads it. Events
// stay raw: they are envelopes ({seq, id, ts, dir, from, type, win, data,
// …}) whose data the caller should treat as untrusted. The host writes
// ring.Result, the same shape with decoded envelopes.
type ListenResult struct {
	Events  []json.RawMessage `json:"events"`
	Cursor  string            `json:"cursor"`
	Seq     uint64            `json:"seq"`
	Epoch   string            `json:"epoch"`
	Gap     *Gap              `json:"gap,omitempty"`
	Pending int               `json:"pending"`
}

// Rejection is one refused envelope of a send.
type Rejection struct {
	Index   int      `json:"index"`
	ID      string   `json:"id,omitempty"`
	Code    lip.Code `json:"code"`
	Message string   `json:"message"`
	Hint    Hint     `json:"hint,omitempty"`
}

// SendResult is POST /lip/send's answer.
type SendResult struct {
	Accepted []string    `json:"accepted"`
	Rejected []Rejection `json:"rejected"`
}

// WindowRequest is the body of POST /lip/close and POST /lip/bind.
type WindowRequest struct {
	Window string `json:"window"`
}

// Closed is POST /lip/close's answer.
type Closed struct {
	OK     bool   `json:"ok"`
	Window string `json:"window"`
}

// Bound is POST /lip/bind's answer (alphabetical, as always written).
type Bound struct {
	ClaudePID int    `json:"claude_pid"`
	OK        bool   `json:"ok"`
	Window    string `json:"window"`
}

// SessionList is GET /lip/sessions's answer, newest first.
type SessionList struct {
	Sessions []sessions.Info `json:"sessions"`
}

// ClaudeReport is the body of POST /lip/claude: what a hook of a claude
// process reports (claude-integration §4).
type ClaudeReport struct {
	// PID is the pid of the claude process the hook runs under.
	PID       int    `json:"pid"`
	SessionID string `json:"session_id"`
	Label     string `json:"label"`
	// State is a Wire state, or ClaudeStateEnded for SessionEnd.
	State string `json:"state"`
	// RequestID, Tool and Summary are set only on the waiting_for_approval
	// report that opens a permission request a window can answer.
	RequestID string `json:"request_id,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Summary   string `json:"summary,omitempty"`
	// About is Claude's own words for the tool use, when any.
	About string `json:"about,omitempty"`
	// Backend is the Wire backend of the session: "" or "claude" for
	// Claude Code, "codex" for Codex. A card's answer goes to the Wire
	// daemon for this backend, and the card names the agent.
	Backend string `json:"backend,omitempty"`
}

// ClaudeReported is POST /lip/claude's answer: how many windows the
// report reached.
type ClaudeReported struct {
	Windows int `json:"windows"`
}

// ShowHomeAnswer is POST /app/show-home's answer.
type ShowHomeAnswer struct {
	Showing string `json:"showing"`
}

// HomeLinkAnswer is POST /lip/home-link's answer: how the home page was
// shown.
type HomeLinkAnswer struct {
	Shown string `json:"shown"`
}

// ChatRequest is the body of POST /app/chat and POST /home/api/chat; an
// empty body is a new conversation.
type ChatRequest struct {
	Conversation string `json:"conversation"`
	// Folder is the working folder of a new conversation (absolute).
	Folder string `json:"folder"`
}

// ChatOpened is where an opened conversation shows: its window, how it
// was shown, and (for the person's home page only) the window's one-time
// URL when it waits for the person.
type ChatOpened struct {
	Window string `json:"window"`
	URL    string `json:"url,omitempty"`
	// Shown is ShownWindow or ShownWaiting; Home the home page's address
	// when it waits.
	Shown string `json:"shown,omitempty"`
	Home  string `json:"home,omitempty"`
}

// ChatInfo is one conversation as the home page and `lets chat --list`
// show it.
type ChatInfo struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Dir     string    `json:"dir"`
	Updated time.Time `json:"updated"`
	Turns   int       `json:"turns"`
	// Window is the chat window while the conversation is open, else "".
	Window string `json:"window,omitempty"`
}
