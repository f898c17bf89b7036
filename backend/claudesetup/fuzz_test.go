package claudesetup

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/jsonobject"
)

// othersOf flattens everything in a settings file that is not Lets': the
// top-level keys but "hooks", in order, and every hook entry of every
// event that Lets did not write, with its group's other keys. Empty lists
// and objects vanish, so "no hooks" and "hooks": {} read the same.
func othersOf(t *testing.T, data []byte, own owner) []string {
	t.Helper()
	canon := func(raw json.RawMessage) string {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("not JSON: %s", raw)
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	top := jsonobject.Object{}
	if len(data) > 0 {
		var err error
		if top, err = parseObject(data); err != nil {
			// whitespace only
			return nil
		}
	}
	var out []string
	for _, m := range top {
		if m.Key != "hooks" {
			out = append(out, fmt.Sprintf("top %q %s", m.Key, canon(m.Value)))
			continue
		}
		hooks, err := parseObject(m.Value)
		if err != nil {
			t.Fatalf("hooks is not an object: %s", m.Value)
		}
		for _, ev := range hooks {
			groups, ok := parseArray(ev.Value)
			if !ok {
				out = append(out, fmt.Sprintf("event %q %s", ev.Key, canon(ev.Value)))
				continue
			}
			for _, g := range groups {
				obj, err := parseObject(g)
				at := -1
				if err == nil {
					at, err = obj.Index("hooks")
				}
				var handlers []json.RawMessage
				if err == nil && at >= 0 {
					handlers, ok = parseArray(obj[at].Value)
				}
				if err != nil || at < 0 || !ok {
					out = append(out, fmt.Sprintf("group %q %s", ev.Key, canon(g)))
					continue
				}
				rest := append(jsonobject.Object{}, obj[:at]...)
				rest = append(rest, obj[at+1:]...)
				for _, h := range handlers {
					if !own.ours(h) {
						out = append(out, fmt.Sprintf("hook %q %s %s", ev.Key, canon(rest.Encode()), canon(h)))
					}
				}
			}
		}
	}
	return out
}

// FuzzMerge: for any bytes, Merge and Unmerge never panic; a refused file
// is a *SettingsError; a merged file holds every Lets hook, merges again
// to itself, and Unmerge gives back exactly the entries of everyone else.
func FuzzMerge(f *testing.F) {
	for _, seed := range []string{"", "{}", othersSettings, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/old/lets hook Stop"},{"type":"command","command":"say hi"}]}]}}`,
		`{"hooks":{"Stop":[]}}`, `{"hooks":{"Weird":1,"Stop":[1,{"hooks":2}]}}`, "{\"a\":1,\"a\":2}", "// x\n{}", "[]"} {
		f.Add([]byte(seed))
	}
	set := Hooks("/opt/lets/bin/lets", 120*time.Second)
	own := newOwner(set)
	f.Fuzz(func(t *testing.T, data []byte) {
		merged, _, err := Merge(data, set)
		if err != nil {
			if !errors.Is(err, ErrInvalidSettings) {
				t.Fatalf("Merge error is not a *SettingsError: %v", err)
			}
			return
		}
		if !json.Valid(merged) {
			t.Fatalf("Merge wrote invalid JSON:\n%s", merged)
		}
		hooks, err := readHooks(merged)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range Events() {
			found := false
			for _, h := range hooks[string(e)] {
				found = found || h.Command == Command("/opt/lets/bin/lets", e)
			}
			if !found {
				t.Fatalf("%s not hooked after Merge:\n%s", e, merged)
			}
		}
		again, changed, err := Merge(merged, set)
		if err != nil || changed || string(again) != string(merged) {
			t.Fatalf("Merge is not idempotent (changed=%v err=%v):\n%s\n%s", changed, err, merged, again)
		}
		back, _, err := Unmerge(merged, set)
		if err != nil {
			t.Fatalf("Unmerge of a merged file: %v", err)
		}
		if want, got := othersOf(t, data, own), othersOf(t, back, own); !reflect.DeepEqual(want, got) {
			t.Fatalf("Unmerge(Merge(x)) changed the others' entries:\nwant %q\n got %q", want, got)
		}
	})
}
