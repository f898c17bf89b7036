package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/surface/midi/miditest"
	"github.com/lets-app/lets/backend/testenv/conformance"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

const lpPort = "Launchpad Pro:Launchpad Pro Standalone Port 20:1"

// midiCtx plugs bus, stdin and sleep into e's Env (the test seams) and
// returns a background context for the command.
func midiCtx(e *padDaemonEnv, bus *miditest.Bus, stdin string, sleep func(time.Duration)) context.Context {
	e.env.MIDI, e.env.Stdin, e.env.Sleep = bus, strings.NewReader(stdin), sleep
	return context.Background()
}

func TestPadDevices(t *testing.T) {
	e := newPadDaemonEnv(t)
	bus := miditest.New()
	bus.Plug(lpPort, lpPort)
	bus.Plug("LPMiniMK3 MIDI", "LPMiniMK3 MIDI")
	if err := runPadDevices(midiCtx(e, bus, "", nil), e.env, nil); err != nil {
		t.Fatal(err)
	}
	want := "MIDI inputs:\n  " + lpPort + "\n  LPMiniMK3 MIDI\nMIDI outputs:\n  " + lpPort + "\n  LPMiniMK3 MIDI\n" +
		"novation/launchpad/mini-mk3 [experimental]\n  input:  LPMiniMK3 MIDI\n  output: LPMiniMK3 MIDI\n" +
		"novation/launchpad/pro-mk1 [supported]\n  input:  " + lpPort + "\n  output: " + lpPort + "\n"
	if got := e.stdout.String(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	e = newPadDaemonEnv(t)
	if err := runPadDevices(midiCtx(e, miditest.New(), "", nil), e.env, nil); err != nil || !strings.HasSuffix(e.stdout.String(), "No matching MIDI devices found.\n") {
		t.Fatal(err, e.stdout.String())
	}
	var ue *UsageError
	if err := runPadDevices(midiCtx(e, bus, "", nil), e.env, []string{"x"}); !errors.As(err, &ue) {
		t.Fatal(err)
	}
}

func TestPadProfileCheck(t *testing.T) {
	e := newPadDaemonEnv(t)
	ref := conformance.File(t, "device_profiles/novation/launchpad/pro-mk1.json")
	if err := runPadProfileCheck(context.Background(), e.env, []string{ref}); err != nil {
		t.Fatal(err)
	}
	if e.stdout.String() != "Valid profile: novation/launchpad/pro-mk1 [supported]\n" {
		t.Fatal(e.stdout.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("not-json"), 0o600)
	err := runPadProfileCheck(context.Background(), e.env, []string{bad})
	if err == nil || !strings.HasPrefix(err.Error(), bad+": invalid JSON") {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(ref)
	os.WriteFile(bad, []byte(strings.Replace(string(data), `"midi.palette-grid"`, `"third-party.untrusted"`, 1)), 0o600)
	if err := runPadProfileCheck(context.Background(), e.env, []string{bad}); err == nil || !strings.Contains(err.Error(), "unknown driver") {
		t.Fatal(err)
	}
	var ue *UsageError
	if err := runPadProfileCheck(context.Background(), e.env, nil); !errors.As(err, &ue) {
		t.Fatal(err)
	}
}

// The guided test against an in-memory Launchpad whose user answers yes
// and presses every button whenever the test waits.
func TestPadTestProfile(t *testing.T) {
	e := newPadDaemonEnv(t)
	bus := miditest.New()
	bus.Plug(lpPort, lpPort)
	presses := []byte{0xB0, 91, 127, 0xB0, 92, 127, 0xB0, 98, 127, 0xB0, 97, 127}
	for i := 0; i < 8; i++ {
		presses = append(presses, 0xB0, byte(89-10*i), 127)
	}
	sleep := func(time.Duration) { bus.Press(lpPort, presses) }
	report := filepath.Join(t.TempDir(), "r", "report.json")
	ctx := midiCtx(e, bus, strings.Repeat("y\n", 9), sleep)
	err := runPadTestProfile(ctx, e.env, []string{"novation/launchpad/pro-mk1", "--report", report, "--settle-delay", "0.01"})
	if err != nil {
		t.Fatalf("%v\n%s", err, e.stdout.String())
	}
	data, err := os.ReadFile(report)
	if err != nil || !strings.Contains(string(data), `"passed": true`) || !strings.Contains(e.stdout.String(), "Report: "+report) {
		t.Fatalf("%s\n%s", data, e.stdout.String())
	}
	// The pad was blanked and returned to its normal mode.
	sent := bus.Sent(lpPort)
	if last := sent[len(sent)-1]; len(last) != 9 || last[5] != 0x10 || last[6] != 0x21 || last[7] != 0 {
		t.Fatalf("% X", last)
	}
	// A "no" answer fails the test with exit code 1.
	e = newPadDaemonEnv(t)
	err = runPadTestProfile(midiCtx(e, bus, "n\n"+strings.Repeat("y\n", 8), sleep), e.env, []string{"--profile", "novation/launchpad/pro-mk1", "--report", report})
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatal(err)
	}
	var ue *UsageError
	for _, args := range [][]string{{"--report", report}, {"novation/launchpad/pro-mk1"}, {"--profile", "x", "--report", report, "--event-timeout", "0"}} {
		if err := runPadTestProfile(ctx, e.env, args); !errors.As(err, &ue) {
			t.Fatalf("%v: %v", args, err)
		}
	}
}

func TestPadDaemonMIDI(t *testing.T) {
	e := newPadDaemonEnv(t)
	bus := miditest.New()
	bus.Plug(lpPort, lpPort)
	ctx, cancel := context.WithCancel(midiCtx(e, bus, "", func(time.Duration) {}))
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- runPadDaemon(ctx, e.env, []string{"--midi", "--no-greeting"}) }()
	e.dial(t, done).Close()
	if !bus.WaitFor(5*time.Second, func() bool { return len(bus.Sent(lpPort)) >= 82 }) {
		t.Fatal("the pad was not initialized")
	}
	// A press reaches the daemon (nobody subscribed: nothing happens, no
	// failure).
	bus.Press(lpPort, []byte{0xB0, 91, 127})
	cancel()
	if err := testutil.Wait(t, "the daemon stops", done); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.stdout.String(), "Showing the agents on Novation Launchpad Pro Mk1") {
		t.Fatal(e.stdout.String())
	}
	sent := bus.Sent(lpPort)
	if last := sent[len(sent)-1]; len(last) != 9 || last[6] != 0x21 || last[7] != 0 {
		t.Fatalf("not shut down: % X", last)
	}
	// Without a pad, --midi fails and says what to do.
	e = newPadDaemonEnv(t)
	err := runPadDaemon(midiCtx(e, miditest.New(), "", nil), e.env, []string{"--midi"})
	if err == nil || !strings.Contains(err.Error(), "no supported MIDI device profile matched") || !strings.Contains(err.Error(), "lets pad devices") {
		t.Fatal(err)
	}
	var ue *UsageError
	if err := runPadDaemon(midiCtx(e, bus, "", nil), e.env, []string{"--profile", "novation/launchpad/pro-mk1"}); !errors.As(err, &ue) {
		t.Fatal(err)
	}
}
