package hostclient

import (
	"strings"
	"testing"
)

// FuzzParseStat: any /proc stat text gives a clean answer or "no", never a
// panic or a negative pid, and the command name sits inside the
// parentheses.
func FuzzParseStat(f *testing.F) {
	f.Add("1 (systemd) S 0 1 1")
	f.Add("5 (a) b) c) S 4 5")
	f.Fuzz(func(t *testing.T, s string) {
		comm, ppid, ok := parseStat(s)
		if !ok {
			return
		}
		if ppid < 0 {
			t.Fatalf("negative ppid %d from %q", ppid, s)
		}
		if !strings.Contains(s, "("+comm+")") {
			t.Fatalf("comm %q is not in %q", comm, s)
		}
	})
}
