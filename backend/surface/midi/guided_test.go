package midi

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// fakeTestSurface emits the expected event after every render that asks
// for one.
type fakeTestSurface struct {
	initErr error
	renders []visual.View
	pending []Event
	closed  int
}

func (f *fakeTestSurface) Initialize() error { return f.initErr }
func (f *fakeTestSurface) RenderView(v visual.View) error {
	f.renders = append(f.renders, v)
	return nil
}
func (f *fakeTestSurface) PollEvents() []Event {
	p := f.pending
	f.pending = nil
	return p
}
func (f *fakeTestSurface) Close() error { f.closed++; return nil }

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time        { return c.t }
func (c *fakeClock) sleep(d time.Duration) { c.t = c.t.Add(d) }

func TestCaseM52_GuidedTestPasses(t *testing.T) {
	p := builtin(t, "novation/launchpad/pro-mk1")
	f := &fakeTestSurface{}
	// Every action and selector press arrives (with noise before it).
	for _, a := range wire.Actions() {
		f.pending = append(f.pending, Event{Slot: 7}, Event{Action: a})
	}
	for i := 0; i < 8; i++ {
		f.pending = append(f.pending, Event{Slot: i})
	}
	// Deliver everything at once: waitEvent discards what it does not
	// want, so feed one expected event per poll instead.
	all := f.pending
	f.pending = nil
	polls := 0
	surface := &pollFeed{fakeTestSurface: f, feed: all, polls: &polls}
	clk := &fakeClock{t: time.Date(2026, 7, 19, 10, 0, 0, 123456000, time.UTC)}
	asked := 0
	var out strings.Builder
	path := filepath.Join(t.TempDir(), "sub", "report.json")
	r, err := RunProfileTest(ProfileTest{
		Surface: surface, Profile: p, InputPort: "in", OutputPort: "out", ReportPath: path, Version: "test",
		Ask: func(q string) (bool, error) { asked++; return true, nil },
		Out: &out,
		Now: clk.now, Sleep: clk.sleep,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Passed || !r.Results.Completed || r.Results.FailureStage != nil || asked != 9 {
		t.Fatalf("%+v asked %d", r.Results, asked)
	}
	if len(f.renders) != 18 || f.closed != 1 {
		t.Fatalf("renders %d closed %d", len(f.renders), f.closed)
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := r.Encode()
	if string(saved) != string(want) || !strings.HasSuffix(string(saved), "}\n") {
		t.Fatal("saved report differs from the returned one")
	}
	for _, bad := range []string{"prompt", "session_id", path} {
		if strings.Contains(string(saved), bad) {
			t.Fatalf("report contains %q", bad)
		}
	}
	var m map[string]any
	json.Unmarshal(saved, &m)
	if !regexp.MustCompile(`^2026-07-19T10:00:\d\d\.\d{6}\+00:00$`).MatchString(m["generated_at"].(string)) || m["schema_version"].(float64) != 1 {
		t.Fatal(m["generated_at"])
	}
	if !strings.Contains(out.String(), "Press APPROVE.") || !strings.Contains(out.String(), "Press selector 8") {
		t.Fatal(out.String())
	}
	// The selector stage renders every slot with the accent of its slot and
	// states in enum order.
	last := f.renders[17]
	if len(last.Sessions) != 8 || !last.Sessions[7].Selected || last.Sessions[1].Accent != "magenta" || last.Sessions[7].State != wire.StateRunning {
		t.Fatalf("%+v", last.Sessions)
	}
}

type pollFeed struct {
	*fakeTestSurface
	feed  []Event
	polls *int
}

func (p *pollFeed) PollEvents() []Event {
	*p.polls++
	if len(p.feed) == 0 {
		return nil
	}
	e := p.feed[0]
	p.feed = p.feed[1:]
	return []Event{e}
}

func TestCaseM53_GuidedTestInitializeFails(t *testing.T) {
	p := builtin(t, "novation/launchpad/mini-mk3")
	secret := errors.New("cannot open /home/someone/secret/device")
	f := &fakeTestSurface{initErr: secret}
	path := filepath.Join(t.TempDir(), "r.json")
	clk := &fakeClock{t: time.Now()}
	r, err := RunProfileTest(ProfileTest{Surface: f, Profile: p, ReportPath: path, Now: clk.now, Sleep: clk.sleep,
		Ask: func(string) (bool, error) { t.Fatal("asked"); return false, nil }})
	if !errors.Is(err, secret) {
		t.Fatal(err)
	}
	if f.closed != 1 || r.Passed || r.Results.FailureStage == nil || *r.Results.FailureStage != StageInitialize {
		t.Fatalf("%+v", r.Results)
	}
	saved, _ := os.ReadFile(path)
	if strings.Contains(string(saved), "secret") || !strings.Contains(string(saved), `"failure_stage": "initialize"`) {
		t.Fatal(string(saved))
	}
}

// A missed press times out (fake clock) and fails only that check.
func TestGuidedTestTimeout(t *testing.T) {
	p := builtin(t, "novation/launchpad/mini-mk3")
	f := &fakeTestSurface{}
	clk := &fakeClock{t: time.Now()}
	r, err := RunProfileTest(ProfileTest{Surface: f, Profile: p, ReportPath: filepath.Join(t.TempDir(), "r.json"),
		Now: clk.now, Sleep: clk.sleep, EventTimeout: time.Second, In: strings.NewReader("y\nyes\nY\nn\n\n\n\n\n\n")})
	if err != nil {
		t.Fatal(err)
	}
	if r.Passed || !r.Results.Completed || r.Results.Actions["approve"] || !r.Results.Visual["idle"] || !r.Results.Visual["waiting_for_reply"] || r.Results.Visual["user_typing"] {
		t.Fatalf("%+v", r.Results)
	}
	if !reflect.DeepEqual(len(r.Results.Selectors), 8) {
		t.Fatal(r.Results.Selectors)
	}
}
