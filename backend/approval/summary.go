package approval

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/lets-app/lets/backend/textsafe"
)

// Limits of Summary and About, in runes.
const (
	// SummaryJSONRunes is how much of an unknown tool's input JSON the
	// summary shows (claude-integration §3).
	SummaryJSONRunes = 120
	// SummaryFieldRunes bounds a command, path, address, query or pattern
	// (the host cuts it further to SummaryMax for the card).
	SummaryFieldRunes = 1000
	// AboutRunes bounds About.
	AboutRunes = AboutMax
)

// Summary is the one-line description of a tool use shown on approval
// cards (claude-integration §3): the command for Bash, the file path for
// the file tools, the address for WebFetch, the query for WebSearch, the
// pattern for Glob and Grep, otherwise the first SummaryJSONRunes
// characters of the input JSON, compacted. The card puts it under
// Details, after plain words built from the tool's name (issue #26).
//
// It is the one summary of the hook and the chat, which used to disagree;
// the choices, where they did:
//   - Read, Edit, Write, MultiEdit and NotebookEdit show file_path, and
//     notebook_path when file_path is empty (NotebookEdit names its file
//     notebook_path, older Read calls too).
//   - A field's value is kept up to SummaryFieldRunes, whitespace
//     collapsed to single spaces (one line, as the card shows it); a
//     value of only whitespace counts as none. Only the fallback JSON is
//     cut to SummaryJSONRunes.
//   - The fallback is the compacted JSON ("" for an input that is not
//     JSON), not the raw text with its whitespace squeezed.
//   - Invalid UTF-8 becomes U+FFFD before counting or cutting.
func Summary(tool string, input json.RawMessage) string {
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(input, &fields)
	str := func(name string) string {
		var s string
		_ = json.Unmarshal(fields[name], &s)
		return strings.Join(strings.Fields(validText(s)), " ")
	}
	field := ""
	switch tool {
	case "Bash":
		field = "command"
	case "Edit", "Write", "MultiEdit", "NotebookEdit", "Read":
		field = "file_path"
		if str(field) == "" {
			field = "notebook_path"
		}
	case "WebFetch":
		field = "url"
	case "WebSearch":
		field = "query"
	case "Glob", "Grep":
		field = "pattern"
	}
	if s := str(field); field != "" && s != "" {
		return textsafe.Clip(s, SummaryFieldRunes)
	}
	var compact bytes.Buffer
	if len(input) == 0 || json.Compact(&compact, input) != nil {
		return ""
	}
	return textsafe.Clip(validText(compact.String()), SummaryJSONRunes)
}

// About is what Claude itself says a tool use is for, when the tool asks
// it to (the description of a Bash command or of a Task), on one line:
// the approval card leads with it ("Claude wants to run a command: Run
// the tests", issue #26). "" when Claude said nothing.
func About(tool string, input json.RawMessage) string {
	switch tool {
	case "Bash", "Task", "Agent":
	default:
		return ""
	}
	var fields struct {
		Description string `json:"description"`
	}
	_ = json.Unmarshal(input, &fields)
	return textsafe.OneLine(validText(fields.Description), AboutRunes)
}

// validText replaces invalid UTF-8 by U+FFFD.
func validText(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
