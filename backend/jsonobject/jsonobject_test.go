package jsonobject

import (
	"encoding/json"
	"errors"
	"io"
	"testing"
)

func keys(o Object) []string {
	var out []string
	for _, m := range o {
		out = append(out, m.Key)
	}
	return out
}

func TestParseKeepsOrderAndValuesAsWritten(t *testing.T) {
	o, err := Parse([]byte(`{"z": 1, "a": {"x" : [1, 2]}, "m": "s", "a": true}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(o); len(got) != 4 || got[0] != "z" || got[1] != "a" || got[2] != "m" || got[3] != "a" {
		t.Fatalf("keys %v, want z a m a", got)
	}
	if string(o[1].Value) != `{"x" : [1, 2]}` {
		t.Fatalf("value not kept as written: %s", o[1].Value)
	}
	if _, err := o.Index("a"); !errors.As(err, new(*DuplicateKeyError)) || err.Error() != `"a" appears twice` {
		t.Fatalf("Index of a repeated key: %v", err)
	}
	if i, err := o.Index("m"); i != 2 || err != nil {
		t.Fatalf("Index(m) = %d, %v", i, err)
	}
	if i, err := o.Index("none"); i != -1 || err != nil {
		t.Fatalf("Index(none) = %d, %v", i, err)
	}
	u := o.Unique()
	if got := keys(u); len(got) != 3 || got[1] != "a" || string(u[1].Value) != "true" {
		t.Fatalf("Unique: %s", u.Encode())
	}
	if string(o[1].Value) != `{"x" : [1, 2]}` {
		t.Fatal("Unique changed its receiver")
	}
}

func TestParseErrors(t *testing.T) {
	for in, check := range map[string]func(error) bool{
		`[]`:    func(err error) bool { return errors.Is(err, ErrNotObject) },
		`null`:  func(err error) bool { return errors.Is(err, ErrNotObject) },
		`"x"`:   func(err error) bool { return errors.Is(err, ErrNotObject) },
		`{} {}`: func(err error) bool { var te *TrailingError; return errors.As(err, &te) && te.Err == nil },
		`{} x`: func(err error) bool {
			return errors.As(err, new(*json.SyntaxError)) && errors.As(err, new(*TrailingError))
		},
		`{"a": "b`:  func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) },
		`{"a": 1,}`: func(err error) bool { return errors.As(err, new(*json.SyntaxError)) },
		``:          func(err error) bool { return errors.Is(err, io.EOF) },
	} {
		o, err := Parse([]byte(in))
		if o != nil || !check(err) {
			t.Errorf("Parse(%q) = %v, %v", in, o, err)
		}
	}
	if o, err := Parse([]byte(` { } `)); err != nil || o == nil || len(o) != 0 {
		t.Fatalf("empty object: %#v, %v", o, err)
	}
}

func TestEditAndEncode(t *testing.T) {
	o, err := Parse([]byte(`{"b": 1, "a": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	set := o.Set("a", json.RawMessage(`3`)).Set("c", json.RawMessage(`"<x>"`))
	if got := string(set.Encode()); got != `{"b":1,"a":3,"c":"<x>"}` {
		t.Fatalf("Encode after Set = %s", got)
	}
	if got := string(o.Encode()); got != `{"b":1,"a":2}` {
		t.Fatalf("Set changed its receiver: %s", got)
	}
	if got := string(set.Without("b").Encode()); got != `{"a":3,"c":"<x>"}` {
		t.Fatalf("Without = %s", got)
	}
	if v, ok := set.Get("c"); !ok || string(v) != `"<x>"` {
		t.Fatalf("Get(c) = %s, %v", v, ok)
	}
	if _, ok := set.Get("none"); ok {
		t.Fatal("Get of a missing key")
	}
	if got := string(Object{}.Encode()); got != `{}` {
		t.Fatalf("empty Encode = %s", got)
	}
	if got := string(Object{{Key: "a\"b", Value: json.RawMessage(`1`)}}.Encode()); got != `{"a\"b":1}` {
		t.Fatalf("key not quoted: %s", got)
	}
}

func FuzzParseEncode(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":{"b":[1,{"c":null}]},"a":2}`, `[1]`, `{"a":1} x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := Parse(data)
		if err != nil {
			return
		}
		enc := o.Encode()
		if !json.Valid(enc) {
			t.Fatalf("Encode gave invalid JSON %q from %q", enc, data)
		}
		again, err := Parse(enc)
		if err != nil || len(again) != len(o) {
			t.Fatalf("re-parse of %q: %d members, %v; want %d", enc, len(again), err, len(o))
		}
		for i := range o {
			if again[i].Key != o[i].Key {
				t.Fatalf("key %d: %q, want %q", i, again[i].Key, o[i].Key)
			}
		}
	})
}
