package midi

import (
	"errors"
	"strings"
	"testing"
)

type fakeLister struct {
	ins, outs []string
	queried   int
}

func (f *fakeLister) Inputs() ([]string, error)  { f.queried++; return f.ins, nil }
func (f *fakeLister) Outputs() ([]string, error) { f.queried++; return f.outs, nil }

func catalog(t *testing.T) *Catalog {
	t.Helper()
	c, err := LoadCatalog(CatalogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCaseM07_DetectProMk3Midi2(t *testing.T) {
	names := []string{"LPProMK3 DIN 20:0", "LPProMK3 MIDI 2 20:1", "LPProMK3 DAW 20:2"}
	got := catalog(t).Detect(names, names, true)
	if len(got) != 1 || got[0].Profile.ID != "novation/launchpad/pro-mk3" || got[0].Input != "LPProMK3 MIDI 2 20:1" || got[0].Output != "LPProMK3 MIDI 2 20:1" {
		t.Fatalf("%+v", got)
	}
}

func TestCaseM08_DetectProMk1Standalone(t *testing.T) {
	names := []string{"Launchpad Pro:Launchpad Pro Standalone Port 20:1", "Launchpad Pro:Launchpad Pro Live Port 20:0"}
	got := catalog(t).Detect(names, names, false)
	if len(got) != 1 || !strings.Contains(got[0].Input, "Standalone Port") || !strings.Contains(got[0].Output, "Standalone Port") {
		t.Fatalf("%+v", got)
	}
}

func TestCaseM09_DetectCaseInsensitive(t *testing.T) {
	got := catalog(t).Detect([]string{"launchpad pro standalone port"}, []string{"LAUNCHPAD PRO STANDALONE PORT"}, true)
	if len(got) != 1 || got[0].Profile.ID != "novation/launchpad/pro-mk1" {
		t.Fatalf("%+v", got)
	}
}

func TestCaseM10_DetectWindowsNames(t *testing.T) {
	got := catalog(t).Detect([]string{"MIDIIN2 (LPProMK3 MIDI)", "LPProMK3 MIDI"}, []string{"MIDIOUT2 (LPProMK3 MIDI)", "LPProMK3 MIDI"}, true)
	if len(got) != 1 || got[0].Profile.ID != "novation/launchpad/pro-mk3" || got[0].Input != "MIDIIN2 (LPProMK3 MIDI)" || got[0].Output != "MIDIOUT2 (LPProMK3 MIDI)" {
		t.Fatalf("%+v", got)
	}
}

func TestCaseM11_DetectMiniMk3(t *testing.T) {
	names := []string{"LPMiniMK3 DAW", "LPMiniMK3 MIDI"}
	got := catalog(t).Detect(names, names, true)
	if len(got) != 1 || got[0].Profile.ID != "novation/launchpad/mini-mk3" || got[0].Input != "LPMiniMK3 MIDI" {
		t.Fatalf("%+v", got)
	}
}

func TestCaseM12_OnlyExperimental(t *testing.T) {
	l := &fakeLister{ins: []string{"LPMiniMK3 MIDI"}, outs: []string{"LPMiniMK3 MIDI"}}
	_, err := Resolve(catalog(t), l, ResolveOptions{})
	if err == nil || err.Error() != "only experimental device profiles matched (novation/launchpad/mini-mk3); select one explicitly with --profile" {
		t.Fatal(err)
	}
	if !errors.Is(err, ErrNoDevice) {
		t.Fatal("not a no-device error")
	}
	// Named explicitly, the experimental profile is used.
	c, err := Resolve(catalog(t), l, ResolveOptions{ProfileID: "novation/launchpad/mini-mk3"})
	if err != nil || c.Input != "LPMiniMK3 MIDI" {
		t.Fatal(c, err)
	}
}

func TestCaseM13_NoPorts(t *testing.T) {
	_, err := Resolve(catalog(t), &fakeLister{}, ResolveOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "no supported MIDI device profile matched; ") || !errors.Is(err, ErrNoDevice) {
		t.Fatal(err)
	}
}

func TestCaseM14_Ambiguous(t *testing.T) {
	l := &fakeLister{
		ins:  []string{"Launchpad Pro Standalone Port 1", "Launchpad Pro Standalone Port 2"},
		outs: []string{"Launchpad Pro Standalone Port 1"},
	}
	_, err := Resolve(catalog(t), l, ResolveOptions{})
	want := "multiple MIDI device candidates matched; pass --profile, --input, and --output (novation/launchpad/pro-mk1: input='Launchpad Pro Standalone Port 1', output='Launchpad Pro Standalone Port 1'; novation/launchpad/pro-mk1: input='Launchpad Pro Standalone Port 2', output='Launchpad Pro Standalone Port 1')"
	if err == nil || err.Error() != want {
		t.Fatal(err)
	}
	if errors.Is(err, ErrNoDevice) {
		t.Fatal("ambiguity is not 'no device'")
	}
}

func TestCaseM15_ExplicitPortsNeverQueried(t *testing.T) {
	l := &fakeLister{}
	c, err := Resolve(catalog(t), l, ResolveOptions{ProfileID: "novation/launchpad/pro-mk1", Input: "Explicit input", Output: "Explicit output"})
	if err != nil || c.Input != "Explicit input" || c.Output != "Explicit output" || l.queried != 0 {
		t.Fatal(c, err, l.queried)
	}
}

func TestResolveErrors(t *testing.T) {
	cat := catalog(t)
	l := &fakeLister{ins: []string{"LPProMK3 MIDI"}, outs: []string{"nothing"}}
	if _, err := Resolve(cat, l, ResolveOptions{ProfileID: "a/b/c", ProfileFile: "x"}); err == nil || err.Error() != "use either --profile or --profile-file, not both" {
		t.Fatal(err)
	}
	if _, err := Resolve(cat, l, ResolveOptions{ProfileID: "a/b/c"}); err == nil || err.Error() != "unknown device profile: a/b/c" {
		t.Fatal(err)
	}
	if _, err := Resolve(cat, l, ResolveOptions{ProfileID: "novation/launchpad/pro-mk3"}); err == nil || err.Error() != "no MIDI output matched profile novation/launchpad/pro-mk3" {
		t.Fatal(err)
	}
	if _, err := Resolve(cat, l, ResolveOptions{ProfileID: "novation/launchpad/pro-mk1"}); err == nil || err.Error() != "no MIDI input matched profile novation/launchpad/pro-mk1" {
		t.Fatal(err)
	}
	// Auto-detection checks explicit names against the patterns.
	if _, err := Resolve(cat, &fakeLister{}, ResolveOptions{Input: "Explicit", Output: "Explicit"}); err == nil || !errors.Is(err, ErrNoDevice) {
		t.Fatal(err)
	}
	path := writeTemp(t, "p.json", proMk1(t))
	c, err := Resolve(cat, &fakeLister{ins: []string{"Launchpad Pro Standalone Port"}, outs: []string{"Launchpad Pro Standalone Port"}}, ResolveOptions{ProfileFile: path})
	if err != nil || c.Profile.Source != path {
		t.Fatal(c, err)
	}
}
