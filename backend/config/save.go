package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"github.com/lets-app/lets/backend/atomicfile"
)

// Marshal encodes c as config.json text: "version" first, the known keys in
// a fixed order, then the unknown keys of each level as they were read, so
// a setting this version does not know survives a rewrite.
func Marshal(c Config) ([]byte, error) {
	c.Version = CurrentVersion
	wire, err := object(c.Wire, wireKeys, c.Wire.Unknown)
	if err != nil {
		return nil, err
	}
	web, err := object(c.Web, webKeys, c.Web.Unknown)
	if err != nil {
		return nil, err
	}
	claude, err := object(c.Claude, claudeKeys, c.Claude.Unknown)
	if err != nil {
		return nil, err
	}
	top := struct {
		Version  int             `json:"version"`
		Handoff  string          `json:"handoff"`
		HostPort int             `json:"host_port"`
		Wire     json.RawMessage `json:"wire"`
		Web      json.RawMessage `json:"web"`
		Claude   json.RawMessage `json:"claude"`
	}{c.Version, c.Handoff, c.HostPort, wire, web, claude}
	compact, err := object(top, topKeys, c.Unknown)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, fmt.Errorf("format config.json: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// object encodes v (a struct whose JSON keys are among order) with its keys
// in that order, followed by the extra keys sorted by name.
func object(v any, order []string, extra map[string]json.RawMessage) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode config.json: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, fmt.Errorf("encode config.json: %w", err)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	write := func(k string, raw json.RawMessage) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		b.Write(raw)
	}
	for _, k := range order {
		if raw, ok := fields[k]; ok {
			write(k, raw)
		}
	}
	names := make([]string, 0, len(extra))
	for k := range extra {
		if _, known := fields[k]; !known && !containsFold(order, k) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		write(k, extra[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Save writes c to path atomically (mode 0600), keeping its unknown keys.
// It refuses to replace a file written by a newer Lets (ErrNewerVersion),
// whose settings this version would lose.
func Save(path string, c Config) error {
	if old, err := os.ReadFile(path); err == nil {
		var probe struct {
			Version int `json:"version"`
		}
		if json.Unmarshal(old, &probe) == nil && probe.Version > CurrentVersion {
			return &VersionError{Path: path, Version: probe.Version}
		}
	}
	data, err := Marshal(c)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	return nil
}

// WriteDefaults creates config.json with the default settings (and
// "version") when there is none, so people can see what they may change.
// An existing file is left alone. It reports whether it wrote the file.
func WriteDefaults(path string) (bool, error) {
	_, err := os.Lstat(path)
	if err == nil {
		return false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("inspect %s: %w", path, err)
	}
	if err := Save(path, Defaults()); err != nil {
		return false, err
	}
	return true, nil
}
