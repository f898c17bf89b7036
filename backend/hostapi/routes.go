package hostapi

// Paths of the host routes a client calls. Route patterns for a
// http.ServeMux are the method, a space and the path (see Route).
const (
	PathStatus   = "/lip/status"
	PathHealth   = "/lip/health"
	PathUniques  = "/lip/uniques"
	PathInstall  = "/lip/install"
	PathOpen     = "/lip/open"
	PathListen   = "/lip/listen"
	PathSend     = "/lip/send"
	PathClose    = "/lip/close"
	PathSessions = "/lip/sessions"
	PathWindows  = "/lip/windows"
	PathBind     = "/lip/bind"
	PathClaude   = "/lip/claude"
	PathApprove  = "/lip/approve"
	PathHomeLink = "/lip/home-link"
	PathChat     = "/app/chat"
	PathShowHome = "/app/show-home"
	// PathHomeChat is the home page's chat route; DELETE
	// PathHomeChat + "/" + id removes one conversation (HomeChatPath).
	PathHomeChat = "/home/api/chat"
)

// UniquePath is the path of one installed unique (DELETE removes it);
// name must already be path-escaped by the caller when it may hold
// reserved characters.
func UniquePath(escapedName string) string { return PathUniques + "/" + escapedName }

// HomeChatPath is the path of one conversation of the home page's chat
// card; id must already be path-escaped.
func HomeChatPath(escapedID string) string { return PathHomeChat + "/" + escapedID }

// Header names of the host API.
const (
	// HeaderToken carries the host token when Authorization: Bearer is
	// not used.
	HeaderToken = "X-Lets-Token"
	// HeaderClaudePID carries the pid of the Claude Code process that
	// started the caller, so the host can bind windows to that session.
	HeaderClaudePID = "X-Lets-Claude-Pid"
	// HeaderFrom says who sends a /lip/send: FromHook marks the hook.
	HeaderFrom = "X-Lets-From"
	FromHook   = "hook"
)
