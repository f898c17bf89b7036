package chatdriver

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// summaryMax is how much of a tool's input JSON the approval card shows
// when the tool has no better one-line summary (claude-integration §3).
const summaryMax = 120

// Summary is the approval card's one line for a tool use: the command for
// Bash, the file for Edit/Write/MultiEdit/NotebookEdit, otherwise the first
// 120 characters of the input JSON.
func Summary(tool string, input json.RawMessage) string {
	var fields map[string]any
	_ = json.Unmarshal(input, &fields)
	str := func(k string) string {
		s, _ := fields[k].(string)
		return strings.Join(strings.Fields(s), " ")
	}
	switch tool {
	case "Bash":
		if s := str("command"); s != "" {
			return s
		}
	case "Edit", "Write", "MultiEdit", "Read":
		if s := str("file_path"); s != "" {
			return s
		}
	case "NotebookEdit":
		if s := str("notebook_path"); s != "" {
			return s
		}
	}
	s := strings.Join(strings.Fields(string(input)), " ")
	if utf8.RuneCountInString(s) > summaryMax {
		s = string([]rune(s)[:summaryMax-1]) + "…"
	}
	return s
}
