package claudesetup

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestAllowOurTools(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     map[string]any
		changed  bool
	}{
		{"empty file", "", map[string]any{"permissions": map[string]any{"allow": []any{"mcp__lets"}}}, true},
		{"keeps other rules and keys", `{"model":"x","permissions":{"allow":["Bash(npm test)"],"deny":["Read(.env)"]}}`,
			map[string]any{"model": "x", "permissions": map[string]any{"allow": []any{"Bash(npm test)", "mcp__lets"}, "deny": []any{"Read(.env)"}}}, true},
		{"already there", `{"permissions":{"allow":["mcp__lets"]}}`, map[string]any{"permissions": map[string]any{"allow": []any{"mcp__lets"}}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, changed, err := AllowOurTools([]byte(c.in))
			if err != nil || changed != c.changed {
				t.Fatalf("changed %v err %v", changed, err)
			}
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			if !changed && string(out) != c.in {
				t.Fatal("unchanged text was rewritten")
			}
		})
	}
}

func TestDisallowOurToolsRemovesOnlyOurs(t *testing.T) {
	out, changed, err := DisallowOurTools([]byte(`{"permissions":{"allow":["mcp__lets","Edit"]},"hooks":{}}`))
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	var got map[string]any
	_ = json.Unmarshal(out, &got)
	if !reflect.DeepEqual(got, map[string]any{"permissions": map[string]any{"allow": []any{"Edit"}}, "hooks": map[string]any{}}) {
		t.Fatalf("got %v", got)
	}
	out, changed, err = DisallowOurTools([]byte(`{"permissions":{"allow":["mcp__lets"]},"model":"m"}`))
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	got = nil
	_ = json.Unmarshal(out, &got)
	if !reflect.DeepEqual(got, map[string]any{"model": "m"}) {
		t.Fatalf("emptied permissions should go: %v", got)
	}
}

func TestAllowOurToolsRefusesOtherShapes(t *testing.T) {
	for _, in := range []string{`[]`, `{"permissions":[]}`, `{"permissions":{"allow":"mcp__lets"}}`, `{"permissions":{},"permissions":{}}`, `{bad`} {
		if _, _, err := AllowOurTools([]byte(in)); !errors.Is(err, ErrInvalidSettings) {
			t.Errorf("%s: %v, want a settings error", in, err)
		}
	}
}

// FuzzAllowOurTools: for any bytes, the allow editor never panics; a
// refused file is a *SettingsError; an allowed file is JSON that holds the
// rule, allows again to itself, and disallows to a file without it.
func FuzzAllowOurTools(f *testing.F) {
	for _, seed := range []string{"", "{}", `{"permissions":{"allow":["Edit","mcp__lets"]}}`, `{"permissions":{"allow":[1,null]}}`, `{"permissions":null}`, "[]", `{"a":1,"a":2}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, err := AllowOurTools(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidSettings) {
				t.Fatalf("not a *SettingsError: %v", err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON out: %q", out)
		}
		if again, changed, err := AllowOurTools(out); err != nil || changed || string(again) != string(out) {
			t.Fatalf("allowing twice changed it: %v %v", changed, err)
		}
		back, _, err := DisallowOurTools(out)
		if err != nil {
			t.Fatalf("disallow: %v", err)
		}
		// Maps, not a struct: Claude Code reads JSON keys exactly, and
		// Go's struct decoding would take "Allow" for "allow" (a file
		// with "Allow" holds no allow rule for Claude Code, and the
		// editor rightly leaves it alone).
		var v map[string]any
		_ = json.Unmarshal(back, &v)
		perms, _ := v["permissions"].(map[string]any)
		allow, _ := perms["allow"].([]any)
		for _, r := range allow {
			if r == OurToolsRule {
				t.Fatalf("rule left after disallow: %s", back)
			}
		}
	})
}
