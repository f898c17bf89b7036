package lip

import "testing"

func TestReservedDomainsOfSection3(t *testing.T) {
	want := []string{"lip", "session", "entity", "chat", "component", "media", "ui", "shell", "host", "clipboard", "window"}
	got := ReservedDomains()
	if len(got) != len(want) {
		t.Fatalf("%v", got)
	}
	for i := range want {
		if got[i] != want[i] || !IsReservedDomain(want[i]) {
			t.Errorf("%d: %s", i, got[i])
		}
	}
	if IsReservedDomain("graph") || !IsReservedType("ui.toast") || IsReservedType("graph.changed") {
		t.Error("type checks")
	}
	if DomainOf("graph.node.select") != "graph" || DomainOf("x") != "x" {
		t.Error("DomainOf")
	}
	if !InDomain("graph.node.add", []string{"other", "graph"}) || InDomain("graphx.a", []string{"graph"}) || InDomain("graph", []string{"graph"}) {
		t.Error("InDomain")
	}
}

func TestMayEmitTable(t *testing.T) {
	d := Declared{Domains: []string{"graph"}, Events: []string{"graph.node.select", "graph.changed"}, Commands: []string{"graph.node.add"}}
	cases := []struct {
		kind Kind
		dir  Dir
		typ  string
		want Code // "" = allowed
	}{
		{KindUnique, Up, "graph.node.select", ""},
		{KindUnique, Up, "graph.changed", ""},
		{KindUnique, Up, "graph.export", ""},   // default export type
		{KindUnique, Up, "graph.snapshot", ""}, // default snapshot type
		{KindUnique, Up, "entity.summon", ""},
		{KindUnique, Up, "media.image", ""},
		{KindUnique, Up, "graph.secret", CodeUndeclaredType},
		{KindUnique, Up, "other.thing", CodeUndeclaredType},
		{KindUnique, Up, "chat.message", CodeReservedDomain},
		{KindUnique, Up, "entity.click", CodeReservedDomain},
		{KindUnique, Up, "component.action", CodeReservedDomain},
		{KindUnique, Up, "session.saved", CodeReservedDomain},
		{KindUnique, Down, "graph.node.add", CodeForbidden},
		{KindShell, Up, "entity.click", ""},
		{KindShell, Up, "entity.profile", ""},
		{KindShell, Up, "chat.message", ""},
		{KindShell, Up, "component.action", ""},
		{KindShell, Up, "media.image", ""},
		{KindShell, Up, "session.focus", ""},
		{KindShell, Up, "ui.theme-changed", ""},
		{KindShell, Up, "lip.ready", ""},
		{KindShell, Up, "graph.node.select", CodeForbidden},
		{KindShell, Up, "chat.say", CodeForbidden},
		{KindShell, Down, "entity.say", CodeForbidden},
		{KindClaude, Down, "entity.say", ""},
		{KindClaude, Down, "ui.theme", ""},
		{KindClaude, Down, "component.create", ""},
		{KindClaude, Down, "session.close", ""},
		{KindClaude, Down, "graph.node.add", ""},
		{KindClaude, Down, "graph.load", ""}, // default restore command
		{KindClaude, Down, "graph.node.remove", CodeUndeclaredType},
		{KindClaude, Down, "entity.summon", CodeUndeclaredType},
		{KindClaude, Down, "lip.welcome", CodeUndeclaredType},
		{KindClaude, Up, "graph.node.select", CodeForbidden},
		{KindHook, Down, "ui.toast", ""},
		{KindHost, Up, "session.open", ""},
		{KindHost, Up, "lip.expired", ""},
		{KindHost, Down, "lip.welcome", ""},
		{KindHost, Down, "session.close", ""},
		{KindHost, Up, "host.started", ""},
		{KindHost, Down, "graph.load", ""},
		{KindHost, Down, "entity.say", CodeForbidden},
		{Kind("martian"), Up, "a.b", CodeForbidden},
	}
	for _, c := range cases {
		err := MayEmit(c.kind, c.dir, c.typ, d)
		got := Code("")
		if err != nil {
			got = err.Code
			if err.Message == "" {
				t.Errorf("%s %s %s: empty message", c.kind, c.dir, c.typ)
			}
		}
		if got != c.want {
			t.Errorf("%s %s %s: got %q (%v), want %q", c.kind, c.dir, c.typ, got, err, c.want)
		}
	}
	named := Declared{Domains: []string{"graph"}, Export: "graph.send", Snapshot: "graph.state", Restore: "graph.open"}
	if MayEmit(KindUnique, Up, "graph.send", named) != nil || MayEmit(KindUnique, Up, "graph.export", named) == nil {
		t.Error("named export type")
	}
	if MayEmit(KindClaude, Down, "graph.open", named) != nil || MayEmit(KindClaude, Down, "graph.load", named) == nil {
		t.Error("named restore type")
	}
	// A declared event in a reserved domain (a broken manifest) is still refused.
	bad := Declared{Domains: []string{"graph"}, Events: []string{"chat.message"}}
	if e := MayEmit(KindUnique, Up, "chat.message", bad); e == nil || e.Code != CodeReservedDomain {
		t.Errorf("%v", e)
	}
}

func TestCoreTypeDirections(t *testing.T) {
	for _, typ := range CoreTypes() {
		if !ValidType(typ) || !IsReservedType(typ) {
			t.Errorf("%s", typ)
		}
		if !IsCoreEvent(typ) && !IsCoreCommand(typ) {
			t.Errorf("%s has no direction", typ)
		}
	}
	if len(CoreTypes()) != 40 {
		t.Errorf("core types: %d", len(CoreTypes()))
	}
	if !IsClaudeCommand("chat.say") || IsClaudeCommand("lip.ping") || IsClaudeCommand("chat.message") {
		t.Error("claude commands")
	}
}
