package codexsetup

import (
	"bytes"
	"testing"
)

// FuzzInstallUninstall: for any config, Install either refuses (and the
// caller keeps the file) or adds a block that Uninstall takes out again,
// byte for byte; a second Install changes nothing.
func FuzzInstallUninstall(f *testing.F) {
	for _, s := range []string{theirs, "", "a = 1", "[mcp_servers]\n", "mcp_servers = {}\n", "[mcp_servers.lets]\ncommand=\"x\"\n", beginMarker + "\n", "'''\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, cfg []byte) {
		out, changed, err := Install(cfg, lets)
		if err != nil {
			return
		}
		if changed && !bytes.HasPrefix(out, cfg) && !bytes.Contains(cfg, []byte(beginMarker)) {
			t.Fatalf("Install did not keep the config's bytes:\n%q\n%q", cfg, out)
		}
		again, changed2, err := Install(out, lets)
		if err != nil || changed2 || !bytes.Equal(again, out) {
			t.Fatalf("a second Install changed it: %v %v", changed2, err)
		}
		if !changed {
			return
		}
		back, _, err := Uninstall(out)
		if err != nil {
			t.Fatalf("Uninstall after Install: %v", err)
		}
		if !bytes.Contains(cfg, []byte(beginMarker)) && !bytes.Equal(back, cfg) {
			t.Fatalf("Uninstall did not give the config back:\n%q\n%q", cfg, back)
		}
	})
}
