package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"slices"
	"time"
)

// Authentication limits (§6.3, §6.4, §9).
const (
	// PairingTTL is how long a pairing PIN/secret works, in seconds.
	PairingTTL = 300.0
	// LockoutFailures failed attempts from one peer IP within LockoutWindow
	// seconds lock that IP out of every credential.
	LockoutFailures = 5
	LockoutWindow   = 60.0
	// PairingMaxFailures failed attempts (all peers) discard the pairing.
	PairingMaxFailures = 20
	// MaxAdminTokenLength bounds a configured admin token.
	MaxAdminTokenLength = 256
	// maxTrackedPeers bounds the failure history map; stale entries are
	// pruned first.
	maxTrackedPeers = 4096
)

// Pairing is a live pairing as the admin sees it (§8.2).
type Pairing struct {
	// PIN is the 6-digit code.
	PIN string
	// URL is the LAN base URL + "/#pair=" + the 32-character secret.
	URL string
	// QRDataURI is URL as an SVG QR code data URI.
	QRDataURI string
	// ExpiresIn is the whole seconds left (300 when new).
	ExpiresIn int
}

// Device is one paired browser (a session token) as the admin's device
// list shows it. It never carries the token or the peer address.
type Device struct {
	// ID is a random public id, 12 characters [A-Za-z0-9_-].
	ID string
	// Name is "Device N", N counting pairings since the server started.
	Name string
	// PairedAt is the wall-clock time of pairing.
	PairedAt time.Time
	// Connected is the number of open connections using this device's
	// token.
	Connected int
}

type pairing struct {
	pin, secret string
	created     float64
	attempts    int
	url, qr     string
}

func (p *pairing) expires() float64 { return p.created + PairingTTL }

type device struct {
	id, token string
	name      string
	pairedAt  time.Time
}

// authority is the credential policy of §6.4: the admin token, the one
// pairing, the session tokens of paired devices and the per-peer failure
// history. It is pure: time comes in as seconds on a monotonic scale, and
// the caller serialises access (one lock makes each attempt atomic).
type authority struct {
	adminToken string
	pairing    *pairing
	devices    []*device
	failures   map[string][]float64
	paired     int // devices paired since start, for names
	random     func([]byte) error
	wallNow    func() time.Time
}

func newAuthority(adminToken string, wallNow func() time.Time) *authority {
	return &authority{
		adminToken: adminToken,
		failures:   map[string][]float64{},
		random:     func(b []byte) error { _, err := rand.Read(b); return err },
		wallNow:    wallNow,
	}
}

// authResult is the outcome of one attempt.
type authResult struct {
	ok bool
	// issued is the new session token after a PIN/secret pairing.
	issued string
	// device is the paired device the credential belongs to (remote
	// successes only).
	device *device
}

func ctEqual(a, b string) bool {
	return b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// authenticate runs §6.4 for one attempt. cred is nil when the client sent
// no credential.
func (a *authority) authenticate(peer string, loopback bool, cred *string, now float64) authResult {
	if loopback {
		return authResult{ok: cred != nil && ctEqual(*cred, a.adminToken)}
	}
	if cred == nil {
		return authResult{}
	}
	if a.locked(peer, now) {
		return authResult{}
	}
	c := *cred
	var hit *device
	for _, d := range a.devices {
		if ctEqual(c, d.token) && hit == nil {
			hit = d
		}
	}
	if hit != nil {
		return authResult{ok: true, device: hit}
	}
	if p := a.pairing; p != nil && now < p.expires() {
		pinOK := ctEqual(c, p.pin)
		secretOK := ctEqual(c, p.secret)
		if pinOK || secretOK {
			tok, err := a.token(32)
			if err == nil {
				id, err2 := a.token(9)
				if err2 == nil {
					a.paired++
					d := &device{id: id, token: tok, name: fmt.Sprintf("Device %d", a.paired), pairedAt: a.wallNow()}
					a.devices = append(a.devices, d)
					a.pairing = nil
					delete(a.failures, peer)
					return authResult{ok: true, issued: tok, device: d}
				}
			}
			// No randomness: refuse without counting against the user.
			return authResult{}
		}
	}
	a.recordFailure(peer, now)
	if p := a.pairing; p != nil {
		p.attempts++
		if p.attempts >= PairingMaxFailures {
			a.pairing = nil
		}
	}
	return authResult{}
}

// locked reports whether peer has LockoutFailures failures younger than
// LockoutWindow seconds.
func (a *authority) locked(peer string, now float64) bool {
	fs := a.prune(peer, now)
	return len(fs) >= LockoutFailures
}

func (a *authority) prune(peer string, now float64) []float64 {
	fs := a.failures[peer]
	keep := fs[:0]
	for _, t := range fs {
		if now-t < LockoutWindow {
			keep = append(keep, t)
		}
	}
	if len(keep) == 0 {
		delete(a.failures, peer)
		return nil
	}
	a.failures[peer] = keep
	return keep
}

func (a *authority) recordFailure(peer string, now float64) {
	if _, ok := a.failures[peer]; !ok && len(a.failures) >= maxTrackedPeers {
		for p := range a.failures {
			a.prune(p, now)
		}
		if len(a.failures) >= maxTrackedPeers {
			// Still full of live lock-outs: forget the one whose newest
			// failure is oldest.
			oldest, at := "", math.Inf(1)
			for p, fs := range a.failures {
				if last := fs[len(fs)-1]; last < at {
					oldest, at = p, last
				}
			}
			delete(a.failures, oldest)
		}
	}
	fs := a.failures[peer]
	// Only the newest LockoutFailures matter for the lock-out.
	if len(fs) >= LockoutFailures {
		fs = slices.Delete(fs, 0, len(fs)-LockoutFailures+1)
	}
	a.failures[peer] = append(fs, now)
}

// token returns n random bytes as base64url without padding.
func (a *authority) token(n int) (string, error) {
	b := make([]byte, n)
	if err := a.random(b); err != nil {
		return "", fmt.Errorf("make a random credential: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// newPairing replaces the pairing with a fresh one (§6.5) for the LAN base
// URL; qr renders the pairing URL as a data URI.
func (a *authority) newPairing(now float64, baseURL string, qr func(string) (string, error)) (*pairing, error) {
	secret, err := a.token(24)
	if err != nil {
		return nil, err
	}
	n, err := rand.Int(randReader{a.random}, big.NewInt(1_000_000))
	if err != nil {
		return nil, fmt.Errorf("make a pairing PIN: %w", err)
	}
	p := &pairing{pin: fmt.Sprintf("%06d", n.Int64()), secret: secret, created: now}
	p.url = baseURL + "/#pair=" + secret
	if p.qr, err = qr(p.url); err != nil {
		return nil, fmt.Errorf("draw the pairing QR code: %w", err)
	}
	a.pairing = p
	return p, nil
}

type randReader struct{ fill func([]byte) error }

func (r randReader) Read(b []byte) (int, error) {
	if err := r.fill(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// pairingView returns the live pairing with its rounded remaining seconds
// (round half to even, §6.5), or false when there is none or nothing is
// left.
func (a *authority) pairingView(now float64) (Pairing, bool) {
	p := a.pairing
	if p == nil {
		return Pairing{}, false
	}
	left := math.RoundToEven(p.expires() - now)
	if left <= 0 {
		return Pairing{}, false
	}
	return Pairing{PIN: p.pin, URL: p.url, QRDataURI: p.qr, ExpiresIn: int(min(left, PairingTTL))}, true
}

// revokeAll forgets every session token and the pairing (revoke_remote,
// §6.6). Failure histories stay.
func (a *authority) revokeAll() {
	a.devices = nil
	a.pairing = nil
}

// revokeDevice forgets one device's token.
func (a *authority) revokeDevice(id string) bool {
	for i, d := range a.devices {
		if d.id == id {
			a.devices = slices.Delete(a.devices, i, i+1)
			return true
		}
	}
	return false
}

// validDeviceID is the shape of a device id (9 random bytes, base64url).
func validDeviceID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
