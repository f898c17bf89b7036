package lip

import (
	"fmt"
	"strings"
	"time"
)

// Kind is who produced an envelope (the §3 "source" column).
type Kind string

// Source kinds.
const (
	KindUnique Kind = "unique" // the unique's code, through the SDK
	KindShell  Kind = "shell"  // a human act in host chrome (the shell page)
	KindClaude Kind = "claude" // a model client with the host token
	KindHook   Kind = "hook"   // the prompt hook
	KindHost   Kind = "host"   // the host itself
)

// Source identifies the producer of an envelope. The host builds it from the
// channel an envelope arrived on, never from the envelope (checklist 4).
type Source struct {
	Kind   Kind
	Unique string // unique name, for KindUnique and KindShell
	Window string // window id, for KindUnique and KindShell
}

// From renders the source as the envelope's from field:
// "unique:<name>#<wid>", "shell:<name>#<wid>", "claude", "hook" or "host".
func (s Source) From() string {
	switch s.Kind {
	case KindUnique, KindShell:
		return string(s.Kind) + ":" + s.Unique + "#" + s.Window
	default:
		return string(s.Kind)
	}
}

// ParseFrom reads a host-stamped from field back into a Source.
func ParseFrom(from string) (Source, error) {
	switch from {
	case "claude", "hook", "host":
		return Source{Kind: Kind(from)}, nil
	}
	kind, rest, ok := strings.Cut(from, ":")
	if ok && (kind == "unique" || kind == "shell") {
		name, win, ok := strings.Cut(rest, "#")
		if ok && name != "" && ValidWindow(win) {
			return Source{Kind: Kind(kind), Unique: name, Window: win}, nil
		}
	}
	return Source{}, fmt.Errorf("from %q is not unique:<name>#<wid>, shell:<name>#<wid>, claude, hook or host", from)
}

// ShellClaim reads the from field of an envelope that arrived on a window's
// shell channel (/lip/ws). That channel is authenticated by the window token,
// which only the shell page holds, so the shell may say whether an envelope
// is a human act ("shell" or "shell:…") or something the unique emitted.
// Anything else — including a forged "claude", "hook" or "host" — is treated
// as the unique, the least trusted kind (checklist 4). The name and window
// always come from the connection, never from the envelope.
func ShellClaim(from string, unique, window string) Source {
	k := KindUnique
	if from == "shell" || strings.HasPrefix(from, "shell:") {
		k = KindShell
	}
	return Source{Kind: k, Unique: unique, Window: window}
}

// StampUp prepares an up-event the host accepted from src at time now:
// dir "up", from = src.From(), win = src.Window, the ts/sts rule (StampTime),
// and seq cleared (the ring assigns it). An envelope that says dir "down" on
// an up channel is a bad_envelope.
func StampUp(e *Envelope, src Source, now time.Time) *Error {
	if e.Dir == Down {
		return Errorf(CodeBadEnvelope, `envelope %s says dir "down" but arrived as an up-event; commands go through /lip/send`, e.ID)
	}
	e.Dir = Up
	e.From = src.From()
	e.Win = src.Window
	e.Seq = 0
	StampTime(e, now)
	return nil
}

// StampDown prepares a down-command from src (Claude, the hook or the host)
// at time now: dir "down", from = src.From(), the ts/sts rule, seq cleared.
// The target window (win) is required.
func StampDown(e *Envelope, src Source, now time.Time) *Error {
	if e.Dir == Up {
		return Errorf(CodeBadEnvelope, `envelope %s says dir "up" but was sent as a command; commands have dir "down"`, e.ID)
	}
	if e.Win == "" {
		return Errorf(CodeBadEnvelope, `envelope %s has no "win"; name the target window (as returned by open)`, e.ID)
	}
	e.Dir = Down
	e.From = src.From()
	e.Seq = 0
	StampTime(e, now)
	return nil
}

// StampTime applies the ts rule of §2: ts becomes the host's clock (ms); the
// sender's ts is kept as sts only when it differs by more than 5 s. A
// sender's own sts is never kept.
func StampTime(e *Envelope, now time.Time) {
	ms := now.UnixMilli()
	e.STS = 0
	if e.TS != 0 {
		d := e.TS - ms
		if d > ClockSkewMillis || d < -ClockSkewMillis {
			e.STS = e.TS
		}
	}
	e.TS = ms
}
