package manifest

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// Version is a semantic version (semver 2.0.0).
type Version struct {
	Major, Minor, Patch int
	// Pre holds the dot-separated prerelease identifiers ("rc", "1").
	Pre []string
	// Build is the build metadata after '+'; it never affects order.
	Build string
}

// maxVersionLen bounds what ParseVersion and ParseRange read.
const maxVersionLen = 256

// ParseVersion parses a full version: "1.2.3", "1.2.3-rc.1+build.5". A
// leading "v" is accepted.
func ParseVersion(s string) (Version, error) {
	v, parts, err := parsePartial(s)
	if err != nil {
		return Version{}, err
	}
	if parts < 3 {
		return Version{}, fmt.Errorf("version %q needs three numbers, like 1.2.3", s)
	}
	return v, nil
}

// parsePartial parses "1", "1.2", "1.2.3[-pre][+build]" and reports how
// many numbers were given. "x", "X" and "*" end a partial version.
func parsePartial(s string) (Version, int, error) {
	if len(s) > maxVersionLen {
		return Version{}, 0, fmt.Errorf("version is longer than %d characters", maxVersionLen)
	}
	orig := s
	s = strings.TrimPrefix(s, "v")
	var v Version
	if i := strings.IndexByte(s, '+'); i >= 0 {
		v.Build = s[i+1:]
		s = s[:i]
		if !validIdents(v.Build, false) {
			return Version{}, 0, fmt.Errorf("version %q: build metadata must be dot-separated [0-9A-Za-z-]", orig)
		}
	}
	if i := strings.IndexByte(s, '-'); i >= 0 {
		pre := s[i+1:]
		s = s[:i]
		if !validIdents(pre, true) {
			return Version{}, 0, fmt.Errorf("version %q: prerelease must be dot-separated [0-9A-Za-z-] without leading zeros", orig)
		}
		v.Pre = strings.Split(pre, ".")
	}
	nums := strings.Split(s, ".")
	if len(nums) > 3 || s == "" {
		return Version{}, 0, fmt.Errorf("version %q should look like 1.2.3", orig)
	}
	parts := 0
	for i, n := range nums {
		if n == "x" || n == "X" || n == "*" {
			// A wildcard ends the version; nothing may follow it except
			// more wildcards.
			for _, rest := range nums[i+1:] {
				if rest != "x" && rest != "X" && rest != "*" {
					return Version{}, 0, fmt.Errorf("version %q: a number after a wildcard", orig)
				}
			}
			break
		}
		val, err := parseNumber(n)
		if err != nil {
			return Version{}, 0, fmt.Errorf("version %q: %w", orig, err)
		}
		switch i {
		case 0:
			v.Major = val
		case 1:
			v.Minor = val
		case 2:
			v.Patch = val
		}
		parts++
	}
	if parts < 3 && (v.Pre != nil || v.Build != "") {
		return Version{}, 0, fmt.Errorf("version %q: a prerelease needs all three numbers", orig)
	}
	return v, parts, nil
}

func parseNumber(n string) (int, error) {
	if n == "" {
		return 0, fmt.Errorf("empty number")
	}
	if len(n) > 1 && n[0] == '0' {
		return 0, fmt.Errorf("number %q has a leading zero", n)
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a number", n)
		}
	}
	val, err := strconv.Atoi(n)
	if err != nil || val > 1<<30 {
		return 0, fmt.Errorf("number %q is too large", n)
	}
	return val, nil
}

func validIdents(s string, noLeadingZero bool) bool {
	if s == "" {
		return false
	}
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		numeric := true
		for _, c := range id {
			switch {
			case c >= '0' && c <= '9':
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '-':
				numeric = false
			default:
				return false
			}
		}
		if noLeadingZero && numeric && len(id) > 1 && id[0] == '0' {
			return false
		}
	}
	return true
}

// String renders the version.
func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if len(v.Pre) > 0 {
		s += "-" + strings.Join(v.Pre, ".")
	}
	if v.Build != "" {
		s += "+" + v.Build
	}
	return s
}

// Release is v without prerelease and build metadata.
func (v Version) Release() Version { return Version{Major: v.Major, Minor: v.Minor, Patch: v.Patch} }

// Compare orders versions by semver precedence (build metadata ignored):
// -1 if v < w, 0 if equal, +1 if v > w.
func (v Version) Compare(w Version) int {
	if c := cmp.Compare(v.Major, w.Major); c != 0 {
		return c
	}
	if c := cmp.Compare(v.Minor, w.Minor); c != 0 {
		return c
	}
	if c := cmp.Compare(v.Patch, w.Patch); c != 0 {
		return c
	}
	// A version without prerelease ranks above one with.
	switch {
	case len(v.Pre) == 0 && len(w.Pre) == 0:
		return 0
	case len(v.Pre) == 0:
		return 1
	case len(w.Pre) == 0:
		return -1
	}
	for i := 0; i < len(v.Pre) && i < len(w.Pre); i++ {
		if c := compareIdent(v.Pre[i], w.Pre[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(v.Pre), len(w.Pre))
}

func compareIdent(a, b string) int {
	an, aErr := strconv.Atoi(a)
	bn, bErr := strconv.Atoi(b)
	switch {
	case aErr == nil && bErr == nil:
		return cmp.Compare(an, bn)
	case aErr == nil: // numeric identifiers rank below alphanumeric ones
		return -1
	case bErr == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// Range is a parsed version range: comparator sets joined by "||", each a
// space-separated AND of >=, >, <=, <, =, ^, ~ or bare versions. Partial
// versions are allowed ("^1.2", ">=1", "1.2.x").
type Range struct {
	sets [][]comparator
	text string
}

type comparator struct {
	op string // one of >=, >, <=, <
	v  Version
}

func (c comparator) matches(v Version) bool {
	d := v.Compare(c.v)
	switch c.op {
	case ">=":
		return d >= 0
	case ">":
		return d > 0
	case "<=":
		return d <= 0
	case "<":
		return d < 0
	}
	return false
}

// ParseRange parses an engine range such as ">=0.1.0", "^1.2 <1.5" or
// "~0.3 || >=1.0.0".
func ParseRange(s string) (Range, error) {
	if len(s) > maxVersionLen {
		return Range{}, fmt.Errorf("range is longer than %d characters", maxVersionLen)
	}
	r := Range{text: s}
	for _, alt := range strings.Split(s, "||") {
		fields := strings.Fields(alt)
		if len(fields) == 0 {
			return Range{}, fmt.Errorf("range %q has an empty part; write e.g. \">=0.1.0\"", s)
		}
		var set []comparator
		for i := 0; i < len(fields); i++ {
			f := fields[i]
			// Allow ">= 1.2.3" (operator and version apart).
			if isOperator(f) && i+1 < len(fields) {
				f += fields[i+1]
				i++
			}
			cs, err := parseComparator(f)
			if err != nil {
				return Range{}, fmt.Errorf("range %q: %w", s, err)
			}
			set = append(set, cs...)
		}
		r.sets = append(r.sets, set)
	}
	return r, nil
}

func isOperator(s string) bool {
	switch s {
	case ">=", ">", "<=", "<", "=", "^", "~":
		return true
	}
	return false
}

// parseComparator expands one token into plain comparators.
func parseComparator(tok string) ([]comparator, error) {
	op := ""
	for _, p := range []string{">=", "<=", ">", "<", "=", "^", "~"} {
		if strings.HasPrefix(tok, p) {
			op, tok = p, tok[len(p):]
			break
		}
	}
	if tok == "*" || tok == "x" || tok == "X" {
		if op == "" || op == "=" || op == ">=" || op == "<=" || op == "^" || op == "~" {
			return nil, nil // any version
		}
		return nil, fmt.Errorf("%q%s matches nothing", op, tok)
	}
	v, parts, err := parsePartial(tok)
	if err != nil {
		return nil, err
	}
	if parts == 0 {
		return nil, nil
	}
	// upper is the first version past the given precision: 1 → 2.0.0,
	// 1.2 → 1.3.0, 1.2.3 → 1.2.4.
	upper := func() Version {
		switch parts {
		case 1:
			return Version{Major: v.Major + 1}
		case 2:
			return Version{Major: v.Major, Minor: v.Minor + 1}
		}
		return Version{Major: v.Major, Minor: v.Minor, Patch: v.Patch + 1}
	}
	lower := v
	switch op {
	case ">=":
		return []comparator{{">=", lower}}, nil
	case "<":
		return []comparator{{"<", lower}}, nil
	case ">":
		if parts < 3 {
			return []comparator{{">=", upper()}}, nil
		}
		return []comparator{{">", v}}, nil
	case "<=":
		if parts < 3 {
			return []comparator{{"<", upper()}}, nil
		}
		return []comparator{{"<=", v}}, nil
	case "", "=":
		if parts < 3 {
			return []comparator{{">=", lower}, {"<", upper()}}, nil
		}
		return []comparator{{">=", v}, {"<=", v}}, nil
	case "~":
		// ~1.2.3 and ~1.2 allow patch changes; ~1 allows minor changes.
		if parts == 1 {
			return []comparator{{">=", lower}, {"<", Version{Major: v.Major + 1}}}, nil
		}
		return []comparator{{">=", lower}, {"<", Version{Major: v.Major, Minor: v.Minor + 1}}}, nil
	case "^":
		// ^ allows changes that do not modify the left-most non-zero
		// number among those given.
		var hi Version
		switch {
		case v.Major > 0 || parts == 1:
			hi = Version{Major: v.Major + 1}
		case v.Minor > 0 || parts == 2:
			hi = Version{Minor: v.Minor + 1}
		default:
			hi = Version{Patch: v.Patch + 1}
		}
		return []comparator{{">=", lower}, {"<", hi}}, nil
	}
	return nil, fmt.Errorf("unknown operator in %q", tok)
}

// Contains reports whether v is in the range.
func (r Range) Contains(v Version) bool {
	for _, set := range r.sets {
		ok := true
		for _, c := range set {
			if !c.matches(v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// String is the range as written.
func (r Range) String() string { return r.text }
