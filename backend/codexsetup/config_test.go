package codexsetup

import (
	"errors"
	"strings"
	"testing"
)

var lets = Server{Command: "/home/ana/.local/bin/lets", Args: []string{"mcp"}}

// A person's config with comments, other servers and their own hooks.
const theirs = `# my codex settings
model = "gpt-5-codex"   # the one I like

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[hooks]
# my own hook, keep it
Stop = [{ hooks = [{ type = "command", command = "notify-send done" }] }]`

// Install adds exactly one block after one newline, keeps every byte of
// theirs, and registers the server as Codex reads it; a second Install
// changes nothing; Uninstall gives back their file byte for byte.
func TestInstallKeepsTheirsAndUninstallTakesOutExactlyOurs(t *testing.T) {
	for _, orig := range []string{theirs, theirs + "\n", "", "\n\n# only a comment\n"} {
		out, changed, err := Install([]byte(orig), lets)
		if err != nil || !changed {
			t.Fatalf("%q: Install: changed %v, %v", orig, changed, err)
		}
		if !strings.HasPrefix(string(out), orig+"\n"+beginMarker+"\n") {
			t.Errorf("%q: Install did not keep their bytes and add one newline first:\n%s", orig, out)
		}
		has, cmd, err := check(out)
		if err != nil || !has || cmd != lets.Command {
			t.Errorf("%q: Codex would read server %v %q (%v)", orig, has, cmd, err)
		}
		if c, ok := Installed(out); !ok || c != lets.Command {
			t.Errorf("Installed = %q, %v", c, ok)
		}
		again, changed, err := Install(out, lets)
		if err != nil || changed || string(again) != string(out) {
			t.Errorf("%q: a second Install changed it (%v, %v)", orig, changed, err)
		}
		back, changed, err := Uninstall(out)
		if err != nil || !changed || string(back) != orig {
			t.Errorf("%q: Uninstall gave %q (%v, %v)", orig, back, changed, err)
		}
		if same, changed, err := Uninstall([]byte(orig)); err != nil || changed || string(same) != orig {
			t.Errorf("%q: Uninstall of a config without Lets changed it", orig)
		}
	}
}

// What they wrote after our block stays where it is; a moved lets
// program replaces our block in place.
func TestInstallUpdatesInPlace(t *testing.T) {
	out, _, err := Install([]byte(theirs), lets)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, "\n[mcp_servers.later]\ncommand = \"later\"\n"...)
	moved := Server{Command: "/opt/lets/bin/lets", Args: []string{"mcp"}}
	upd, changed, err := Install(out, moved)
	if err != nil || !changed {
		t.Fatalf("Install moved: %v %v", changed, err)
	}
	if !strings.HasSuffix(string(upd), "\n[mcp_servers.later]\ncommand = \"later\"\n") || strings.Count(string(upd), beginMarker) != 1 || !strings.Contains(string(upd), `command = "/opt/lets/bin/lets"`) {
		t.Errorf("updated:\n%s", upd)
	}
	back, _, err := Uninstall(upd)
	if err != nil || string(back) != theirs+"\n[mcp_servers.later]\ncommand = \"later\"\n" {
		t.Errorf("Uninstall after their later lines: %q %v", back, err)
	}
}

// Refusals leave the file alone and say why.
func TestInstallRefuses(t *testing.T) {
	var taken *TakenError
	if _, _, err := Install([]byte("[mcp_servers.lets]\ncommand = \"their-lets\"\n"), lets); !errors.As(err, &taken) || taken.Command != "their-lets" {
		t.Errorf("their own lets server: %v", err)
	}
	if _, _, err := Install([]byte("model = \n"), lets); !errors.Is(err, ErrNotTOML) {
		t.Errorf("broken TOML: %v", err)
	}
	var ce *ConfigError
	if _, _, err := Install([]byte("mcp_servers = { docs = { command = \"npx\" } }\n"), lets); !errors.As(err, &ce) || !strings.Contains(err.Error(), "codex mcp add") {
		t.Errorf("inline mcp_servers: %v", err)
	}
	if _, _, err := Install(nil, Server{Command: "/bin/le\nts", Args: []string{"mcp"}}); !errors.As(err, &ce) {
		t.Errorf("a path with a newline: %v", err)
	}
	for _, broken := range []string{
		beginMarker + "\n[mcp_servers.lets]\n",
		"x = 1\n" + endMarker + "\n",
		"x = 1 " + beginMarker + "\n" + endMarker + "\n",
		"\n" + beginMarker + "\n" + endMarker + "\n\n" + beginMarker + "\n" + endMarker + "\n",
	} {
		if _, _, err := Uninstall([]byte(broken)); !errors.As(err, &ce) {
			t.Errorf("%q: Uninstall: %v, want a ConfigError", broken, err)
		}
	}
}

// A config whose last newline went (an editor) still uninstalls.
func TestUninstallWithoutTheLastNewline(t *testing.T) {
	out, _, _ := Install([]byte("x = 1\n"), lets)
	back, changed, err := Uninstall(out[:len(out)-1])
	if err != nil || !changed || string(back) != "x = 1\n" {
		t.Errorf("Uninstall = %q, %v, %v", back, changed, err)
	}
}
