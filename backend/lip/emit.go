package lip

import (
	"sort"
	"strings"
)

// Core message types (spec §4, seed §3). Up-events and down-commands; the
// lip.error/ping/pong types go both ways.
const (
	TypeHello   = "lip.hello"
	TypeWelcome = "lip.welcome"
	TypeReady   = "lip.ready"
	TypeAck     = "lip.ack"
	TypeError   = "lip.error"
	TypeExpired = "lip.expired"
	TypePing    = "lip.ping"
	TypePong    = "lip.pong"

	TypeSessionOpen   = "session.open"
	TypeSessionClose  = "session.close"
	TypeSessionClosed = "session.closed"
	TypeSessionFocus  = "session.focus"
	TypeSessionBlur   = "session.blur"
	TypeSessionSaved  = "session.saved"

	TypeEntitySummon  = "entity.summon"
	TypeEntityDismiss = "entity.dismiss"
	TypeEntityClick   = "entity.click"
	TypeEntityPick    = "entity.pick"
	TypeEntityProfile = "entity.profile"
	TypeEntitySecret  = "entity.secret"
	TypeEntitySay     = "entity.say"
	TypeEntityMood    = "entity.mood"
	TypeEntitySuggest = "entity.suggest"
	TypeEntityMove    = "entity.move"
	TypeEntityShow    = "entity.show"
	TypeEntityHide    = "entity.hide"
	TypeEntityPersona = "entity.persona"
	TypeEntityReact   = "entity.react"

	TypeChatMessage = "chat.message"
	TypeChatOpen    = "chat.open"
	TypeChatClose   = "chat.close"
	TypeChatSay     = "chat.say"
	TypeChatTyping  = "chat.typing"

	TypeComponentCreate = "component.create"
	TypeComponentUpdate = "component.update"
	TypeComponentRemove = "component.remove"
	TypeComponentAction = "component.action"

	TypeMediaImage = "media.image"

	TypeUIToast = "ui.toast"
	TypeUITheme = "ui.theme"
)

// coreDirs maps every core type to the directions it travels in.
var coreDirs = map[string]string{
	TypeHello: "up", TypeWelcome: "down", TypeReady: "up", TypeAck: "up",
	TypeError: "both", TypeExpired: "up", TypePing: "both", TypePong: "both",
	TypeSessionOpen: "up", TypeSessionClose: "down", TypeSessionClosed: "up",
	TypeSessionFocus: "up", TypeSessionBlur: "up", TypeSessionSaved: "up",
	TypeEntitySummon: "up", TypeEntityDismiss: "up", TypeEntityClick: "up", TypeEntityPick: "up",
	TypeEntityProfile: "up", TypeEntitySecret: "up",
	TypeEntitySay: "down", TypeEntityMood: "down", TypeEntitySuggest: "down", TypeEntityMove: "down",
	TypeEntityShow: "down", TypeEntityHide: "down", TypeEntityPersona: "down", TypeEntityReact: "down",
	TypeChatMessage: "up", TypeChatOpen: "down", TypeChatClose: "down", TypeChatSay: "down", TypeChatTyping: "down",
	TypeComponentCreate: "down", TypeComponentUpdate: "down", TypeComponentRemove: "down", TypeComponentAction: "up",
	TypeMediaImage: "up",
	TypeUIToast:    "down", TypeUITheme: "down",
}

// CoreTypes lists every core message type of spec §4, sorted.
func CoreTypes() []string {
	out := make([]string, 0, len(coreDirs))
	for t := range coreDirs {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// IsCore reports whether typ is a core message type of §4.
func IsCore(typ string) bool { _, ok := coreDirs[typ]; return ok }

// IsCoreEvent reports whether typ is a core type that travels up.
func IsCoreEvent(typ string) bool { d := coreDirs[typ]; return d == "up" || d == "both" }

// IsCoreCommand reports whether typ is a core type that travels down.
func IsCoreCommand(typ string) bool { d := coreDirs[typ]; return d == "down" || d == "both" }

// IsClaudeCommand reports whether Claude may send typ as a core command: every
// down-travelling core type except the lip.* protocol frames, which only the
// host makes.
func IsClaudeCommand(typ string) bool {
	return IsCoreCommand(typ) && DomainOf(typ) != "lip"
}

// Declared is what a unique's manifest declares, as far as the emit rules
// need it. The manifest package fills it; empty Export/Snapshot mean the
// defaults "<domain>.export" / "<domain>.snapshot" for any declared domain.
type Declared struct {
	Domains  []string
	Events   []string // declared up-event types
	Commands []string // declared down-command types
	Export   string   // session export type (rule 7)
	Snapshot string   // session snapshot type
	Restore  string   // session restore command
}

func (d Declared) hasEvent(t string) bool   { return contains(d.Events, t) }
func (d Declared) hasCommand(t string) bool { return contains(d.Commands, t) }

// IsExport reports whether typ is the unique's session export type.
func (d Declared) IsExport(typ string) bool { return d.sessionType(typ, d.Export, "export") }

// IsSnapshot reports whether typ is the unique's session snapshot type.
func (d Declared) IsSnapshot(typ string) bool { return d.sessionType(typ, d.Snapshot, "snapshot") }

// IsRestore reports whether typ is the unique's session restore command.
func (d Declared) IsRestore(typ string) bool { return d.sessionType(typ, d.Restore, "load") }

func (d Declared) sessionType(typ, named, suffix string) bool {
	if named != "" {
		return typ == named
	}
	for _, dom := range d.Domains {
		if typ == dom+"."+suffix {
			return true
		}
	}
	return false
}

// MayEmit applies the "who may emit what" table of spec §3 as a pure
// function. It returns nil when src may send typ in direction dir for a
// unique that declared d, else an *Error:
//
//   - unique (through the SDK), up only: its declared events, entity.summon,
//     its session export and snapshot types, media.image. Other types:
//     reserved_domain for reserved domains, else undeclared_type.
//   - shell (human acts), up only: entity.*, chat.message, component.action,
//     media.image, session.*, ui.*, lip.*. Anything else: forbidden.
//   - claude and hook, down only: core commands (IsClaudeCommand) and the
//     unique's declared commands (its restore command counts as declared).
//     Else undeclared_type.
//   - host: lip.*, session.*, host.* in either direction, and the unique's
//     restore command (queued from a saved session). Else forbidden.
func MayEmit(kind Kind, dir Dir, typ string, d Declared) *Error {
	dom := DomainOf(typ)
	switch kind {
	case KindUnique:
		if dir != Up {
			return Errorf(CodeForbidden, "a unique only emits up-events; %s cannot be sent down by the unique", typ)
		}
		switch {
		case typ == TypeEntitySummon, typ == TypeMediaImage:
			return nil
		case d.hasEvent(typ), d.IsExport(typ), d.IsSnapshot(typ):
			if IsReservedDomain(dom) {
				return Errorf(CodeReservedDomain, "%s is in the reserved domain %q; a unique may not emit it", typ, dom)
			}
			return nil
		case IsReservedDomain(dom):
			return Errorf(CodeReservedDomain, "%s is in the reserved domain %q; a unique may emit only its declared events, entity.summon, media.image (through lip.upload) and its session export/snapshot types", typ, dom)
		default:
			return Errorf(CodeUndeclaredType, "%s is not among the unique's declared events; declare it in unique.json \"events\" (domains: %s)", typ, strings.Join(d.Domains, ", "))
		}
	case KindShell:
		if dir != Up {
			return Errorf(CodeForbidden, "the shell only emits up-events; %s cannot be sent down by the shell", typ)
		}
		switch dom {
		case "entity", "session", "ui", "lip":
			return nil
		}
		if typ == TypeChatMessage || typ == TypeComponentAction || typ == TypeMediaImage {
			return nil
		}
		return Errorf(CodeForbidden, "the shell may emit entity.*, chat.message, component.action, media.image, session.*, ui.* and lip.*, not %s", typ)
	case KindClaude, KindHook:
		if dir != Down {
			return Errorf(CodeForbidden, "%s sends down-commands only; %s cannot be sent up", kind, typ)
		}
		if IsClaudeCommand(typ) || d.hasCommand(typ) || d.IsRestore(typ) {
			return nil
		}
		if IsCore(typ) {
			return Errorf(CodeUndeclaredType, "%s is not a command Claude can send (it is an up-event or a host-only protocol frame)", typ)
		}
		return Errorf(CodeUndeclaredType, "%s is neither a core command nor one of the unique's declared commands; see the unique's commands (from open)", typ)
	case KindHost:
		if d.IsRestore(typ) && dir == Down {
			return nil // the restore command queued from a saved session
		}
		switch dom {
		case "lip", "session", "host":
			return nil
		}
		return Errorf(CodeForbidden, "the host emits only lip.*, session.* and host.*, not %s", typ)
	default:
		return Errorf(CodeForbidden, "unknown source kind %q", kind)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
