// Package token makes and compares secret tokens.
package token

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
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

// NewUUID returns a random (version 4, RFC 9562 variant) UUID in its
// lowercase 8-4-4-4-12 form, such as claude's --session-id takes.
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])  // crypto/rand.Read never fails (it crashes the program instead)
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // variant 10xx
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
