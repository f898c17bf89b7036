package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/surface/midi"
)

// `lets pad devices`, `lets pad profile-check`, `lets pad test-profile` and
// the --midi flags of `lets pad daemon`: the MIDI pad (spec
// device-profiles-and-midi.md §3, §8, §10).

// runPadDevices is `lets pad devices`: the MIDI ports and which profile
// matches them (experimental profiles included).
func runPadDevices(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("lets pad devices", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	pos, err := parsePad(env, "devices", fs, args)
	if err != nil {
		return err
	}
	if err := padNoArgs("devices", fs, pos); err != nil {
		return err
	}
	cat, err := lets.PadCatalog(env)
	if err != nil {
		return err
	}
	b := env.MIDIBackend()
	ins, err := b.Inputs()
	if err != nil {
		return fmt.Errorf("could not list MIDI inputs: %w", err)
	}
	outs, err := b.Outputs()
	if err != nil {
		return fmt.Errorf("could not list MIDI outputs: %w", err)
	}
	w := env.Stdout
	if u, ok := b.(interface{ Unavailable() string }); ok {
		if why := u.Unavailable(); why != "" {
			fmt.Fprintf(w, "No MIDI system: %s.\n", why)
		}
	}
	fmt.Fprintln(w, "MIDI inputs:")
	for _, n := range ins {
		fmt.Fprintf(w, "  %s\n", n)
	}
	fmt.Fprintln(w, "MIDI outputs:")
	for _, n := range outs {
		fmt.Fprintf(w, "  %s\n", n)
	}
	cands := cat.Detect(ins, outs, true)
	if len(cands) == 0 {
		fmt.Fprintln(w, "No matching MIDI devices found.")
		return nil
	}
	for _, c := range cands {
		fmt.Fprintf(w, "%s [%s]\n  input:  %s\n  output: %s\n", c.Profile.ID, c.Profile.Status, c.Input, c.Output)
	}
	return nil
}

// runPadProfileCheck is `lets pad profile-check FILE`: parse a custom
// profile without opening any port.
func runPadProfileCheck(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("lets pad profile-check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	pos, err := parsePad(env, "profile-check", fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return &UsageError{Msg: "profile-check: give exactly one profile file, e.g. `lets pad profile-check my-pad.json`", flags: fs}
	}
	p, err := midi.LoadProfileFile(pos[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Valid profile: %s [%s]\n", p.ID, p.Status)
	return nil
}

// deviceFlags are the flags that choose a device (§3.2).
type deviceFlags struct {
	profile, profileFile, input, output *string
}

func addDeviceFlags(fs *flag.FlagSet) deviceFlags {
	return deviceFlags{
		profile:     fs.String("profile", "", "device profile `id` (see `lets pad devices`); default: detect a supported device"),
		profileFile: fs.String("profile-file", "", "use the device profile in this JSON `file`"),
		input:       fs.String("input", "", "MIDI input port `name` (default: matched by the profile)"),
		output:      fs.String("output", "", "MIDI output port `name` (default: matched by the profile)"),
	}
}

func (d deviceFlags) resolve() midi.ResolveOptions {
	return midi.ResolveOptions{ProfileID: *d.profile, ProfileFile: *d.profileFile, Input: *d.input, Output: *d.output}
}

func (d deviceFlags) set() bool {
	return *d.profile != "" || *d.profileFile != "" || *d.input != "" || *d.output != ""
}

// runPadTestProfile is `lets pad test-profile`: the guided hardware test of
// §8, writing a JSON report.
func runPadTestProfile(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("lets pad test-profile", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dev := addDeviceFlags(fs)
	report := fs.String("report", "", "write the JSON report to this `file` (required)")
	timeout := fs.Float64("event-timeout", 15, "wait this many `seconds` for each requested press")
	settle := fs.Float64("settle-delay", 0.15, "wait this many `seconds` after drawing before asking")
	pos, err := parsePad(env, "test-profile", fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 1 && *dev.profile == "" {
		*dev.profile = pos[0] // `lets pad test-profile novation/launchpad/pro-mk1`
	} else if err := padNoArgs("test-profile", fs, pos); err != nil {
		return err
	}
	if *dev.profile == "" && *dev.profileFile == "" {
		return &UsageError{Msg: "test-profile: name the profile to test with --profile ID or --profile-file FILE", flags: fs}
	}
	if *report == "" {
		return &UsageError{Msg: "test-profile: --report FILE is required", flags: fs}
	}
	for name, v := range map[string]float64{"--event-timeout": *timeout, "--settle-delay": *settle} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (name == "--event-timeout" && v == 0) {
			return &UsageError{Msg: fmt.Sprintf("test-profile: %s %v must be a positive number of seconds", name, v), flags: fs}
		}
	}
	backend := env.MIDIBackend()
	cat, err := lets.PadCatalog(env)
	if err != nil {
		return err
	}
	c, err := midi.Resolve(cat, backend, dev.resolve())
	if err != nil {
		return err
	}
	d, err := midi.OpenDevice(backend, c)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Testing %s on input %q and output %q. Answer with y or n.\n", c.Profile.ID, c.Input, c.Output)
	settleDelay := time.Duration(*settle * float64(time.Second))
	if settleDelay == 0 {
		settleDelay = -1
	}
	r, err := midi.RunProfileTest(midi.ProfileTest{
		Surface: d, Profile: c.Profile, InputPort: c.Input, OutputPort: c.Output,
		ReportPath: *report, Version: Version, In: env.Input(), Out: env.Stdout,
		EventTimeout: time.Duration(*timeout * float64(time.Second)),
		SettleDelay:  settleDelay,
		Sleep:        env.Sleep,
	})
	fmt.Fprintf(env.Stdout, "Report: %s\n", *report)
	if err != nil {
		return err
	}
	if !r.Passed {
		fmt.Fprintln(env.Stdout, "The profile test did not pass; the report lists which checks failed.")
		return exitError{code: 1}
	}
	fmt.Fprintln(env.Stdout, "The profile test passed.")
	return nil
}

// midiDaemonFlags are the MIDI flags of `lets pad daemon`.
type midiDaemonFlags struct {
	on            *bool
	dev           deviceFlags
	noGreeting    *bool
	greetingDelay *float64
}

func addMIDIDaemonFlags(fs *flag.FlagSet) midiDaemonFlags {
	return midiDaemonFlags{
		on:            fs.Bool("midi", false, "show the agents on a MIDI pad (Novation Launchpad) and take presses from it"),
		dev:           addDeviceFlags(fs),
		noGreeting:    fs.Bool("no-greeting", false, "do not scroll the greeting across the pad when it starts"),
		greetingDelay: fs.Float64("greeting-delay", 0.08, "`seconds` per greeting scroll step"),
	}
}

func (m midiDaemonFlags) validate(fs *flag.FlagSet) error {
	if m.dev.set() && !*m.on {
		return &UsageError{Msg: "daemon: --profile, --profile-file, --input and --output need --midi", flags: fs}
	}
	if g := *m.greetingDelay; math.IsNaN(g) || math.IsInf(g, 0) || g < 0 || g > 1 {
		return &UsageError{Msg: fmt.Sprintf("daemon: --greeting-delay %v must be between 0 and 1 second", g), flags: fs}
	}
	return nil
}

// settings are the Launchpad's settings from the flags; off without
// --midi.
func (m midiDaemonFlags) settings() lets.MIDISettings {
	if !*m.on {
		return lets.MIDISettings{}
	}
	return lets.MIDISettings{
		On:          true,
		Device:      m.dev.resolve(),
		Greeting:    !*m.noGreeting,
		ScrollDelay: time.Duration(*m.greetingDelay * float64(time.Second)),
		Announce:    "Showing the agents on %s (input %q, output %q).\n",
	}
}
