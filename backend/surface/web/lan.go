package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
)

// LAN configures the LAN listener (§2.3, §2.4).
type LAN struct {
	// Bind is the private LAN IPv4 address the listener binds (never
	// 0.0.0.0). ResolveLAN finds it from --bind-host or by discovery.
	Bind netip.Addr
	// AdvertiseHost is the host in the LAN base URL and the only non-loopback
	// name accepted in Host: a hostname or private IPv4 as the user typed
	// it, or "" for Bind.
	AdvertiseHost string
}

// Resolver looks up and discovers addresses for ResolveLAN; nil fields use
// the system (DNS/hosts for LookupIPv4; a UDP "connect" towards
// 192.0.2.1:9, which sends nothing, then the host name's addresses for
// Discover).
type Resolver struct {
	LookupIPv4 func(ctx context.Context, host string) ([]netip.Addr, error)
	Discover   func(ctx context.Context) []netip.Addr
}

// Errors of the LAN options, for errors.Is.
var (
	ErrLANOption   = errors.New("invalid LAN option")
	ErrNoLANAddr   = errors.New("could not discover a private LAN address; pass --bind-host")
	ErrLANResolve  = errors.New("could not resolve LAN host")
	ErrLANNotHTTP  = errors.New("advertised LAN URL must be an HTTP origin")
	ErrLANNotLocal = errors.New("advertised LAN address must be a private address")
)

// ResolveLAN turns --bind-host and --advertise-host (either may be "") into
// the LAN listener's address and advertised host (§2.4). Messages are the
// reference's, e.g. "--bind-host must be a private LAN IPv4 address".
func ResolveLAN(ctx context.Context, bindHost, advertiseHost string, r Resolver) (*LAN, error) {
	if r.LookupIPv4 == nil {
		r.LookupIPv4 = systemLookupIPv4
	}
	if r.Discover == nil {
		r.Discover = systemDiscover
	}
	lan := &LAN{}
	if advertiseHost != "" {
		if _, err := resolveOption(ctx, "--advertise-host", advertiseHost, r); err != nil {
			return nil, err
		}
		lan.AdvertiseHost = advertiseHost
	}
	if bindHost != "" {
		a, err := resolveOption(ctx, "--bind-host", bindHost, r)
		if err != nil {
			return nil, err
		}
		lan.Bind = a
		return lan, nil
	}
	for _, a := range r.Discover(ctx) {
		if IsPrivateLAN(a) {
			lan.Bind = a.Unmap()
			return lan, nil
		}
	}
	return nil, ErrNoLANAddr
}

func resolveOption(ctx context.Context, option, v string, r Resolver) (netip.Addr, error) {
	if v == "" || strings.ContainsAny(v, "/@[]:?#") || strings.IndexFunc(v, isSpace) >= 0 {
		return netip.Addr{}, fmt.Errorf("%w: %s must be a bare private IPv4 address or hostname", ErrLANOption, option)
	}
	if a, err := netip.ParseAddr(v); err == nil {
		if !IsPrivateLAN(a) {
			return netip.Addr{}, fmt.Errorf("%w: %s must be a private LAN IPv4 address", ErrLANOption, option)
		}
		return a, nil
	}
	addrs, err := r.LookupIPv4(ctx, v)
	if err != nil || len(addrs) == 0 {
		return netip.Addr{}, fmt.Errorf("%w: could not resolve %s '%s'", ErrLANResolve, option, v)
	}
	for _, a := range addrs {
		if IsPrivateLAN(a) {
			return a.Unmap(), nil
		}
	}
	return netip.Addr{}, fmt.Errorf("%w: %s must resolve to a private LAN address", ErrLANOption, option)
}

func isSpace(r rune) bool {
	return r <= ' ' || r == 0x7f || r == 0x85 || r == 0xa0 || r == 0x1680 || (r >= 0x2000 && r <= 0x200a) || r == 0x2028 || r == 0x2029 || r == 0x202f || r == 0x205f || r == 0x3000
}

// pythonPrivate4 is Python ipaddress's IPv4 "private" set (IANA not
// globally reachable), which §2.4 and §2.5 use.
var pythonPrivate4 = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.0.0.0/29"),
	netip.MustParsePrefix("192.0.0.170/31"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("255.255.255.255/32"),
}

// privateV6 are the IPv6 ranges accepted as an advertised IP literal:
// unique local, link-local and documentation.
var privateV6 = []netip.Prefix{
	netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("fe80::/10"),
	netip.MustParsePrefix("2001:db8::/32"),
}

func inPrefixes(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// IsPrivateLAN reports whether a is a private LAN IPv4 a LAN listener may
// bind (§2.4): RFC 1918 and the documentation, benchmark and reserved
// ranges, but never loopback, link-local, 0.0.0.0/8, the broadcast address,
// CGNAT (100.64.0.0/10) or a public address.
func IsPrivateLAN(a netip.Addr) bool {
	a = a.Unmap()
	if !a.Is4() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsUnspecified() {
		return false
	}
	if netip.MustParsePrefix("0.0.0.0/8").Contains(a) || a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return false
	}
	return inPrefixes(a, pythonPrivate4)
}

// advertisableIP is configure_lan's rule for an IP literal (§2.5): private,
// not loopback, not unspecified (link-local passes).
func advertisableIP(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() || a.IsUnspecified() {
		return false
	}
	if a.Is4() {
		return inPrefixes(a, pythonPrivate4)
	}
	return inPrefixes(a, privateV6)
}

// lanOrigin is a checked configure_lan base URL.
type lanOrigin struct {
	base string // as given, without trailing "/"
	host string // lower-cased hostname (IPv6 without brackets)
}

// parseLANBaseURL checks a LAN base URL against §2.5 for a server bound to
// port.
func parseLANBaseURL(raw string, port int) (lanOrigin, error) {
	if strings.IndexFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return lanOrigin{}, ErrLANNotHTTP
	}
	scheme, rest, ok := strings.Cut(raw, ":")
	if !ok || !strings.EqualFold(scheme, "http") || !strings.HasPrefix(rest, "//") {
		return lanOrigin{}, ErrLANNotHTTP
	}
	rest = rest[2:]
	end := strings.IndexAny(rest, "/?#")
	netloc, tail := rest, ""
	if end >= 0 {
		netloc, tail = rest[:end], rest[end:]
	}
	path, query, frag := tail, "", ""
	if i := strings.IndexByte(path, '#'); i >= 0 {
		path, frag = path[:i], path[i+1:]
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path, query = path[:i], path[i+1:]
	}
	if (path != "" && path != "/") || query != "" || frag != "" || strings.Contains(netloc, "@") {
		return lanOrigin{}, ErrLANNotHTTP
	}
	host, p, ok := splitAuthority(netloc)
	if !ok || host == "" || p != port {
		return lanOrigin{}, ErrLANNotHTTP
	}
	if a, err := netip.ParseAddr(host); err == nil && !advertisableIP(a) {
		return lanOrigin{}, ErrLANNotLocal
	}
	return lanOrigin{base: strings.TrimRight(raw, "/"), host: host}, nil
}

// splitAuthority parses host[:port] as a URL authority: the hostname
// lower-cased (brackets of an IPv6 literal removed), the port (80 when
// absent or empty). ok is false for a bad port or malformed brackets.
func splitAuthority(s string) (host string, port int, ok bool) {
	portStr := ""
	if strings.HasPrefix(s, "[") {
		i := strings.IndexByte(s, ']')
		if i < 0 {
			return "", 0, false
		}
		host, rest := s[1:i], s[i+1:]
		if rest != "" {
			if rest[0] != ':' {
				return "", 0, false
			}
			portStr = rest[1:]
		}
		if _, err := netip.ParseAddr(host); err != nil {
			return "", 0, false
		}
		s = host
	} else if i := strings.LastIndexByte(s, ':'); i >= 0 {
		s, portStr = s[:i], s[i+1:]
		if strings.ContainsRune(s, ':') {
			return "", 0, false
		}
	}
	port = 80
	if portStr != "" {
		if len(portStr) > 5 {
			return "", 0, false
		}
		for _, c := range portStr {
			if c < '0' || c > '9' {
				return "", 0, false
			}
		}
		n, err := strconv.Atoi(portStr)
		if err != nil || n > 65535 {
			return "", 0, false
		}
		port = n
	}
	return strings.ToLower(s), port, true
}

func systemLookupIPv4(ctx context.Context, host string) ([]netip.Addr, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return net.DefaultResolver.LookupNetIP(ctx, "ip4", host)
}

func systemDiscover(ctx context.Context) []netip.Addr {
	var out []netip.Addr
	// A UDP "connect" only asks the routing table; no packet is sent.
	if c, err := net.Dial("udp4", "192.0.2.1:9"); err == nil {
		if ua, ok := c.LocalAddr().(*net.UDPAddr); ok {
			if a, ok := netip.AddrFromSlice(ua.IP); ok {
				out = append(out, a.Unmap())
			}
		}
		c.Close()
	}
	if name, err := os.Hostname(); err == nil {
		if as, err := systemLookupIPv4(ctx, name); err == nil {
			out = append(out, as...)
		}
	}
	return out
}
