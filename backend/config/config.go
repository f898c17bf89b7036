package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
)

// Config is the user's config.json. Every field has a default, so a missing
// file or a missing key is fine.
type Config struct {
	// Handoff is "close" (default: the window closes after "Send to Claude")
	// or "stay" (the window stays open).
	Handoff string `json:"handoff"`
	// HostPort is the preferred loopback port of the host; 0 picks a free one.
	HostPort int `json:"host_port"`
	// Wire configures the Pad-Lattice compatible agent daemon.
	Wire WireConfig `json:"wire"`
	// Web configures the browser pad (Web Surface Protocol 1).
	Web WebConfig `json:"web"`

	// Unknown holds keys this version does not know. They are kept so that
	// a newer version's settings survive, and otherwise ignored.
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
}

// DefaultWebPort is the browser pad's usual port.
const DefaultWebPort = 8765

// Defaults returns the configuration used when config.json says nothing.
func Defaults() Config {
	return Config{
		Handoff: "close",
		Wire:    WireConfig{Enabled: true, MIDI: true},
		Web:     WebConfig{Enabled: true, Port: DefaultWebPort},
	}
}

// knownKeys are the top-level keys Config understands.
var knownKeys = map[string]bool{"handoff": true, "host_port": true, "wire": true, "web": true}

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

// Load reads config.json. A missing file gives the defaults and no error. A
// broken file gives the defaults and a *ParseError naming the file, line and
// column; the file itself is never rewritten, so the user's text is not lost.
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
	if err := json.Unmarshal(data, &cfg); err != nil {
		return Defaults(), err
	}
	for k, v := range raw {
		if !knownKeys[k] {
			if cfg.Unknown == nil {
				cfg.Unknown = map[string]json.RawMessage{}
			}
			cfg.Unknown[k] = v
		}
	}
	if err := cfg.Validate(); err != nil {
		return Defaults(), err
	}
	return cfg, nil
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
	return nil
}

// UnknownKeys lists the kept unknown keys in sorted order.
func (c Config) UnknownKeys() []string {
	keys := make([]string, 0, len(c.Unknown))
	for k := range c.Unknown {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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
