package claudesetup

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func merger(set HookSet) func([]byte) ([]byte, bool, error) {
	return func(b []byte) ([]byte, bool, error) { return Merge(b, set) }
}

func unmerger(set HookSet) func([]byte) ([]byte, bool, error) {
	return func(b []byte) ([]byte, bool, error) { return Unmerge(b, set) }
}

func modeOf(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestDirFollowsClaudeConfigDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if d, err := Dir(env(map[string]string{"HOME": "/home/ada"})); err != nil || d != "/home/ada/.claude" {
		t.Fatalf("Dir = %q, %v", d, err)
	}
	if d, err := Dir(env(map[string]string{"HOME": "/home/ada", ConfigDirEnv: "/srv/claude"})); err != nil || d != "/srv/claude" {
		t.Fatalf("Dir with %s = %q, %v", ConfigDirEnv, d, err)
	}
	if _, err := Dir(env(nil)); !errors.Is(err, ErrNoHome) {
		t.Fatalf("no HOME: %v", err)
	}
}

func TestUpdateSettingsCreatesAPrivateFolderAndFile(t *testing.T) {
	p := Paths{Dir: filepath.Join(t.TempDir(), ".claude")}
	up, err := UpdateSettings(p.Settings(), merger(ours()))
	if err != nil || !up.Changed || !up.Created || up.Backup != "" {
		t.Fatalf("UpdateSettings = %+v, %v", up, err)
	}
	if m := modeOf(t, p.Dir); m != 0o700 {
		t.Errorf("~/.claude mode %o, want 700", m)
	}
	if m := modeOf(t, p.Settings()); m != 0o600 {
		t.Errorf("settings.json mode %o, want 600", m)
	}
	if _, err := os.Stat(p.Settings() + ".bak"); !errors.Is(err, fs.ErrNotExist) {
		t.Error("no backup of a file that did not exist")
	}
}

// #23: a settings file others may write (0666, 0664) is a way to run
// programs as the person through its hooks; setup writes it back without
// their write access, and keeps the rest of the mode (reading tells
// nothing secret). The backup of the old text gets the same mode.
func TestUpdateSettingsTakesAwayOthersWriteAccess(t *testing.T) {
	for _, old := range []fs.FileMode{0o666, 0o664, 0o646} {
		p := Paths{Dir: t.TempDir()}
		if err := os.WriteFile(p.Settings(), []byte(othersSettings), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p.Settings(), old); err != nil {
			t.Fatal(err)
		}
		up, err := UpdateSettings(p.Settings(), merger(ours()))
		if err != nil || !up.Changed {
			t.Fatalf("UpdateSettings = %+v, %v", up, err)
		}
		want := old &^ 0o022
		if m := modeOf(t, p.Settings()); m != want {
			t.Errorf("from %o: mode %o, want %o", old, m, want)
		}
		if m := modeOf(t, up.Backup); m != want {
			t.Errorf("from %o: backup mode %o, want %o", old, m, want)
		}
	}
}

func TestUpdateSettingsKeepsModeAndABackup(t *testing.T) {
	p := Paths{Dir: t.TempDir()}
	if err := os.WriteFile(p.Settings(), []byte(othersSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p.Settings(), 0o640); err != nil {
		t.Fatal(err)
	}
	up, err := UpdateSettings(p.Settings(), merger(ours()))
	if err != nil || !up.Changed || up.Created || up.Backup != p.Settings()+".bak" {
		t.Fatalf("UpdateSettings = %+v, %v", up, err)
	}
	if m := modeOf(t, p.Settings()); m != 0o640 {
		t.Errorf("mode %o, want the old 640", m)
	}
	old, err := os.ReadFile(up.Backup)
	if err != nil || string(old) != othersSettings {
		t.Fatalf("backup = %q, %v", old, err)
	}
	after, _ := os.ReadFile(p.Settings())
	// A second run changes nothing, not even the backup.
	bak := up.Backup
	if err := os.WriteFile(bak, []byte("marker"), 0o600); err != nil {
		t.Fatal(err)
	}
	up, err = UpdateSettings(p.Settings(), merger(ours()))
	if err != nil || up.Changed || up.Backup != "" {
		t.Fatalf("second run: %+v, %v", up, err)
	}
	if again, _ := os.ReadFile(p.Settings()); string(again) != string(after) {
		t.Fatal("second run rewrote the file")
	}
	if b, _ := os.ReadFile(bak); string(b) != "marker" {
		t.Fatal("second run rewrote the backup")
	}
	// Uninstall restores the others.
	if _, err := UpdateSettings(p.Settings(), unmerger(ours())); err != nil {
		t.Fatal(err)
	}
	back, _ := os.ReadFile(p.Settings())
	if !sameJSON(back, []byte(othersSettings)) {
		t.Fatalf("uninstall left:\n%s", back)
	}
}

func TestUpdateSettingsNeverWritesABrokenFile(t *testing.T) {
	p := Paths{Dir: t.TempDir()}
	text := "{\n  // comment\n}\n"
	if err := os.WriteFile(p.Settings(), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := UpdateSettings(p.Settings(), merger(ours()))
	var se *SettingsError
	if !errors.As(err, &se) || se.Path != p.Settings() || !strings.Contains(err.Error(), p.Settings()+":2:3") {
		t.Fatalf("want a *SettingsError naming the file and line, got %v", err)
	}
	if after, _ := os.ReadFile(p.Settings()); string(after) != text {
		t.Fatal("a broken file was rewritten")
	}
	if _, err := os.Stat(p.Settings() + ".bak"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("no backup should be written when nothing is")
	}
}

func TestUpdateSettingsFollowsASymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "claude-settings.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte(`{"model":"opus"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p := Paths{Dir: filepath.Join(dir, ".claude")}
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, p.Settings()); err != nil {
		t.Fatal(err)
	}
	if _, err := UpdateSettings(p.Settings(), merger(ours())); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(p.Settings()); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	if data, _ := os.ReadFile(real); !strings.Contains(string(data), "hook Stop") {
		t.Fatalf("the linked file was not updated: %s", data)
	}
}

func TestSkillHasFrontmatterAndSaysTheEssentials(t *testing.T) {
	s := Skill()
	if !strings.HasPrefix(s, "---\nname: lets\ndescription: ") {
		t.Fatalf("SKILL.md must start with frontmatter name and description:\n%.80s", s)
	}
	end := strings.Index(s[4:], "\n---\n")
	if end < 0 {
		t.Fatal("frontmatter is not closed")
	}
	front := s[4 : 4+end]
	for _, line := range strings.Split(front, "\n") {
		if desc, ok := strings.CutPrefix(line, "description: "); ok && (len(desc) > 1024 || strings.ContainsAny(desc, "\n")) {
			t.Errorf("description too long (%d chars)", len(desc))
		}
	}
	for _, want := range []string{"`open`", "`listen`", "`send`", "open → listen → send → listen", "GUIDE.md", "Handoff", "short", "never as instructions", "<lets-events>"} {
		if !strings.Contains(s, want) {
			t.Errorf("SKILL.md should mention %q", want)
		}
	}
	if !IsOurSkill([]byte(s)) || IsOurSkill([]byte("---\nname: lets\ndescription: mine\n---\n")) {
		t.Fatal("IsOurSkill must tell Lets' skill from a person's")
	}
}

func TestInstallAndRemoveTheSkill(t *testing.T) {
	p := Paths{Dir: filepath.Join(t.TempDir(), ".claude")}
	if r, err := InstallSkill(p); err != nil || r != SkillWritten {
		t.Fatalf("install = %v, %v", r, err)
	}
	if m := modeOf(t, p.Dir); m != 0o700 {
		t.Errorf("~/.claude mode %o", m)
	}
	if r, err := InstallSkill(p); err != nil || r != SkillUnchanged {
		t.Fatalf("second install = %v, %v", r, err)
	}
	if got := Check(p).Skill; got != SkillCurrent {
		t.Fatalf("Check skill = %v", got)
	}
	// An older text of Lets' skill is updated.
	if err := os.WriteFile(p.SkillFile(), []byte(strings.Replace(Skill(), "Keep companion", "Keep the companion", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Check(p).Skill; got != SkillOutdated {
		t.Fatalf("Check skill = %v", got)
	}
	if r, err := InstallSkill(p); err != nil || r != SkillWritten {
		t.Fatalf("update = %v, %v", r, err)
	}
	if r, err := RemoveSkill(p); err != nil || r != SkillRemoved {
		t.Fatalf("remove = %v, %v", r, err)
	}
	if _, err := os.Stat(p.SkillDir()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("skill folder still there")
	}
	if r, err := RemoveSkill(p); err != nil || r != SkillUnchanged {
		t.Fatalf("remove again = %v, %v", r, err)
	}
}

func TestTheSkillOfSomeoneElseIsLeftAlone(t *testing.T) {
	p := Paths{Dir: t.TempDir()}
	if err := os.MkdirAll(p.SkillDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	mine := "---\nname: lets\ndescription: my own notes\n---\nhi\n"
	if err := os.WriteFile(p.SkillFile(), []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, err := InstallSkill(p); err != nil || r != SkillNotOurs {
		t.Fatalf("install over a person's skill = %v, %v", r, err)
	}
	if r, err := RemoveSkill(p); err != nil || r != SkillNotOurs {
		t.Fatalf("remove a person's skill = %v, %v", r, err)
	}
	if data, _ := os.ReadFile(p.SkillFile()); string(data) != mine {
		t.Fatal("a person's SKILL.md was changed")
	}
	if Check(p).Skill != SkillForeign {
		t.Fatal("Check should see a foreign skill")
	}
	// Lets' skill next to the person's other files: only SKILL.md goes.
	if err := os.WriteFile(p.SkillFile(), []byte(Skill()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.SkillDir(), "notes.md"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, err := RemoveSkill(p); err != nil || r != SkillKeptFolder {
		t.Fatalf("remove = %v, %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(p.SkillDir(), "notes.md")); err != nil {
		t.Fatal("the person's file was removed")
	}
}

func TestPluginLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lets-plugin")
	wrote, err := WritePlugin(dir, "/usr/local/bin/lets", "1.2.3", 90*time.Second)
	if err != nil || len(wrote) != 4 {
		t.Fatalf("WritePlugin = %v, %v", wrote, err)
	}
	read := func(rel string) map[string]any {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		return v
	}
	if m := read(".claude-plugin/plugin.json"); m["name"] != "lets" || m["version"] != "1.2.3" || m["description"] == "" {
		t.Errorf("plugin.json = %v", m)
	}
	server := read(".mcp.json")["mcpServers"].(map[string]any)["lets"].(map[string]any)
	if server["command"] != "/usr/local/bin/lets" || server["args"].([]any)[0] != "mcp" {
		t.Errorf(".mcp.json server = %v", server)
	}
	hooks := read("hooks/hooks.json")["hooks"].(map[string]any)
	if len(hooks) != len(Events()) {
		t.Errorf("hooks.json has %d events", len(hooks))
	}
	data, _ := os.ReadFile(filepath.Join(dir, "hooks/hooks.json"))
	if !strings.Contains(string(data), `"command": "[ -x /usr/local/bin/lets ] || exit 0; exec /usr/local/bin/lets hook PermissionRequest",`+"\n"+`            "timeout": 100`) {
		t.Errorf("hooks.json PermissionRequest entry:\n%s", data)
	}
	if skill, _ := os.ReadFile(filepath.Join(dir, "skills/lets/SKILL.md")); string(skill) != Skill() {
		t.Error("the plugin's skill differs")
	}
}

func TestCheckReportsWhatDoctorNeeds(t *testing.T) {
	dir := t.TempDir()
	p := Paths{Dir: filepath.Join(dir, ".claude")}
	r := Check(p)
	if !r.SettingsMissing || !r.None() || r.Installed() {
		t.Fatalf("nothing installed: %+v", r)
	}
	lets := filepath.Join(dir, "bin", "lets")
	if err := os.MkdirAll(filepath.Dir(lets), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lets, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	set := Hooks(lets, time.Minute)
	// Another tool answers permission prompts too; an old lets is gone.
	in := `{"hooks":{"PermissionRequest":[{"matcher":"Bash","hooks":[{"type":"command","command":"auto-approve --all"}]}],
		"Stop":[{"hooks":[{"type":"command","command":"/gone/lets hook Stop"}]}]}}`
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.Settings(), []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	r = Check(p)
	if r.Installed() || len(r.Missing) != 9 || strings.Join(r.Broken, ",") != "/gone/lets" {
		t.Fatalf("partial set-up: %+v", r)
	}
	if strings.Join(r.OtherPermissionHooks, ",") != "auto-approve --all" {
		t.Fatalf("racing hooks: %v", r.OtherPermissionHooks)
	}
	if _, err := UpdateSettings(p.Settings(), merger(set)); err != nil {
		t.Fatal(err)
	}
	r = Check(p)
	if !r.Installed() || len(r.Broken) != 0 || strings.Join(r.Programs, ",") != lets || r.PermissionTimeout != 70*time.Second {
		t.Fatalf("after setup: %+v", r)
	}
	if err := os.WriteFile(p.Settings(), []byte("{oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r = Check(p); !errors.Is(r.SettingsErr, ErrInvalidSettings) || !strings.Contains(r.SettingsErr.Error(), p.Settings()) {
		t.Fatalf("broken settings: %v", r.SettingsErr)
	}
}
