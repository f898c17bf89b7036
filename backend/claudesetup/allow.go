package claudesetup

import (
	"bytes"
	"encoding/json"

	"github.com/lets-app/lets/backend/jsonobject"
)

// OurToolsRule is the Claude Code permission rule that allows every tool
// of Lets' MCP server (registered as "lets": its tools are mcp__lets__*).
// Without it, Claude Code in its default mode asks before each of Lets'
// own tools — open a window, listen, send — on a pad or in the terminal.
const OurToolsRule = "mcp__lets"

// AllowOurTools adds OurToolsRule to the settings' "permissions.allow"
// list, keeping every other key and rule in its order. When the rule is
// there already, changed is false and the text is returned as it was.
// Text that is not a JSON object, or whose "permissions" or "allow" has
// another shape, gives a *SettingsError and nothing is changed.
func AllowOurTools(settings []byte) (out []byte, changed bool, err error) {
	return editAllow(settings, true)
}

// DisallowOurTools removes OurToolsRule from "permissions.allow" (and the
// list, and "permissions", when that leaves them empty).
func DisallowOurTools(settings []byte) (out []byte, changed bool, err error) {
	return editAllow(settings, false)
}

func editAllow(settings []byte, add bool) ([]byte, bool, error) {
	top := jsonobject.Object{}
	if len(bytes.TrimSpace(settings)) > 0 {
		var err error
		if top, err = parseObject(settings); err != nil {
			return nil, false, settingsError(settings, err)
		}
	}
	at, err := top.Index("permissions")
	if err != nil {
		return nil, false, &SettingsError{Msg: err.Error()}
	}
	perms := jsonobject.Object{}
	if at >= 0 {
		if perms, err = parseObject(top[at].Value); err != nil {
			return nil, false, &SettingsError{Msg: `"permissions" must be an object, like "permissions": {}`}
		}
	}
	ai, err := perms.Index("allow")
	if err != nil {
		return nil, false, &SettingsError{Msg: `"permissions": ` + err.Error()}
	}
	var rules []json.RawMessage
	if ai >= 0 {
		var ok bool
		if rules, ok = parseArray(perms[ai].Value); !ok {
			return nil, false, &SettingsError{Msg: `"permissions.allow" must be a list of rules, like "allow": []`}
		}
	}
	has := -1
	for i, r := range rules {
		var s string
		if json.Unmarshal(r, &s) == nil && s == OurToolsRule {
			has = i
			break
		}
	}
	switch {
	case add && has >= 0, !add && has < 0:
		return settings, false, nil
	case add:
		q, _ := json.Marshal(OurToolsRule)
		rules = append(rules, q)
	default:
		rules = append(rules[:has:has], rules[has+1:]...)
	}
	switch {
	case len(rules) > 0 && ai >= 0:
		perms[ai].Value = encodeArray(rules)
	case len(rules) > 0:
		perms = append(perms, jsonobject.Member{Key: "allow", Value: encodeArray(rules)})
	case ai >= 0:
		perms = append(perms[:ai:ai], perms[ai+1:]...)
	}
	switch {
	case len(perms) > 0 && at >= 0:
		top[at].Value = perms.Encode()
	case len(perms) > 0:
		top = append(top, jsonobject.Member{Key: "permissions", Value: perms.Encode()})
	case at >= 0:
		top = append(top[:at:at], top[at+1:]...)
	}
	return format(top.Encode(), settings), true, nil
}
