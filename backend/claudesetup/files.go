package claudesetup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lets-app/lets/backend/atomicfile"
)

// ConfigDirEnv is the variable Claude Code reads for its configuration
// folder instead of ~/.claude.
const ConfigDirEnv = "CLAUDE_CONFIG_DIR"

// ErrNoHome means neither $CLAUDE_CONFIG_DIR nor $HOME is set.
var ErrNoHome = errors.New("cannot find Claude Code's settings folder: neither " + ConfigDirEnv + " nor HOME is set")

// Dir is Claude Code's configuration folder: $CLAUDE_CONFIG_DIR, else
// $HOME/.claude.
func Dir(getenv func(string) string) (string, error) {
	if d := getenv(ConfigDirEnv); d != "" {
		return filepath.Abs(d)
	}
	home := getenv("HOME")
	if home == "" {
		return "", ErrNoHome
	}
	return filepath.Join(home, ".claude"), nil
}

// Paths are the files Lets touches in Claude Code's configuration folder.
type Paths struct {
	Dir string // ~/.claude
}

// Settings is the user's settings.json, where the hooks go.
func (p Paths) Settings() string { return filepath.Join(p.Dir, "settings.json") }

// SkillDir is the folder of the lets skill.
func (p Paths) SkillDir() string { return filepath.Join(p.Dir, "skills", "lets") }

// SkillFile is the skill's SKILL.md.
func (p Paths) SkillFile() string { return filepath.Join(p.SkillDir(), "SKILL.md") }

// Update says what UpdateSettings did.
type Update struct {
	Changed bool
	// Created is set when there was no settings file before.
	Created bool
	// Backup is the copy of the previous file ("" when none was made).
	Backup string
}

// UpdateSettings applies edit (Merge or Unmerge with their hooks) to the
// settings file at path. When edit changes the text it writes the new
// file atomically, keeping the old file's mode without write access for
// group and others (0600 for a new file) and
// a copy of the old file at path+".bak"; a missing folder is created
// private (0700). A symlinked settings file is updated where it points.
// A file edit cannot read is never written (*SettingsError with Path).
func UpdateSettings(path string, edit func([]byte) ([]byte, bool, error)) (Update, error) {
	var up Update
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	mode := fs.FileMode(0o600)
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		up.Created = true
	case err != nil:
		return up, fmt.Errorf("read %s: %w", path, err)
	default:
		if fi, err := os.Stat(path); err == nil {
			// Kept as found, except that nobody else may write it: the
			// file runs programs as the person (its hooks), so a file
			// another user can change is a way in. Reading it tells
			// nothing secret (hook commands), so that is left alone.
			mode = fi.Mode().Perm() &^ 0o022
		}
	}
	out, changed, err := edit(old)
	if err != nil {
		var se *SettingsError
		if errors.As(err, &se) {
			se.Path = path
		}
		return up, err
	}
	if !changed {
		return up, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return up, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if !up.Created {
		up.Backup = path + ".bak"
		if err := atomicfile.Write(up.Backup, old, mode); err != nil {
			return up, fmt.Errorf("keep a copy of %s: %w", path, err)
		}
	}
	if err := atomicfile.Write(path, out, mode); err != nil {
		return up, fmt.Errorf("write %s: %w", path, err)
	}
	up.Changed = true
	return up, nil
}

// SkillResult says what InstallSkill or RemoveSkill did.
type SkillResult int

// The outcomes of the skill functions.
const (
	SkillUnchanged  SkillResult = iota // already as wanted
	SkillWritten                       // installed or updated
	SkillRemoved                       // Lets' skill folder removed
	SkillNotOurs                       // a SKILL.md Lets did not write is there; left alone
	SkillKeptFolder                    // SKILL.md removed, the folder kept: it holds other files
)

// InstallSkill writes the lets skill to p.SkillFile(). It replaces a
// SKILL.md Lets wrote earlier, and refuses to replace one it did not
// (SkillNotOurs).
func InstallSkill(p Paths) (SkillResult, error) {
	old, err := os.ReadFile(p.SkillFile())
	switch {
	case err == nil && string(old) == Skill():
		return SkillUnchanged, nil
	case err == nil && !IsOurSkill(old):
		return SkillNotOurs, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return SkillUnchanged, fmt.Errorf("read %s: %w", p.SkillFile(), err)
	}
	if err := os.MkdirAll(p.SkillDir(), 0o700); err != nil {
		return SkillUnchanged, fmt.Errorf("create %s: %w", p.SkillDir(), err)
	}
	if err := atomicfile.Write(p.SkillFile(), []byte(Skill()), 0o644); err != nil {
		return SkillUnchanged, fmt.Errorf("write %s: %w", p.SkillFile(), err)
	}
	return SkillWritten, nil
}

// RemoveSkill removes the skill Lets installed: SKILL.md when Lets wrote
// it, and the folder when nothing else is in it.
func RemoveSkill(p Paths) (SkillResult, error) {
	old, err := os.ReadFile(p.SkillFile())
	if errors.Is(err, fs.ErrNotExist) {
		return SkillUnchanged, nil
	}
	if err != nil {
		return SkillUnchanged, fmt.Errorf("read %s: %w", p.SkillFile(), err)
	}
	if !IsOurSkill(old) {
		return SkillNotOurs, nil
	}
	if err := os.Remove(p.SkillFile()); err != nil {
		return SkillUnchanged, fmt.Errorf("remove %s: %w", p.SkillFile(), err)
	}
	if err := os.Remove(p.SkillDir()); err != nil {
		return SkillKeptFolder, nil // other files live there
	}
	return SkillRemoved, nil
}
