// Package approval is one approval: Claude wants to use a tool (run a
// command, edit a file, fetch an address) and a person must say yes or no
// first. The asker is the code that holds Claude's question — the
// PermissionRequest hook (`lets hook PermissionRequest`) or the chat
// driver answering a can_use_tool control request. The person answers on
// one of the surfaces Lets shows the question on at the same time: the
// approval card in a window (the host's POST /lip/approve), and the pads
// and phones (a request-scoped one-shot Wire subscription). The first
// answer wins and the other surfaces are withdrawn (Ask).
//
// The package owns what every side agrees on: the request and answer of
// POST /lip/approve (Request, Answer), the limits of what a card shows
// and how long it may wait, the one-line clipping the host applies
// (OneLine), and the one summary of a tool use (Summary, About).
package approval

import (
	"time"

	"github.com/lets-app/lets/backend/textsafe"
)

// Limits of one approval: what the card shows stays short (in runes), and
// a request cannot hold a connection for ever.
const (
	ToolMax     = 80
	SummaryMax  = 200
	AboutMax    = 120
	DefaultWait = 2 * time.Minute
	MaxWait     = 10 * time.Minute
	// MinWait is the shortest wait a request may ask for.
	MinWait = time.Second
)

// Request is the body of POST /lip/approve: ask the person at Window
// whether Claude may use Tool.
type Request struct {
	Window  string `json:"window"`
	Tool    string `json:"tool"`
	Summary string `json:"summary"`
	// About is Claude's own words for the tool use ("Run the tests"),
	// when any: the card leads with it.
	About     string `json:"about"`
	TimeoutMs int64  `json:"timeoutMs"`
}

// Clipped returns r with Tool, Summary and About on one line each and cut
// to their limits, as the card shows them.
func (r Request) Clipped() Request {
	r.Tool = textsafe.OneLine(r.Tool, ToolMax)
	r.Summary = textsafe.OneLine(r.Summary, SummaryMax)
	r.About = textsafe.OneLine(r.About, AboutMax)
	return r
}

// Wait is how long the card waits for the person: TimeoutMs within
// [MinWait, MaxWait], or DefaultWait when it is not set.
func (r Request) Wait() time.Duration {
	if r.TimeoutMs <= 0 {
		return DefaultWait
	}
	return min(max(time.Duration(r.TimeoutMs)*time.Millisecond, MinWait), MaxWait)
}

// The choices of an Answer.
const (
	ChoiceAllow = "allow"
	ChoiceDeny  = "deny"
)

// The reasons of an Answer.
const (
	// ReasonAnswered: the person pressed Allow or Deny (or Esc).
	ReasonAnswered = "answered"
	// ReasonTimeout: nobody answered in time.
	ReasonTimeout = "timeout"
	// ReasonNoShell: the window has no shell page connected to draw the card.
	ReasonNoShell = "no_shell"
	// ReasonGone: the window went, or the asker stopped waiting.
	ReasonGone = "gone"
)

// Answer is the answer of POST /lip/approve. Choice is "allow" only when
// the human pressed Allow; everything else — Deny, Esc, no answer in
// time, no shell connected — is "deny", with the reason.
type Answer struct {
	Choice string `json:"choice"`
	Reason string `json:"reason"` // answered | timeout | no_shell | gone
	Ms     int64  `json:"ms"`
}

// Answered reports whether a person answered (rather than the wait ending
// without one).
func (a Answer) Answered() bool { return a.Reason == ReasonAnswered }
