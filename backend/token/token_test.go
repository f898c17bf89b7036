package token

import (
	"encoding/base64"
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
