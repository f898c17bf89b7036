package manifest

import "errors"

// Version is a semantic version (semver 2.0.0).
type Version struct {
	Major, Minor, Patch int
	Pre                 []string // dot-separated prerelease identifiers
	Build               string
}

// ParseVersion parses "1.2.3", "1.2.3-rc.1+build".
func ParseVersion(s string) (Version, error) { return Version{}, errors.New("not implemented yet") }

// Compare orders versions by semver precedence (build metadata ignored).
func (v Version) Compare(w Version) int { return 0 }

// Range is a parsed version range: comparator sets joined by "||", each a
// space-separated AND of >=, >, <=, <, =, ^, ~ or bare versions (partial
// versions like "1.2" are allowed).
type Range struct {
	sets [][]comparator
	text string
}

type comparator struct {
	op string
	v  Version
}

// ParseRange parses an engine range such as ">=0.1.0" or "^1.2 <1.5".
func ParseRange(s string) (Range, error) { return Range{}, errors.New("not implemented yet") }

// Contains reports whether v is in the range.
func (r Range) Contains(v Version) bool { return false }

// String is the range as written.
func (r Range) String() string { return r.text }
