package lip

import (
	"fmt"
	"sort"
	"strings"
)

// Theme names of ui.theme.
const (
	ThemeLight  = "light"
	ThemeDark   = "dark"
	ThemeSystem = "system"
)

// CheckThemeVar checks one ui.theme variable (spec §4.3): the name must be a
// --lets-* custom property and the value a plain CSS value: at most 200
// characters of letters, digits, spaces and # % . , ( ) + - / * _ ' " !, with
// no url(, no expression, no image-set, no @, \, ;, { or }. A refused
// variable is left out; the others still apply (checklist 39).
func CheckThemeVar(name, value string) error {
	if !strings.HasPrefix(name, "--lets-") || len(name) > 64 || len(name) == len("--lets-") {
		return fmt.Errorf("theme variable %q: only --lets-* custom properties may be set", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
			return fmt.Errorf("theme variable %q: names use a-z, 0-9 and -", name)
		}
	}
	if len(value) == 0 || len(value) > 200 {
		return fmt.Errorf("theme variable %s: the value must be 1-200 characters", name)
	}
	for i := 0; i < len(value); i++ {
		c := value[i]
		ok := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			strings.IndexByte(" #%.,()+-/*_'\"!", c) >= 0
		if !ok {
			return fmt.Errorf("theme variable %s: the character %q is not allowed in a value", name, c)
		}
	}
	lower := strings.ToLower(value)
	for _, bad := range []string{"url(", "expression", "image-set", "image(", "element(", "attr(", "src("} {
		if strings.Contains(lower, bad) {
			return fmt.Errorf("theme variable %s: %s is not allowed in a value", name, strings.TrimSuffix(bad, "("))
		}
	}
	return nil
}

// FilterTheme returns t with only the variables CheckThemeVar accepts, and
// the reasons for the refused ones (sorted by name).
func FilterTheme(t UITheme) (UITheme, []error) {
	out := UITheme{Name: t.Name}
	var refused []error
	names := make([]string, 0, len(t.Vars))
	for n := range t.Vars {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := CheckThemeVar(n, t.Vars[n]); err != nil {
			refused = append(refused, err)
			continue
		}
		if out.Vars == nil {
			out.Vars = make(map[string]string)
		}
		out.Vars[n] = t.Vars[n]
	}
	return out, refused
}
