package lip

import "strings"

// reservedDomains are the domains no manifest may declare (spec §3).
var reservedDomains = [...]string{"lip", "session", "entity", "chat", "component", "media", "ui", "shell", "host", "clipboard", "window"}

// ReservedDomains lists the reserved domains of spec §3 in spec order.
func ReservedDomains() []string { return append([]string(nil), reservedDomains[:]...) }

// IsReservedDomain reports whether d is a reserved domain.
func IsReservedDomain(d string) bool {
	for _, r := range reservedDomains {
		if r == d {
			return true
		}
	}
	return false
}

// DomainOf is the domain of a type: everything before the first dot.
func DomainOf(typ string) string {
	if i := strings.IndexByte(typ, '.'); i >= 0 {
		return typ[:i]
	}
	return typ
}

// IsReservedType reports whether typ belongs to a reserved domain.
func IsReservedType(typ string) bool { return IsReservedDomain(DomainOf(typ)) }

// InDomain reports whether typ starts with "<domain>." for one of domains.
func InDomain(typ string, domains []string) bool {
	for _, d := range domains {
		if len(typ) > len(d) && typ[len(d)] == '.' && strings.HasPrefix(typ, d) {
			return true
		}
	}
	return false
}
