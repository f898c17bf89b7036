package textsafe

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

func TestEscapeJSONControls(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", `{"a":"b"}`, `{"a":"b"}`},
		{"NEL", "{\"t\":\"a\u0085b\"}", `{"t":"a\u0085b"}`},
		{"other C1 and DEL", "[\"\u0080\u009b\u009f\x7f\"]", `["\u0080\u009b\u009f\u007f"]`},
		{"separators", "\"\u2028\u2029\"", `"\u2028\u2029"`},
		{"bidi", "\"\u202e\u2066\u200f\u061c\"", `"\u202e\u2066\u200f\u061c"`},
		{"others kept", "\"é\u00a0\u4e2d😀\"", "\"é\u00a0\u4e2d😀\""},
		{"invalid UTF-8 kept byte for byte", "\"\xff\xc2\"", "\"\xff\xc2\""},
		{"a cut sequence kept", "\"\xc2", "\"\xc2"},
	} {
		got := string(EscapeJSONControls([]byte(c.in)))
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// Nothing to escape: the same slice, no copy.
	in := []byte(`{"plain":true}`)
	if out := EscapeJSONControls(in); &out[0] != &in[0] {
		t.Error("a clean input was copied")
	}
}

// FuzzEscapeJSONControls: for any valid JSON, the output is valid JSON
// with the same value, and holds none of the escaped characters raw.
func FuzzEscapeJSONControls(f *testing.F) {
	for _, s := range []string{
		`{"a":"b"}`,
		"{\"t\":\"line\u0085forged\"}",
		"[\"\u202eevil\u202c\",\"\u2028\",1,null]",
		"\"\x7f\u0080\u009f\"",
		"{\"k\u0085\":{\"n\":[true,false,\"\u2066\u2069\"]}}",
		`"\u0085 already escaped"`,
		"\"\xff\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out := EscapeJSONControls(data)
		if !json.Valid(data) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%q became invalid JSON %q", data, out)
		}
		var before, after any
		if err := json.Unmarshal(data, &before); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("%q decodes to %#v, its escaped form %q to %#v", data, before, out, after)
		}
		for i := 0; i < len(out); {
			r, size := utf8.DecodeRune(out[i:])
			if IsJSONControl(r) {
				t.Fatalf("%q still holds %U raw at %d", out, r, i)
			}
			i += size
		}
	})
}
