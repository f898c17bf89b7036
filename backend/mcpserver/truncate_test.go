package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateStrings(t *testing.T) {
	v, err := decodeJSON([]byte(`{"a":"` + strings.Repeat("ß", 50) + `","n":12345678901234567890,"l":["short","` + strings.Repeat("x", 30) + `"],"` + strings.Repeat("k", 40) + `":true}`))
	if err != nil {
		t.Fatal(err)
	}
	out, cut := truncateStrings(v, 10)
	if cut != 3 {
		t.Fatalf("cut %d strings, want 3 (a, l[1], the long key)", cut)
	}
	got := string(encodeJSON(out))
	for _, want := range []string{`"a":"ßßßßßßßßßß…[truncated 40 chars]"`, `"n":12345678901234567890`, `"short"`, `"xxxxxxxxxx…[truncated 20 chars]"`, `"kkkkkkkkkk…[truncated 30 chars]":true`} {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks %s", got, want)
		}
	}
	// The input is left alone.
	if m := v.(map[string]any); m["a"] != strings.Repeat("ß", 50) {
		t.Fatal("truncateStrings changed its input")
	}
}

func TestFitJSON(t *testing.T) {
	small := []byte(`{"a":1}`)
	if out, cut, ok := fitJSON(small, 100); !ok || cut != 0 || string(out) != string(small) {
		t.Fatalf("a small value changed: %s", out)
	}
	big := encodeJSON(map[string]any{"guide": strings.Repeat("g", 30000), "name": "hello"})
	out, cut, ok := fitJSON(big, 5000)
	if !ok || cut != 1 || chars(out) > 5000 || !strings.Contains(string(out), `"name":"hello"`) {
		t.Fatalf("fit: ok %v cut %d len %d", ok, cut, chars(out))
	}
	var m map[string]string
	if err := json.Unmarshal(out, &m); err != nil || !strings.HasSuffix(m["guide"], "…[truncated 26000 chars]") {
		t.Fatalf("guide cut to %q… (%v)", m["guide"][:20], err)
	}
	// Too many fields to ever fit: reported, not looped over.
	many := map[string]any{}
	for i := range 2000 {
		many[strings.Repeat("k", 5)+string(rune('a'+i%26))+strings.Repeat("z", i/26)] = i
	}
	if _, _, ok := fitJSON(encodeJSON(many), 500); ok {
		t.Fatal("2000 keys cannot fit in 500 chars")
	}
}

func TestDecodeJSONRefusesJunk(t *testing.T) {
	for _, s := range []string{``, `{`, `{"a":1} x`, strings.Repeat("[", 100) + strings.Repeat("]", 100)} {
		if _, err := decodeJSON([]byte(s)); err == nil {
			t.Errorf("%q decoded", s)
		}
	}
}

func TestFitEventKeepsEveryEventUnderBudget(t *testing.T) {
	// An event with many fields gets its data left out, with a note.
	data := map[string]any{}
	for i := range 3000 {
		data["field"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+strings.Repeat("y", i/26)] = "v"
	}
	raw := encodeJSON(map[string]any{"seq": 9, "type": "a.b", "win": "w1", "data": data})
	js, line, cut := fitEvent(raw, 2000)
	if chars(js)+utf8.RuneCountInString(line)+2 > 2000 || cut == 0 || !strings.Contains(string(js), "too large to show") || !strings.Contains(line, "#9 w1 a.b") {
		t.Fatalf("fitEvent: %d chars, cut %d: %s / %s", chars(js)+len(line), cut, js, line)
	}
}

// FuzzTruncate: for any JSON the walker returns valid JSON in which no
// string is longer than the cap plus its marker, and fitJSON never goes
// over its budget when it says it fits. Event lines never panic.
func FuzzTruncate(f *testing.F) {
	f.Add([]byte(`{"seq":1,"type":"hello.note","win":"w1","data":{"text":"hi"}}`), uint16(5))
	f.Add([]byte(`["`+strings.Repeat("é", 300)+`",{"k":null,"n":1.5e300}]`), uint16(100))
	f.Add([]byte(`"\ud800 lone surrogate"`), uint16(3))
	f.Add([]byte(`{"a":{"b":{"c":[1,2,{"d":"`+strings.Repeat("q", 50)+`"}]}}}`), uint16(0))
	f.Fuzz(func(t *testing.T, raw []byte, limit uint16) {
		lim := int(limit % 2000)
		v, err := decodeJSON(raw)
		if err != nil {
			return
		}
		out, _ := truncateStrings(v, lim)
		enc := encodeJSON(out)
		if !json.Valid(enc) {
			t.Fatalf("invalid JSON out: %s", enc)
		}
		check(t, out, lim)
		budget := lim*4 + 50
		fitted, _, ok := fitJSON(raw, budget)
		if ok && chars(fitted) > budget {
			t.Fatalf("fitJSON said it fits in %d but gave %d chars", budget, chars(fitted))
		}
		if ok && !json.Valid(fitted) {
			t.Fatalf("fitJSON gave invalid JSON: %s", fitted)
		}
		js, line, _ := fitEvent(raw, 3000)
		if !json.Valid(js) || chars(js)+utf8.RuneCountInString(line)+2 > 3000 {
			t.Fatalf("fitEvent over budget or invalid: %d + %d", chars(js), len(line))
		}
	})
}

// check walks a truncated value: every string and key is at most limit
// characters plus a marker.
func check(t *testing.T, v any, limit int) {
	t.Helper()
	max := limit + utf8.RuneCountInString(truncatedMarker(1<<40))
	switch x := v.(type) {
	case string:
		if n := utf8.RuneCountInString(x); n > max {
			t.Fatalf("a string of %d chars survived a cap of %d", n, limit)
		}
	case map[string]any:
		for k, e := range x {
			if n := utf8.RuneCountInString(k); n > max+8 {
				t.Fatalf("a key of %d chars survived a cap of %d", n, limit)
			}
			check(t, e, limit)
		}
	case []any:
		for _, e := range x {
			check(t, e, limit)
		}
	}
}
