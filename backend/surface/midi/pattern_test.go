package midi

import (
	"regexp"
	"strings"
	"testing"
)

// portNames is a mix of real-world ALSA/CoreMIDI/Windows Launchpad port
// names and near misses.
var portNames = []string{
	"Launchpad Pro:Launchpad Pro Standalone Port 20:1",
	"Launchpad Pro:Launchpad Pro Live Port 20:0",
	"Launchpad Pro:Launchpad Pro MIDI Port 20:2",
	"Launchpad Pro Standalone Port",
	"launchpad pro standalone port",
	"LAUNCHPAD PRO STANDALONE PORT",
	"My Launchpad Pro Standalone Port",
	"LPMiniMK3 MIDI",
	"LPMiniMK3 DAW",
	"Launchpad Mini MK3:Launchpad Mini MK3 LPMiniMK3 MIDI 24:1",
	"Launchpad Mini MK3 LPMiniMK3 DAW 24:0",
	"Launchpad Mini MIDI 1",
	"LPProMK3 MIDI",
	"LPProMK3 DIN",
	"LPProMK3 DAW",
	"LPProMK3 MIDI 2",
	"LPProMK3 MIDI 20",
	"LPProMK3 DIN 20:0",
	"LPProMK3 MIDI 2 20:1",
	"LPProMK3 DAW 20:2",
	"MIDIIN2 (LPProMK3 MIDI)",
	"MIDIOUT2 (LPProMK3 MIDI)",
	"MIDIIN 2 (Launchpad Pro MK3)",
	"Launchpad Pro MK3:Launchpad Pro MK3 LPProMK3 MIDI 28:0",
	"Launchpad Pro MK3:Launchpad Pro MK3 LPProMK3 DAW 28:1",
	"Launchpad Pro MK3 MIDI DIN",
	"Launchpad Pro MK3 MIDI",
	"Midi Through:Midi Through Port-0 14:0",
	"",
}

// Our matcher agrees with Go's regexp on every bundled pattern RE2 can
// compile, and with hand-checked answers on the lookahead ones.
func TestBundledPatterns(t *testing.T) {
	lookahead := map[string]map[string]bool{
		"^(?:Launchpad Pro MK3|LPProMK3).*MIDI(?!.*(?:DAW|DIN))": {
			"LPProMK3 MIDI":              true,
			"LPProMK3 MIDI 2":            true,
			"LPProMK3 MIDI 20":           true,
			"LPProMK3 MIDI 2 20:1":       true,
			"Launchpad Pro MK3 MIDI":     true,
			"MIDIIN2 (LPProMK3 MIDI)":    false, // anchored
			"Launchpad Pro MK3 MIDI DIN": false,
			// "…LPProMK3 MIDI 28:0" matches: MIDI followed by no DAW/DIN.
			"Launchpad Pro MK3:Launchpad Pro MK3 LPProMK3 MIDI 28:0": true,
			// DAW port: the only MIDI is in "…MK3 LPProMK3 DAW"? none → false.
			"Launchpad Pro MK3:Launchpad Pro MK3 LPProMK3 DAW 28:1": false,
			"LPProMK3 DAW": false,
			"LPProMK3 DIN": false,
		},
	}
	seen := 0
	for _, id := range profileIDs {
		p := builtin(t, id)
		for side, pats := range map[string][]string{"input": p.InputPatterns, "output": p.OutputPatterns} {
			for i, src := range pats {
				m := p.InputMatchers()
				if side == "output" {
					m = p.OutputMatchers()
				}
				if m[i].String() != src {
					t.Fatalf("%s %s[%d] compiled from another source", id, side, i)
				}
				seen++
				if answers, ok := lookahead[src]; ok {
					if _, err := regexp.Compile(src); err == nil {
						t.Fatalf("RE2 unexpectedly compiles %q", src)
					}
					for name, want := range answers {
						if got := m[i].MatchString(name); got != want {
							t.Errorf("%q on %q = %v, want %v", src, name, got, want)
						}
						if got := m[i].MatchString(strings.ToLower(name)); got != want {
							t.Errorf("%q on lower %q = %v, want %v", src, name, got, want)
						}
					}
					continue
				}
				re := regexp.MustCompile("(?i)" + src)
				for _, name := range portNames {
					if got, want := m[i].MatchString(name), re.MatchString(name); got != want {
						t.Errorf("%s %s[%d] %q on %q = %v, RE2 says %v", id, side, i, src, name, got, want)
					}
				}
			}
		}
	}
	if seen != 14 {
		t.Fatalf("checked %d patterns, want 14", seen)
	}
}

// Python-dialect features beyond the bundled ones, checked against RE2
// where RE2 has the same semantics.
func TestPatternFeatures(t *testing.T) {
	same := []string{
		`a.c`, `^abc$`, `ab*c`, `ab+c`, `ab?c`, `a{2}`, `a{2,}`, `a{1,3}b`, `[a-c]+x`, `[^0-9]+`,
		`\d+`, `\D`, `\w+\s\w+`, `\bport\b`, `\Bort`, `(?:x|y)z`, `(a|b)+c`, `a.*?b`, `x{,2}y`,
		`\.`, `[\]x]`, `port\Z`, `\x41`, `[-a]`, `[a-]`, `a{x}`, `(?P<n>ab)c`, `é`,
	}
	texts := []string{"abc", "aabc", "ac", "abbbc", "a.c", "xz", "yz", "aaab", "port", "sport", "my port", "A", "x{x}", "]x", "-", "ab", "a{x}", "abc ", "É", "12 34", "xxy", "y"}
	for _, src := range same {
		m, err := CompilePattern(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		re2 := src
		if src == `x{,2}y` {
			re2 = `x{0,2}y`
		}
		if src == `port\Z` {
			re2 = `port\z`
		}
		if src == `a{x}` {
			re2 = `a\{x\}`
		}
		if src == `(?P<n>ab)c` {
			re2 = `(ab)c`
		}
		re := regexp.MustCompile("(?i)" + re2)
		for _, txt := range texts {
			if got, want := m.MatchString(txt), re.MatchString(txt); got != want {
				t.Errorf("%q on %q = %v, RE2 says %v", src, txt, got, want)
			}
		}
	}
	// Python specifics.
	if m, _ := CompilePattern(`abc$`); !m.MatchString("abc\n") {
		t.Error("$ matches before a final newline in Python")
	}
	if m, _ := CompilePattern(`a(?=b)`); !m.MatchString("ab") || m.MatchString("ac") {
		t.Error("positive lookahead")
	}
	if m, _ := CompilePattern(`(?i)LP`); !m.MatchString("lp") {
		t.Error("leading (?i)")
	}
	for _, bad := range []string{`(unclosed`, `a)`, `*a`, `a**`, `[abc`, `\1`, `(?<=a)b`, `(?i:a)`, `a{3,1}`, `\q`, `(?P<>a)`, strings.Repeat("(", 100) + strings.Repeat(")", 100)} {
		if _, err := CompilePattern(bad); err == nil {
			t.Errorf("%q compiled; Python rejects it or we do not support it", bad)
		}
	}
}

func TestPatternWorkIsBounded(t *testing.T) {
	m, err := CompilePattern(`(a*)*b`)
	if err != nil {
		t.Fatal(err)
	}
	if m.MatchString(strings.Repeat("a", 200)) {
		t.Fatal("matched")
	}
}
