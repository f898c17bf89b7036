package tray

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Autostart is the XDG autostart entry that starts Lets at login
// (~/.config/autostart/lets.desktop, or under $XDG_CONFIG_HOME).
type Autostart struct {
	// Path is the .desktop file.
	Path string
	// Exec is the program the entry starts (the lets binary).
	Exec string
}

// NewAutostart finds the autostart entry's path from XDG_CONFIG_HOME or
// HOME, for the program exe.
func NewAutostart(getenv func(string) string, exe string) (Autostart, error) {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		// The XDG spec says a relative value is invalid and is ignored.
		home := getenv("HOME")
		if home == "" {
			return Autostart{}, errors.New("find the autostart folder: neither XDG_CONFIG_HOME nor HOME is set")
		}
		dir = filepath.Join(home, ".config")
	}
	return Autostart{Path: filepath.Join(dir, "autostart", "lets.desktop"), Exec: exe}, nil
}

// Enabled reports whether the entry exists and is not hidden.
func (a Autostart) Enabled() bool {
	data, err := os.ReadFile(a.Path)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "Hidden=true" {
			return false
		}
	}
	return true
}

// Set writes or removes the entry.
func (a Autostart) Set(on bool) error {
	if !on {
		if err := os.Remove(a.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove %s so Lets no longer starts at login: %w", a.Path, err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(a.Path), 0o755); err != nil {
		return fmt.Errorf("create the autostart folder %s: %w", filepath.Dir(a.Path), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(a.Path), ".lets.desktop-*")
	if err != nil {
		return fmt.Errorf("write the autostart entry in %s: %w", filepath.Dir(a.Path), err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.WriteString(a.entry()); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write the autostart entry %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write the autostart entry %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the autostart entry %s: %w", tmp.Name(), err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("make the autostart entry readable: %w", err)
	}
	if err := os.Rename(tmp.Name(), a.Path); err != nil {
		return fmt.Errorf("put the autostart entry in place at %s: %w", a.Path, err)
	}
	return nil
}

// entry is the desktop entry's text (Desktop Entry Specification 1.4,
// the newest desktop-file-validate in Debian 12 knows; nothing here needs
// 1.5).
func (a Autostart) entry() string {
	return "[Desktop Entry]\n" +
		"Type=Application\n" +
		"Version=1.4\n" +
		"Name=Lets\n" +
		"Comment=People and AI agents, working together\n" +
		// TryExec: once the program is gone (the package removed), the
		// desktop ignores the entry instead of failing to start it.
		"TryExec=" + stringValue(a.Exec) + "\n" +
		"Exec=" + execQuote(a.Exec) + "\n" +
		"Icon=lets\n" +
		"Terminal=false\n" +
		"X-GNOME-Autostart-enabled=true\n"
}

// execQuote quotes a path for an Exec key when it needs quoting (spaces or
// reserved characters), escaping as the Desktop Entry Specification says.
func execQuote(p string) string {
	if !strings.ContainsAny(p, " \t\n\"'\\><~|&;$*?#()`") {
		return p
	}
	r := strings.NewReplacer(`\`, `\\\\`, `"`, `\\"`, "`", "\\\\`", `$`, `\\$`)
	return `"` + r.Replace(p) + `"`
}

// stringValue escapes a path for a string key such as TryExec (Desktop
// Entry Specification, "Possible value types").
func stringValue(p string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(p)
}
