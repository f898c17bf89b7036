package midi

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Our own profiles of the three Launchpads, written from §4.
//
//go:embed profiles
var builtinFS embed.FS

// BuiltinSourcePrefix names built-in profiles in errors.
const BuiltinSourcePrefix = "<builtin>/"

// Environment variables of §2.
const (
	EnvProfilePath   = "PAD_LATTICE_PROFILE_PATH"
	EnvXDGConfigHome = "XDG_CONFIG_HOME"
)

// Catalog is the ordered set of known profiles (sorted by id).
type Catalog struct {
	Profiles []*Profile
}

// CatalogOptions say where user profiles come from.
type CatalogOptions struct {
	// User loads user profiles from the roots of §2 (every CLI command
	// does).
	User bool
	// Getenv reads the environment (nil = os.Getenv); Home is the home
	// folder ("" = os.UserHomeDir).
	Getenv func(string) string
	Home   string
}

// BuiltinProfiles parses the embedded profiles, sorted by id.
func BuiltinProfiles() ([]*Profile, error) {
	var out []*Profile
	err := fs.WalkDir(builtinFS, "profiles", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".json") {
			return nil
		}
		data, err := builtinFS.ReadFile(path)
		if err != nil {
			return err
		}
		p, err := ParseProfile(data, BuiltinSourcePrefix+strings.TrimPrefix(path, "profiles/"))
		if err != nil {
			return err
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// UserProfileRoots are the folders user profiles are read from (§2): the
// XDG one if XDG_CONFIG_HOME is set, else ~/.config/pad-lattice/profiles;
// then every entry of PAD_LATTICE_PROFILE_PATH.
func UserProfileRoots(getenv func(string) string, home string) []string {
	expand := func(p string) string {
		if p == "~" {
			return home
		}
		if strings.HasPrefix(p, "~/") {
			return filepath.Join(home, p[2:])
		}
		return p
	}
	var roots []string
	if x := getenv(EnvXDGConfigHome); x != "" {
		roots = append(roots, filepath.Join(x, "pad-lattice", "profiles"))
	} else {
		roots = append(roots, filepath.Join(home, ".config", "pad-lattice", "profiles"))
	}
	for _, e := range filepath.SplitList(getenv(EnvProfilePath)) {
		if e != "" {
			roots = append(roots, expand(e))
		}
	}
	return roots
}

// LoadProfileFile reads and parses one profile file (no schema check).
func LoadProfileFile(path string) (*Profile, error) {
	return LoadProfileFileChecked(path, nil)
}

// LoadProfileFileChecked is LoadProfileFile with an optional JSON Schema
// check that runs once, before the parser (§1: `--validate-schema`).
// validate gets the file's bytes; its error is returned wrapped with the
// path.
func LoadProfileFileChecked(path string, validate func(data []byte) error) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &ProfileError{Msg: fmt.Sprintf("%s: could not read profile: %v", path, err)}
	}
	if validate != nil {
		if err := validate(data); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return ParseProfile(data, path)
}

// LoadCatalog loads the built-in profiles and, with opts.User, the user
// profiles. Any invalid user profile or a duplicate id fails the load.
func LoadCatalog(opts CatalogOptions) (*Catalog, error) {
	profiles, err := BuiltinProfiles()
	if err != nil {
		return nil, fmt.Errorf("built-in device profiles are broken (a build problem; report it): %w", err)
	}
	if opts.User {
		getenv := opts.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		home := opts.Home
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		for _, root := range UserProfileRoots(getenv, home) {
			fi, err := os.Stat(root)
			if err != nil || !fi.IsDir() {
				continue
			}
			var files []string
			err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if !d.IsDir() && strings.HasSuffix(path, ".json") {
					files = append(files, path)
				}
				return nil
			})
			if err != nil {
				return nil, &ProfileError{Msg: fmt.Sprintf("%s: could not list profiles: %v", root, err)}
			}
			sort.Strings(files)
			for _, f := range files {
				p, err := LoadProfileFile(f)
				if err != nil {
					return nil, err
				}
				profiles = append(profiles, p)
			}
		}
	}
	return NewCatalog(profiles)
}

// NewCatalog checks ids for duplicates and sorts by id.
func NewCatalog(profiles []*Profile) (*Catalog, error) {
	byID := map[string]*Profile{}
	for _, p := range profiles {
		if prev, ok := byID[p.ID]; ok {
			return nil, &ProfileError{Msg: fmt.Sprintf("duplicate profile id '%s': %s and %s", p.ID, prev.Source, p.Source)}
		}
		byID[p.ID] = p
	}
	out := append([]*Profile(nil), profiles...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return &Catalog{Profiles: out}, nil
}

// Lookup finds a profile by id.
func (c *Catalog) Lookup(id string) (*Profile, bool) {
	for _, p := range c.Profiles {
		if p.ID == id {
			return p, true
		}
	}
	return nil, false
}

// MatchingPorts returns the names matched by the first pattern that
// matches any name, in listing order (§3.1).
func MatchingPorts(names []string, patterns []*Pattern) []string {
	for _, pat := range patterns {
		var out []string
		for _, n := range names {
			if pat.MatchString(n) {
				out = append(out, n)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// Candidate is a profile with the ports it would use.
type Candidate struct {
	Profile *Profile
	Input   string
	Output  string
}

// Detect lists every (profile, input, output) combination the port names
// match, in catalog order, input-major (§3.1).
func (c *Catalog) Detect(inputs, outputs []string, includeExperimental bool) []Candidate {
	var out []Candidate
	for _, p := range c.Profiles {
		if !includeExperimental && p.Status != StatusSupported {
			continue
		}
		ins := MatchingPorts(inputs, p.inputs)
		outs := MatchingPorts(outputs, p.outputs)
		for _, i := range ins {
			for _, o := range outs {
				out = append(out, Candidate{Profile: p, Input: i, Output: o})
			}
		}
	}
	return out
}

// PortLister lists the MIDI ports of a backend.
type PortLister interface {
	Inputs() ([]string, error)
	Outputs() ([]string, error)
}

// DeviceError is a device that cannot be resolved or opened.
type DeviceError struct{ Msg string }

func (e *DeviceError) Error() string { return e.Msg }

// ErrNoDevice is wrapped by the errors that mean "nothing matching is
// plugged in" (as opposed to a broken profile or an ambiguous choice).
var ErrNoDevice = errors.New("no MIDI device")

type noDeviceError struct{ DeviceError }

func (e *noDeviceError) Unwrap() error { return ErrNoDevice }

func noDevice(format string, args ...any) error {
	return &noDeviceError{DeviceError{Msg: fmt.Sprintf(format, args...)}}
}

// ResolveOptions choose a device (§3.2).
type ResolveOptions struct {
	ProfileID   string
	ProfileFile string
	Input       string
	Output      string
}

// Resolve picks the profile and ports to open (§3.2). The port lister is
// not queried when both port names are given.
func Resolve(cat *Catalog, ports PortLister, o ResolveOptions) (Candidate, error) {
	if o.ProfileID != "" && o.ProfileFile != "" {
		return Candidate{}, &DeviceError{Msg: "use either --profile or --profile-file, not both"}
	}
	var inputs, outputs []string
	if o.Input == "" || o.Output == "" {
		var err error
		if inputs, err = ports.Inputs(); err != nil {
			return Candidate{}, noDevice("could not list MIDI inputs: %v", err)
		}
		if outputs, err = ports.Outputs(); err != nil {
			return Candidate{}, noDevice("could not list MIDI outputs: %v", err)
		}
	}
	var chosen *Profile
	switch {
	case o.ProfileFile != "":
		p, err := LoadProfileFile(o.ProfileFile)
		if err != nil {
			return Candidate{}, err
		}
		chosen = p
	case o.ProfileID != "":
		p, ok := cat.Lookup(o.ProfileID)
		if !ok {
			return Candidate{}, &ProfileError{Msg: "unknown device profile: " + o.ProfileID}
		}
		chosen = p
	}
	if chosen != nil {
		ins := []string{o.Input}
		if o.Input == "" {
			ins = MatchingPorts(inputs, chosen.inputs)
		}
		outs := []string{o.Output}
		if o.Output == "" {
			outs = MatchingPorts(outputs, chosen.outputs)
		}
		if len(ins) == 0 {
			return Candidate{}, noDevice("no MIDI input matched profile %s", chosen.ID)
		}
		if len(outs) == 0 {
			return Candidate{}, noDevice("no MIDI output matched profile %s", chosen.ID)
		}
		var cands []Candidate
		for _, i := range ins {
			for _, out := range outs {
				cands = append(cands, Candidate{Profile: chosen, Input: i, Output: out})
			}
		}
		if len(cands) > 1 {
			return Candidate{}, ambiguous(cands)
		}
		return cands[0], nil
	}
	if o.Input != "" {
		inputs = []string{o.Input}
	}
	if o.Output != "" {
		outputs = []string{o.Output}
	}
	cands := cat.Detect(inputs, outputs, false)
	switch {
	case len(cands) == 1:
		return cands[0], nil
	case len(cands) > 1:
		return Candidate{}, ambiguous(cands)
	}
	seen := map[string]bool{}
	var ids []string
	for _, c := range cat.Detect(inputs, outputs, true) {
		if !seen[c.Profile.ID] {
			seen[c.Profile.ID] = true
			ids = append(ids, c.Profile.ID)
		}
	}
	if len(ids) > 0 {
		sort.Strings(ids)
		return Candidate{}, noDevice("only experimental device profiles matched (%s); select one explicitly with --profile", strings.Join(ids, ", "))
	}
	return Candidate{}, noDevice("no supported MIDI device profile matched; run `lets pad devices` or pass --profile")
}

func ambiguous(cands []Candidate) error {
	parts := make([]string, len(cands))
	for i, c := range cands {
		parts[i] = fmt.Sprintf("%s: input='%s', output='%s'", c.Profile.ID, c.Input, c.Output)
	}
	return &DeviceError{Msg: "multiple MIDI device candidates matched; pass --profile, --input, and --output (" + strings.Join(parts, "; ") + ")"}
}
