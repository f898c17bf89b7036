package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"
)

// CurrentVersion is the config.json format this Lets reads and writes. A
// file without "version" is read as version 1; a higher version was written
// by a newer Lets and is refused (Load returns a *VersionError) rather than
// half understood.
const CurrentVersion = 1

// Config is the user's config.json. Every field has a default, so a missing
// file or a missing key is fine.
type Config struct {
	// Version is the format of the file; see CurrentVersion.
	Version int `json:"version"`
	// Handoff is "close" (default: the window closes after "Send to Claude")
	// or "stay" (the window stays open).
	Handoff string `json:"handoff"`
	// HostPort is the preferred loopback port of the host; 0 picks a free one.
	HostPort int `json:"host_port"`
	// Wire configures the Pad-Lattice compatible agent daemon.
	Wire WireConfig `json:"wire"`
	// Web configures the browser pad (Web Surface Protocol 1).
	Web WebConfig `json:"web"`
	// Claude configures the Claude Code integration (`lets setup claude`,
	// `lets hook`).
	Claude ClaudeConfig `json:"claude"`

	// Unknown holds top-level keys this version does not know. They are
	// kept (Save writes them back) so that a newer version's settings
	// survive, and otherwise ignored.
	Unknown map[string]json.RawMessage `json:"-"`
}

// WireConfig configures the Wire Protocol 1 daemon.
type WireConfig struct {
	// Enabled runs the daemon inside `lets` and `lets serve`.
	Enabled bool `json:"enabled"`
	// Socket overrides the socket path; empty uses the protocol's resolution.
	Socket string `json:"socket,omitempty"`
	// MIDI looks for a supported Launchpad at start and shows the agents
	// on it.
	MIDI bool `json:"midi"`
	// MIDIProfile names the device profile to use, e.g.
	// "novation/launchpad/mini-mk3". Auto-detection only picks profiles
	// marked supported; the Mini Mk3 and Pro Mk3 profiles are experimental
	// and are used only when named here.
	MIDIProfile string `json:"midi_profile,omitempty"`
	// ActivityMotion animates a running agent's glyph on the pads.
	ActivityMotion bool `json:"activity_motion,omitempty"`
	// AudioFeedback plays short sounds on this computer when a pad button
	// is pressed and for the Demo and Show (needs paplay, aplay or afplay).
	AudioFeedback bool `json:"audio_feedback,omitempty"`

	// Unknown holds the keys of the "wire" section this version does not
	// know; kept like Config.Unknown.
	Unknown map[string]json.RawMessage `json:"-"`
}

// WebConfig configures the browser pad: the same lights and buttons as a
// Launchpad, on this computer's browser and on paired phones.
type WebConfig struct {
	// Enabled serves the browser pad while the pad daemon runs.
	Enabled bool `json:"enabled"`
	// Port is its loopback port (0 picks a free one).
	Port int `json:"port"`
	// LAN also listens on one private network address so phones can pair.
	LAN bool `json:"lan"`
	// BindHost and AdvertiseHost choose the LAN address and the name phones
	// use; empty picks the machine's private address.
	BindHost      string `json:"bind_host,omitempty"`
	AdvertiseHost string `json:"advertise_host,omitempty"`

	// Unknown holds the keys of the "web" section this version does not
	// know; kept like Config.Unknown.
	Unknown map[string]json.RawMessage `json:"-"`
}

// ClaudeConfig configures the Claude Code integration.
type ClaudeConfig struct {
	// ApprovalTimeoutS is how many seconds `lets hook PermissionRequest`
	// waits for Approve or Reject from a pad, a phone or a window before
	// Claude Code asks in its terminal as usual (5 to 3600).
	ApprovalTimeoutS int `json:"approvalTimeoutS"`
	// PermissionMode is how "Chat with Claude" lets Claude act: "" (ask
	// before every tool, the default) or "acceptEdits" (file edits in the
	// conversation's folder without asking; everything else still asks).
	PermissionMode string `json:"permissionMode,omitempty"`

	// Unknown holds the keys of the "claude" section this version does not
	// know; kept like Config.Unknown.
	Unknown map[string]json.RawMessage `json:"-"`
}

// ApprovalTimeout is ApprovalTimeoutS as a duration.
func (c ClaudeConfig) ApprovalTimeout() time.Duration {
	return time.Duration(c.ApprovalTimeoutS) * time.Second
}

// PermissionModes are the values of "claude": {"permissionMode"}: ""
// asks before every tool (the default), "acceptEdits" lets Claude edit
// files in the conversation's folder without asking.
var PermissionModes = []string{"", "acceptEdits"}

// ValidPermissionMode says whether m is one of PermissionModes.
func ValidPermissionMode(m string) bool {
	for _, k := range PermissionModes {
		if m == k {
			return true
		}
	}
	return false
}

// The approval wait: its default and the range Validate accepts.
const (
	DefaultApprovalTimeoutS = 120
	MinApprovalTimeoutS     = 5
	MaxApprovalTimeoutS     = 3600
)

// DefaultWebPort is the browser pad's usual port.
const DefaultWebPort = 8765

// Defaults returns the configuration used when config.json says nothing.
func Defaults() Config {
	return Config{
		Version: CurrentVersion,
		Handoff: "close",
		Wire:    WireConfig{Enabled: true, MIDI: true},
		Web:     WebConfig{Enabled: true, Port: DefaultWebPort},
		Claude:  ClaudeConfig{ApprovalTimeoutS: DefaultApprovalTimeoutS},
	}
}

// Known keys, per section, in the order Save writes them.
var (
	topKeys    = []string{"version", "handoff", "host_port", "wire", "web", "claude"}
	wireKeys   = []string{"enabled", "socket", "midi", "midi_profile", "activity_motion", "audio_feedback"}
	webKeys    = []string{"enabled", "port", "lan", "bind_host", "advertise_host"}
	claudeKeys = []string{"approvalTimeoutS", "permissionMode"}
)

// ParseError tells where config.json is broken.
type ParseError struct {
	Path   string
	Line   int
	Column int
	Err    error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %v (Lets is using default settings until you fix this file)", e.Path, e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("%s: %v (Lets is using default settings until you fix this file)", e.Path, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// ErrNewerVersion is matched (errors.Is) by a *VersionError.
var ErrNewerVersion = errors.New("config.json was written by a newer version of Lets")

// VersionError means config.json has a "version" above CurrentVersion.
type VersionError struct {
	Path    string // "" when parsing bytes
	Version int
}

func (e *VersionError) Error() string {
	name := e.Path
	if name == "" {
		name = "config.json"
	}
	return fmt.Sprintf("%s has \"version\": %d, written by a newer Lets; this Lets understands version %d. Update Lets, or move the file away to start from the defaults (Lets leaves the file untouched)",
		name, e.Version, CurrentVersion)
}

func (e *VersionError) Is(target error) bool { return target == ErrNewerVersion }

// Load reads config.json. A missing file gives the defaults and no error. A
// broken file gives the defaults and a *ParseError naming the file, line and
// column; a file from a newer Lets gives the defaults and a *VersionError.
// The file itself is never rewritten here, so the user's text is not lost.
func Load(path string) (Config, error) {
	cfg := Defaults()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, &ParseError{Path: path, Err: err}
	}
	parsed, err := Parse(data)
	if err != nil {
		var ve *VersionError
		if errors.As(err, &ve) {
			ve.Path = path
			return cfg, ve
		}
		pe := &ParseError{Path: path, Err: err}
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			pe.Line, pe.Column = lineCol(data, se.Offset)
		case errors.As(err, &te):
			pe.Line, pe.Column = lineCol(data, te.Offset)
		}
		return cfg, pe
	}
	return parsed, nil
}

// Parse decodes config.json text over the defaults.
func Parse(data []byte) (Config, error) {
	cfg := Defaults()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Defaults(), err
	}
	if raw == nil {
		return Defaults(), errors.New("config.json must hold a JSON object, like {}")
	}
	if v, ok := raw["version"]; ok {
		var version int
		if err := json.Unmarshal(v, &version); err != nil {
			return Defaults(), fmt.Errorf(`"version" must be a whole number like %d: %w`, CurrentVersion, err)
		}
		if version > CurrentVersion {
			return Defaults(), &VersionError{Version: version}
		}
		if version < 1 {
			return Defaults(), fmt.Errorf(`"version" must be %d, not %d`, CurrentVersion, version)
		}
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return Defaults(), err
	}
	cfg.Version = CurrentVersion // an older or missing version reads as this one
	cfg.Unknown = unknownOf(raw, topKeys)
	var err error
	if cfg.Wire.Unknown, err = sectionUnknown(raw, "wire", wireKeys); err != nil {
		return Defaults(), err
	}
	if cfg.Web.Unknown, err = sectionUnknown(raw, "web", webKeys); err != nil {
		return Defaults(), err
	}
	if cfg.Claude.Unknown, err = sectionUnknown(raw, "claude", claudeKeys); err != nil {
		return Defaults(), err
	}
	if err := cfg.Validate(); err != nil {
		return Defaults(), err
	}
	return cfg, nil
}

// unknownOf returns the entries of raw whose keys are not in known,
// compacted; nil when there are none. Like encoding/json, a key that
// differs from a known one only in case counts as that key.
func unknownOf(raw map[string]json.RawMessage, known []string) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for k, v := range raw {
		if containsFold(known, k) {
			continue
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		var b bytes.Buffer
		if json.Compact(&b, v) == nil {
			v = b.Bytes()
		}
		out[k] = v
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// sectionUnknown returns the unknown keys inside the object raw[section].
func sectionUnknown(raw map[string]json.RawMessage, section string, known []string) (map[string]json.RawMessage, error) {
	v, ok := raw[section]
	if !ok || string(v) == "null" {
		return nil, nil
	}
	var inner map[string]json.RawMessage
	if err := json.Unmarshal(v, &inner); err != nil {
		return nil, fmt.Errorf("%q must be an object, like \"%s\": {}", section, section)
	}
	return unknownOf(inner, known), nil
}

// Validate checks values that decode but make no sense.
func (c Config) Validate() error {
	switch c.Handoff {
	case "close", "stay":
	default:
		return fmt.Errorf(`"handoff" must be "close" or "stay", not %q`, c.Handoff)
	}
	if c.HostPort < 0 || c.HostPort > 65535 {
		return fmt.Errorf(`"host_port" must be between 0 and 65535, not %d`, c.HostPort)
	}
	if c.Web.Port < 0 || c.Web.Port > 65535 {
		return fmt.Errorf(`"web": {"port"} must be between 0 and 65535, not %d`, c.Web.Port)
	}
	if s := c.Claude.ApprovalTimeoutS; s < MinApprovalTimeoutS || s > MaxApprovalTimeoutS {
		return fmt.Errorf(`"claude": {"approvalTimeoutS"} must be between %d and %d seconds, not %d`, MinApprovalTimeoutS, MaxApprovalTimeoutS, s)
	}
	if m := c.Claude.PermissionMode; !ValidPermissionMode(m) {
		return fmt.Errorf(`"claude": {"permissionMode"} must be "" (ask before every tool) or "acceptEdits", not %q`, m)
	}
	return nil
}

// UnknownSetting is one key of config.json this version does not know.
type UnknownSetting struct {
	// Section is "" for a top-level key, else "wire", "web" or "claude".
	Section string
	Key     string
	// Suggestion is the known key the user probably meant, as a dotted
	// path ("wire.midi_profile"); "" when nothing is close.
	Suggestion string
}

// Path is the dotted path of the key, e.g. "wire.midi_profil".
func (u UnknownSetting) Path() string {
	if u.Section == "" {
		return u.Key
	}
	return u.Section + "." + u.Key
}

func (u UnknownSetting) String() string {
	s := fmt.Sprintf("%q", u.Path())
	if u.Suggestion != "" {
		s += fmt.Sprintf(" (did you mean %q?)", u.Suggestion)
	}
	return s
}

// UnknownSettings lists every unknown key, top-level and inside the
// sections, sorted by path, each with a "did you mean" when a known key is
// close.
func (c Config) UnknownSettings() []UnknownSetting {
	var out []UnknownSetting
	for k := range c.Unknown {
		out = append(out, UnknownSetting{Key: k, Suggestion: suggestTop(k)})
	}
	for _, sec := range []struct {
		name    string
		unknown map[string]json.RawMessage
		known   []string
	}{{"wire", c.Wire.Unknown, wireKeys}, {"web", c.Web.Unknown, webKeys}, {"claude", c.Claude.Unknown, claudeKeys}} {
		for k := range sec.unknown {
			u := UnknownSetting{Section: sec.name, Key: k}
			if s := closest(k, sec.known); s != "" {
				u.Suggestion = sec.name + "." + s
			}
			out = append(out, u)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path() < out[j].Path() })
	return out
}

// UnknownKeys lists the dotted paths of the unknown keys in sorted order.
func (c Config) UnknownKeys() []string {
	settings := c.UnknownSettings()
	keys := make([]string, len(settings))
	for i, u := range settings {
		keys[i] = u.Path()
	}
	return keys
}

// suggestTop finds what a top-level unknown key was meant to be: a close
// top-level key, or a section key written at the top level ("midi" →
// "wire.midi").
func suggestTop(k string) string {
	if s := closest(k, topKeys); s != "" {
		return s
	}
	for _, sec := range []struct {
		name  string
		known []string
	}{{"wire", wireKeys}, {"web", webKeys}, {"claude", claudeKeys}} {
		if s := closest(k, sec.known); s != "" {
			return sec.name + "." + s
		}
	}
	return ""
}

// closest returns the known key nearest to k when it is near enough to be
// a typo: an edit distance of at most 2 (1 for short keys), or k with
// different case or dashes instead of underscores.
func closest(k string, known []string) string {
	best, bestDist := "", 1<<30
	for _, cand := range known {
		d := editDistance(normalizeKey(k), normalizeKey(cand))
		if d < bestDist {
			best, bestDist = cand, d
		}
	}
	limit := 2
	if len(k) <= 4 {
		limit = 1
	}
	if bestDist > limit {
		return ""
	}
	return best
}

func normalizeKey(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'A' && c <= 'Z':
			b[i] = c + 'a' - 'A'
		case c == '-':
			b[i] = '_'
		}
	}
	return string(b)
}

// editDistance is the optimal-string-alignment distance of two short ASCII
// keys: insertions, deletions, substitutions and swaps of neighbours each
// count 1, so "prot" is one step from "port".
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func lineCol(data []byte, offset int64) (int, int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}
