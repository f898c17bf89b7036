package tray

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Point (#21): the autostart entry names the program in TryExec, so once
// the package is removed the desktop skips the entry instead of failing
// to start a program that is gone; the entry passes desktop-file-validate
// without an error, a warning or a hint, for a plain path and for one
// with spaces and quotes.
func TestAutostartEntryHasTryExecAndValidates(t *testing.T) {
	validate := testutil.Command(t, "desktop-file-validate")
	for _, exe := range []string{"/usr/bin/lets", `/opt/My "Apps"/lets $HOME`} {
		a := Autostart{Path: filepath.Join(t.TempDir(), "autostart", "lets.desktop"), Exec: exe}
		if err := a.Set(true); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(a.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "\nTryExec="+exe+"\n") {
			t.Errorf("the entry for %q has no TryExec naming it:\n%s", exe, data)
		}
		out, err := exec.Command(validate, a.Path).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "" {
			t.Errorf("desktop-file-validate on the entry for %q: %v\n%s\nentry:\n%s", exe, err, out, data)
		}
	}
}
