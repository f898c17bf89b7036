package hostapi

import "github.com/lets-app/lets/backend/lip"

// Error codes the host answers besides the LIP codes of backend/lip
// (which it uses as they are: lip.CodeUnknownWindow, …).
const (
	// CodeUnknownSession: open {resume} named no saved session.
	CodeUnknownSession lip.Code = "unknown_session"
	// CodeNoHomeWindow: show-home asked a host without a home window.
	CodeNoHomeWindow lip.Code = "no_home_window"
	// CodeMisdirected: the request came for another host name (DNS
	// rebinding defence).
	CodeMisdirected lip.Code = "misdirected"
	// CodeUnknownConversation: a chat route named no saved conversation.
	CodeUnknownConversation lip.Code = "unknown_conversation"
	// CodeBadConversation: a chat route got a conversation id that is not
	// one.
	CodeBadConversation lip.Code = "bad_conversation"
	// CodeChatFailed: the chat could not open for another reason.
	CodeChatFailed lip.Code = "chat_failed"
)

// Hint names what helps after a refusal, in no client's words: each
// client says it its own way (the CLI names a command, the MCP server a
// tool, an HTTP client the route of Hint.Route).
type Hint string

// The hints the host gives.
const (
	// HintWindows: list the open windows.
	HintWindows Hint = "list_windows"
	// HintSessions: list the saved sessions.
	HintSessions Hint = "list_sessions"
	// HintUniques: list the installed uniques.
	HintUniques Hint = "list_uniques"
)

// Route is the host route that does what the hint says, for an HTTP
// client ("GET /lip/windows"); "" for an unknown hint.
func (h Hint) Route() string {
	switch h {
	case HintWindows:
		return "GET " + PathWindows
	case HintSessions:
		return "GET " + PathSessions
	case HintUniques:
		return "GET " + PathUniques
	}
	return ""
}

// HintFor is the hint that goes with an error code: what to list after
// naming something that is not there. "" when the code has none.
func HintFor(code lip.Code) Hint {
	switch code {
	case lip.CodeUnknownWindow:
		return HintWindows
	case lip.CodeUnknownUnique:
		return HintUniques
	case CodeUnknownSession:
		return HintSessions
	}
	return ""
}

// ErrorDetail is the inside of an error answer.
type ErrorDetail struct {
	Code    lip.Code `json:"code"`
	Message string   `json:"message"`
	Hint    Hint     `json:"hint,omitempty"`
}

// ErrorBody is every refusal's body: {"error": {"code", "message",
// "hint"?}}.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}
