package token

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

func TestNewIs32RandomBytes(t *testing.T) {
	a, err := New()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := New()
	raw, err := base64.RawURLEncoding.DecodeString(a)
	if err != nil || len(raw) != 32 {
		t.Fatalf("token %q: %d bytes, %v", a, len(raw), err)
	}
	if a == b {
		t.Fatal("two tokens are equal")
	}
}

func TestEqual(t *testing.T) {
	if !Equal("abc", "abc") || Equal("abc", "abd") || Equal("ab", "abc") || Equal("", "") || Equal("x", "") {
		t.Fatal("Equal is wrong")
	}
}

func TestNewUUIDIsVersion4(t *testing.T) {
	seen := map[string]bool{}
	for range 64 {
		u := NewUUID()
		if len(u) != 36 || u[8] != '-' || u[13] != '-' || u[18] != '-' || u[23] != '-' {
			t.Fatalf("%q is not in the 8-4-4-4-12 form", u)
		}
		raw, err := hex.DecodeString(strings.ReplaceAll(u, "-", ""))
		if err != nil || len(raw) != 16 {
			t.Fatalf("%q is not 16 bytes of lowercase hex: %v", u, err)
		}
		if u != strings.ToLower(u) {
			t.Fatalf("%q is not lowercase", u)
		}
		if raw[6]>>4 != 4 {
			t.Fatalf("%q: version %d, want 4", u, raw[6]>>4)
		}
		if raw[8]>>6 != 0b10 {
			t.Fatalf("%q: variant bits %02b, want 10", u, raw[8]>>6)
		}
		if seen[u] {
			t.Fatalf("%q came twice", u)
		}
		seen[u] = true
	}
}
