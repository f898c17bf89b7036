// Package token makes and compares secret tokens.
package token

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
)

// New returns 32 random bytes, base64url without padding.
func New() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make a random token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// Equal compares a presented token with the expected one in constant time.
// An empty expected token never matches.
func Equal(presented, expected string) bool {
	if expected == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(presented), []byte(expected)) == 1
}
