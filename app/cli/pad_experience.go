package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/audio"
	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/surface/web"
)

// `lets pad demo` and `lets pad show`: the standalone runners of the
// experiences spec (§7.2). They play Lets' built-in Demo or Show on a
// Launchpad (--surface midi, the default: it starts at once), in the
// browser pad (--surface web: it waits for the administrator's Demo or
// Show button) or on both, with no daemon and no agents. The command ends
// after one run, when the administrator stops it, or on Ctrl+C.

// Surfaces a runner can play on.
const (
	experienceOnMIDI = "midi"
	experienceOnWeb  = "web"
	experienceOnBoth = "both"
)

func runPadDemo(ctx context.Context, env *Env, args []string) error {
	return runPadExperience(ctx, env, experience.KindDemo, args)
}

func runPadShow(ctx context.Context, env *Env, args []string) error {
	return runPadExperience(ctx, env, experience.KindShow, args)
}

// experienceFlags are the flags of `lets pad demo` / `lets pad show`.
type experienceFlags struct {
	kind                    string
	on                      *string
	dev                     deviceFlags
	port                    *int
	lan, noOpen             *bool
	bindHost, advertiseHost *string
	audio                   *bool
	tempo                   *float64 // show only
	greetingDelay           *float64 // demo only
	noGreeting              *bool    // demo only
}

func addExperienceFlags(fs *flag.FlagSet, kind string) *experienceFlags {
	f := &experienceFlags{
		kind:          kind,
		on:            fs.String("surface", experienceOnMIDI, "`where` to play: midi (a Launchpad; starts at once), web (the browser pad; starts from its admin page) or both"),
		dev:           addDeviceFlags(fs),
		port:          fs.Int("port", web.DefaultPort, "TCP `port` of the browser pad (0 picks a free one)"),
		lan:           fs.Bool("lan", false, "let phones and tablets on this network pair with the browser pad (trusted networks only)"),
		bindHost:      fs.String("bind-host", "", "private IPv4 `address` of this machine for --lan (default: discovered)"),
		advertiseHost: fs.String("advertise-host", "", "host `name` or private IPv4 phones use in the LAN link (default: the bind address)"),
		noOpen:        fs.Bool("no-open", false, "do not open the browser pad's admin page in the desktop browser"),
	}
	if kind == experience.KindShow {
		f.audio = fs.Bool("audio", false, "play the Show's soundtrack on this computer")
		f.tempo = fs.Float64("tempo", experience.DefaultTempo, "play the Show this many times faster (`factor` > 0)")
	} else {
		f.audio = fs.Bool("audio", false, "play the Demo's sounds on this computer")
		f.greetingDelay = fs.Float64("greeting-delay", 0.08, "`seconds` per greeting scroll step on the Launchpad")
		f.noGreeting = fs.Bool("no-greeting", false, "do not scroll the greeting across the Launchpad first")
	}
	return f
}

// validate checks the flags (exit 2 on a mistake), in the reference's
// order where it has one.
func (f *experienceFlags) validate(fs *flag.FlagSet) error {
	name := f.kind
	if f.tempo != nil {
		if t := *f.tempo; math.IsNaN(t) || math.IsInf(t, 0) || t <= 0 {
			return &UsageError{Msg: experience.ErrTempo.Error(), flags: fs}
		}
	}
	switch *f.on {
	case experienceOnMIDI, experienceOnWeb, experienceOnBoth:
	default:
		return &UsageError{Msg: fmt.Sprintf("%s: --surface must be midi, web or both (got %q)", name, *f.on), flags: fs}
	}
	if !f.midi() && f.dev.set() {
		return &UsageError{Msg: name + ": --profile, --profile-file, --input and --output need --surface midi or both", flags: fs}
	}
	if !f.web() && (*f.lan || *f.bindHost != "" || *f.advertiseHost != "") {
		return &UsageError{Msg: name + ": --lan, --bind-host, and --advertise-host need --surface web or both", flags: fs}
	}
	if f.web() {
		if *f.port < 0 || *f.port > 65535 {
			return &UsageError{Msg: name + ": web port must be from 0 to 65535", flags: fs}
		}
		if (*f.bindHost != "" || *f.advertiseHost != "") && !*f.lan {
			return &UsageError{Msg: name + ": --bind-host and --advertise-host require --lan", flags: fs}
		}
	}
	if f.greetingDelay != nil {
		if g := *f.greetingDelay; math.IsNaN(g) || math.IsInf(g, 0) || g < 0 || g > 1 {
			return &UsageError{Msg: fmt.Sprintf("%s: --greeting-delay %v must be between 0 and 1 second", name, g), flags: fs}
		}
	}
	return nil
}

func (f *experienceFlags) midi() bool { return *f.on != experienceOnWeb }
func (f *experienceFlags) web() bool  { return *f.on != experienceOnMIDI }

// runPadExperience is `lets pad demo` / `lets pad show`.
func runPadExperience(ctx context.Context, env *Env, kind string, args []string) error {
	fs := flag.NewFlagSet("lets pad "+kind, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := addExperienceFlags(fs, kind)
	pos, err := parsePad(env, kind, fs, args)
	if err != nil {
		return err
	}
	if err := padNoArgs(kind, fs, pos); err != nil {
		return err
	}
	if err := f.validate(fs); err != nil {
		return err
	}
	var lan *web.LAN
	if f.web() && *f.lan {
		if lan, err = web.ResolveLAN(ctx, *f.bindHost, *f.advertiseHost, env.LAN); err != nil {
			return &UsageError{Msg: kind + ": " + err.Error()}
		}
	}
	demo, show, err := experience.LoadDefault()
	if err != nil {
		return err
	}
	st, err := lets.OpenSetup(env, false)
	if err != nil {
		return err
	}
	defer st.Close()

	settings := f.settings(lan)
	if kind == experience.KindShow {
		settings.AudioShows = []*experience.Performance{show}
	}
	parts, err := lets.BuildPads(ctx, env, st, settings)
	err = withHint("pad "+kind, err)
	if errors.Is(err, audio.ErrNoPlayer) {
		return &UsageError{Msg: err.Error()}
	}
	if err != nil {
		return err
	}
	defer parts.Cleanup() // after the runner has closed the surface
	var host experience.HostAudio
	if parts.Audio() != nil {
		host = parts.Audio().Host
	}
	parts.Announce(env)
	s := parts.Surface()
	title := demo.Title
	if kind == experience.KindShow {
		title = show.Title
	}
	if f.web() {
		fmt.Fprintf(env.Stdout, "Press %s on the browser pad's admin page to start %q. Press Ctrl+C to quit.\n", buttonName(kind), title)
	} else if kind == experience.KindDemo {
		fmt.Fprintf(env.Stdout, "%s: follow the lit buttons on the pad. Press Ctrl+C to quit.\n", title)
	}
	var tempo float64
	if f.tempo != nil {
		tempo = *f.tempo
	}
	res, err := experience.Run(ctx, experience.RunOptions{
		Kind: kind, Demo: demo, Show: show, Surface: s,
		WaitForAdmin: f.web(), Tempo: tempo, Audio: host, Out: env.Stdout,
	})
	if err != nil {
		return err
	}
	switch {
	case res.Complete:
		fmt.Fprintf(env.Stdout, "%s: the end.\n", title)
	case res.Reason == "":
		fmt.Fprintln(env.Stdout, "Stopped before anything played.")
	default:
		fmt.Fprintf(env.Stdout, "%s stopped (%s).\n", title, res.Reason)
	}
	if kind == experience.KindShow && !res.Complete {
		return exitError{code: 1} // §7.2: show succeeds only when it played to the end
	}
	return nil
}

func buttonName(kind string) string {
	if kind == experience.KindShow {
		return "Show"
	}
	return "Demo"
}

// settings are the pad parts of the runner from the flags: the Launchpad
// and/or the browser pad, and the sounds; no daemon (the runner draws on
// the surface itself).
func (f *experienceFlags) settings(lan *web.LAN) lets.PadSettings {
	s := lets.PadSettings{Audio: *f.audio}
	if f.midi() {
		s.MIDI = lets.MIDISettings{On: true, Device: f.dev.resolve(), Announce: "Playing on %s (input %q, output %q).\n"}
		if f.kind == experience.KindDemo && !*f.noGreeting {
			s.MIDI.Greeting = true
			s.MIDI.ScrollDelay = time.Duration(*f.greetingDelay * float64(time.Second))
		}
	}
	if f.web() {
		s.Web = lets.WebSettings{On: true, Port: *f.port, LAN: lan, OpenAdmin: !*f.noOpen, PrintAddresses: true}
	}
	return s
}
