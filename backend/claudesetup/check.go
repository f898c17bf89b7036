package claudesetup

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"
)

// SkillState is what Check found at the skill's place.
type SkillState int

// The states of the installed skill.
const (
	SkillMissing  SkillState = iota // no SKILL.md
	SkillCurrent                    // Lets' skill, as this version writes it
	SkillOutdated                   // Lets' skill from another version
	SkillForeign                    // a SKILL.md Lets did not write
)

// Report is what `lets doctor` needs to know about the Claude Code set-up.
type Report struct {
	// Settings is the settings file checked; SettingsMissing says there is
	// none, SettingsErr that it cannot be read or is not valid JSON.
	Settings        string
	SettingsMissing bool
	SettingsErr     error
	// Missing lists the events that have no Lets hook.
	Missing []Event
	// Programs are the lets programs the hooks run (as sh sees them),
	// sorted; Broken those of them that are not an executable file.
	Programs []string
	Broken   []string
	// OtherPermissionHooks are other tools' PermissionRequest hooks (their
	// commands, or their type when they have none): they answer the same
	// prompts as Lets, and whichever answers first wins.
	OtherPermissionHooks []string
	// PermissionTimeout is the timeout Claude Code gives Lets'
	// PermissionRequest hook (0 when there is none, or it has no timeout).
	// It must stay above the approval wait (config approvalTimeoutS), or
	// Claude Code stops the hook before it can step aside.
	PermissionTimeout time.Duration
	Skill             SkillState
}

// Installed reports whether every Lets hook is present (they may still
// point at a broken or another lets; see Broken and Programs).
func (r Report) Installed() bool {
	return r.SettingsErr == nil && len(r.Missing) == 0
}

// None reports whether nothing of Lets is installed at all.
func (r Report) None() bool {
	return r.SettingsErr == nil && len(r.Missing) == len(Events()) && r.Skill == SkillMissing
}

// Check reads Claude Code's settings and skill folder and reports Lets'
// part in them. It changes nothing.
func Check(p Paths) Report {
	r := Report{Settings: p.Settings(), Skill: checkSkill(p)}
	data, err := os.ReadFile(r.Settings)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.SettingsMissing = true
		r.Missing = Events()
		return r
	case err != nil:
		r.SettingsErr = err
		return r
	}
	hooks, err := readHooks(data)
	if err != nil {
		var se *SettingsError
		if errors.As(err, &se) {
			se.Path = r.Settings
		}
		r.SettingsErr = err
		return r
	}
	present := map[Event]bool{}
	programs := map[string]bool{}
	for event, handlers := range hooks {
		for _, h := range handlers {
			if prog, _, ok := ParseLetsHook(h.Command); ok && (h.Type == "command" || h.Type == "") {
				present[Event(event)] = true
				programs[prog] = true
				if secs, ok := h.Timeout.(float64); ok && Event(event) == PermissionRequest && secs > 0 && secs < 1e6 {
					r.PermissionTimeout = time.Duration(secs * float64(time.Second))
				}
				continue
			}
			if Event(event) == PermissionRequest {
				what := h.Command
				if what == "" {
					what = "a " + h.Type + " hook"
				}
				r.OtherPermissionHooks = append(r.OtherPermissionHooks, what)
			}
		}
	}
	for _, e := range Events() {
		if !present[e] {
			r.Missing = append(r.Missing, e)
		}
	}
	for prog := range programs {
		r.Programs = append(r.Programs, prog)
		if !strings.Contains(prog, "$") && !executable(prog) {
			r.Broken = append(r.Broken, prog)
		}
	}
	sort.Strings(r.Programs)
	sort.Strings(r.Broken)
	return r
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func checkSkill(p Paths) SkillState {
	data, err := os.ReadFile(p.SkillFile())
	switch {
	case err != nil:
		return SkillMissing
	case string(data) == Skill():
		return SkillCurrent
	case IsOurSkill(data):
		return SkillOutdated
	}
	return SkillForeign
}

type handlerInfo struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout any    `json:"timeout"` // seconds; anything else is ignored
}

// readHooks lists the handlers of every event of a settings file, in
// order; odd entries that are not handler objects are skipped.
func readHooks(data []byte) (map[string][]handlerInfo, error) {
	out := map[string][]handlerInfo{}
	if len(bytes.TrimSpace(data)) == 0 {
		return out, nil
	}
	top, err := parseObject(data)
	if err != nil {
		return nil, settingsError(data, err)
	}
	at, err := top.Index("hooks")
	if err != nil {
		return nil, &SettingsError{Msg: err.Error()}
	}
	if at < 0 {
		return out, nil
	}
	hooks, err := parseObject(top[at].Value)
	if err != nil {
		return nil, &SettingsError{Msg: `"hooks" must be an object of event names, like "hooks": {}`}
	}
	for _, m := range hooks {
		groups, _ := parseArray(m.Value)
		for _, g := range groups {
			var group struct {
				Hooks []json.RawMessage `json:"hooks"`
			}
			if json.Unmarshal(g, &group) != nil {
				continue
			}
			for _, raw := range group.Hooks {
				var h handlerInfo
				if json.Unmarshal(raw, &h) == nil {
					out[m.Key] = append(out[m.Key], h)
				}
			}
		}
	}
	return out, nil
}
