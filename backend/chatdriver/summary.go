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
// Bash, the file for Edit/Write/MultiEdit/Read/NotebookEdit, the address
// for WebFetch, the query for WebSearch, the pattern for Glob and Grep,
// otherwise the first 120 characters of the input JSON. The card shows it
// under Details, after plain words (issue #26).
func Summary(tool string, input json.RawMessage) string {
	var fields map[string]any
	_ = json.Unmarshal(input, &fields)
	str := func(k string) string {
		s, _ := fields[k].(string)
		return strings.Join(strings.Fields(s), " ")
	}
	field := ""
	switch tool {
	case "Bash":
		field = "command"
	case "Edit", "Write", "MultiEdit", "Read":
		field = "file_path"
	case "NotebookEdit":
		field = "notebook_path"
	case "WebFetch":
		field = "url"
	case "WebSearch":
		field = "query"
	case "Glob", "Grep":
		field = "pattern"
	}
	if s := str(field); field != "" && s != "" {
		return s
	}
	s := strings.Join(strings.Fields(string(input)), " ")
	if utf8.RuneCountInString(s) > summaryMax {
		s = string([]rune(s)[:summaryMax-1]) + "…"
	}
	return s
}
