package window

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestAppIconIsTheBuildIcon (#21 windows look like Lets): the icon the
// windows carry is the app icon of build/icons, byte for byte.
func TestAppIconIsTheBuildIcon(t *testing.T) {
	want, err := os.ReadFile("../../build/icons/128x128/lets.png")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(AppIcon, want) {
		t.Fatal("app/window/appicon.png differs from build/icons/128x128/lets.png; copy it again: cp build/icons/128x128/lets.png app/window/appicon.png")
	}
}

// TestDesktopEntryNamesTheWindowClass (#21): the desktop entry's
// StartupWMClass is the windows' WM_CLASS class, so the taskbar puts
// them under the Lets entry.
func TestDesktopEntryNamesTheWindowClass(t *testing.T) {
	f, err := os.Open("../../build/linux/lets.desktop")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "StartupWMClass="); ok {
			if v != WMClass {
				t.Fatalf("StartupWMClass=%s, the windows' class is %s", v, WMClass)
			}
			return
		}
	}
	t.Fatal("build/linux/lets.desktop has no StartupWMClass line")
}
