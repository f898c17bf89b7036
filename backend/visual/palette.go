package visual

import "strconv"

// Colour tables of §6 as data. A MIDI surface takes its palette from its
// device profile; these tables are the values every bundled Launchpad
// profile carries (for defaults and tests), the reference accent RGB and
// the browser's CSS colours.

// PaletteTokens returns the closed set of 22 tokens a profile palette must
// provide (§4.1), in a fixed order: off, idle, activity, the seven primary
// tokens, the seven summary tokens (state enum order), the four action
// tokens (action enum order), system:overflow. Accent tokens are resolved
// through a profile's accent table instead.
func PaletteTokens() []Token {
	out := make([]Token, 0, 22)
	out = append(out, Off, Idle, Activity)
	out = append(out, primaryTokens[:]...)
	out = append(out, summaryTokens[:]...)
	out = append(out, actionTokens[:]...)
	return append(out, Overflow)
}

// launchpadPalette is §6.1: palette index per PaletteTokens() entry.
var launchpadPalette = [22]uint8{
	0, 1, 3, // off, idle, activity
	45, 3, 37, 9, 21, 5, 2, // primary
	47, 1, 39, 11, 23, 7, 2, // summary
	21, 5, 5, 45, // approve, reject, stop, retry
	9, // overflow
}

// launchpadAccents is §6.1: {selected, unselected} palette index per
// identity accent.
var launchpadAccents = [8][2]uint8{
	{37, 39}, {53, 55}, {17, 19}, {9, 11}, {49, 51}, {29, 31}, {57, 59}, {41, 43},
}

// LaunchpadColor returns the Novation palette index the bundled Launchpad
// profiles use for t (accent tokens included), and false for a token the
// grammar does not allow.
func LaunchpadColor(t Token) (uint8, bool) {
	info, err := t.Parse()
	if err != nil {
		return 0, false
	}
	switch info.Kind {
	case KindAccentSelected:
		return launchpadAccents[accentIndex(info.Accent)][0], true
	case KindAccentUnselected:
		return launchpadAccents[accentIndex(info.Accent)][1], true
	}
	for i, p := range PaletteTokens() {
		if p == t {
			return launchpadPalette[i], true
		}
	}
	return 0, false
}

// accentRGB is ACCENT_RGB of §6.2, in identity accent order.
var accentRGB = [8][3]uint8{
	{0, 174, 187}, {200, 62, 201}, {112, 185, 45}, {230, 126, 34},
	{118, 86, 199}, {0, 155, 131}, {217, 76, 118}, {55, 136, 216},
}

// AccentRGB returns the reference RGB of an identity accent.
func AccentRGB(name string) ([3]uint8, bool) {
	i := accentIndex(name)
	if i < 0 {
		return [3]uint8{}, false
	}
	return accentRGB[i], true
}

// UnselectedRGB is the browser's unselected accent colour: each channel of
// the accent RGB × 0.48, rounded half up.
func UnselectedRGB(rgb [3]uint8) [3]uint8 {
	var out [3]uint8
	for i, c := range rgb {
		out[i] = uint8((int(c)*48 + 50) / 100)
	}
	return out
}

// browserColors are the CSS colours of §6.2 per PaletteTokens() entry.
var browserColors = [22]string{
	"#11171c", "#46535c", "#a9d5ff",
	"#3389e8", "#f2f5f7", "#14bcc7", "#f0b63f", "#55c76a", "#ef5b64", "#84909a",
	"#245f9d", "#8e99a2", "#087b83", "#9c7628", "#347d43", "#963d43", "#505960",
	"#55c76a", "#ef5b64", "#ef5b64", "#3389e8", // approve, reject, stop, retry
	"#f0b63f",
}

// BrowserColor returns the browser surface's CSS colour for t; accents are
// "rgb(R G B)" (unselected: × 0.48), and off or any unknown token is the
// off colour.
func BrowserColor(t Token) string {
	info, err := t.Parse()
	if err == nil && (info.Kind == KindAccentSelected || info.Kind == KindAccentUnselected) {
		rgb := accentRGB[accentIndex(info.Accent)]
		if info.Kind == KindAccentUnselected {
			rgb = UnselectedRGB(rgb)
		}
		return "rgb(" + strconv.Itoa(int(rgb[0])) + " " + strconv.Itoa(int(rgb[1])) + " " + strconv.Itoa(int(rgb[2])) + ")"
	}
	if err == nil {
		for i, p := range PaletteTokens() {
			if p == t {
				return browserColors[i]
			}
		}
	}
	return browserColors[0]
}

// AccentSwatch is the terminal swatch of `status` for an accent (§6.2):
// a 24-bit background escape, two spaces and a reset, or "[]" when colour
// is off or the accent is unknown.
func AccentSwatch(name string, colour bool) string {
	rgb, ok := AccentRGB(name)
	if !colour || !ok {
		return "[]"
	}
	return "\x1b[48;2;" + strconv.Itoa(int(rgb[0])) + ";" + strconv.Itoa(int(rgb[1])) + ";" + strconv.Itoa(int(rgb[2])) + "m  \x1b[0m"
}
