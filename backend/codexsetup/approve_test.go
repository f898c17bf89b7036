package codexsetup

import (
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// The block marks Lets' destructive tools approval_mode = "approve", so
// `codex exec` (approval policy "never") runs them instead of refusing;
// Uninstall takes that out with the rest.
func TestInstallApprovesLetsOwnTools(t *testing.T) {
	theirs := []byte("model = \"m\"\n")
	out, _, err := Install(theirs, Server{Command: "/usr/bin/lets", Args: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		MCP map[string]struct {
			Tools map[string]struct {
				ApprovalMode string `toml:"approval_mode"`
			} `toml:"tools"`
		} `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, tool := range ApprovedTools {
		if got := doc.MCP[ServerName].Tools[tool].ApprovalMode; got != "approve" {
			t.Errorf("tool %s: approval_mode %q, want approve\n%s", tool, got, out)
		}
	}
	back, changed, err := Uninstall(out)
	if err != nil || !changed || string(back) != string(theirs) {
		t.Errorf("Uninstall = %q, %v, %v", back, changed, err)
	}
}
