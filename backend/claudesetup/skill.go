package claudesetup

import (
	_ "embed"
	"strings"
)

//go:embed SKILL.md
var skillText string

// skillMarker is the line that tells a SKILL.md Lets wrote from one a
// person wrote.
const skillMarker = "<!-- Written by `lets setup claude`"

// Skill is the text of the lets skill (skills/lets/SKILL.md): YAML
// frontmatter with name and description, then how to work with the person
// through Lets windows (lip-1 §13.3).
func Skill() string { return skillText }

// IsOurSkill reports whether a SKILL.md was written by Lets.
func IsOurSkill(text []byte) bool {
	s := string(text)
	return strings.HasPrefix(s, "---\nname: lets\n") && strings.Contains(s, skillMarker)
}
