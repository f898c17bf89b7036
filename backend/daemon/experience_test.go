package daemon_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/testenv/conformance"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// stageSurface is the fake surface plus the Show and experience methods;
// it records every output in order.
type stageSurface struct {
	*daemontest.Surface
	mu  sync.Mutex
	log []record
	now func() time.Time // stamps frames with the daemon's (fake) clock
}

// record is one surface call: "surface" (Render), "frame" (RenderShowFrame)
// or "state" (SetExperience).
type record struct {
	kind  string
	view  control.View
	frame *visual.ShowFrame
	state visual.ExperienceView
	clock time.Time // the daemon's clock when a frame was rendered
}

func (r record) String() string {
	switch r.kind {
	case "state":
		s := r.state.Status
		if r.state.Kind != nil {
			s += " " + *r.state.Kind
		}
		if r.state.CueIndex != nil {
			s += fmt.Sprintf(" cue %d", *r.state.CueIndex)
		}
		if r.state.Reason != nil {
			s += " (" + *r.state.Reason + ")"
		}
		return "state " + s
	case "surface":
		return fmt.Sprintf("surface centre=%q", r.view.Centre)
	}
	return r.kind
}

var (
	_ surface.ShowRenderer       = (*stageSurface)(nil)
	_ surface.ExperienceReporter = (*stageSurface)(nil)
)

func newStageSurface() *stageSurface {
	return &stageSurface{Surface: daemontest.NewSurfaceCapacity(8)}
}

func (s *stageSurface) Render(v control.View) error {
	s.mu.Lock()
	s.log = append(s.log, record{kind: "surface", view: v})
	s.mu.Unlock()
	return s.Surface.Render(v)
}

func (s *stageSurface) RenderShowFrame(f *visual.ShowFrame) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, record{kind: "frame", frame: f, clock: s.now()})
	return nil
}

func (s *stageSurface) Close() error {
	s.mu.Lock()
	s.log = append(s.log, record{kind: "close"})
	s.mu.Unlock()
	return s.Surface.Close()
}

func (s *stageSurface) SetExperience(v visual.ExperienceView) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, record{kind: "state", state: v})
	return nil
}

// records returns the log from index from on.
func (s *stageSurface) records(from int) []record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]record(nil), s.log[min(from, len(s.log)):]...)
}

func (s *stageSurface) mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.log)
}

// waitRecords waits until the records from index from satisfy ok.
func (s *stageSurface) waitRecords(t testing.TB, from int, what string, ok func([]record) bool) []record {
	t.Helper()
	var rs []record
	testutil.Eventually(t, what, func() bool {
		rs = s.records(from)
		return ok(rs)
	})
	return rs
}

func hasState(status string) func([]record) bool {
	return func(rs []record) bool {
		for _, r := range rs {
			if r.kind == "state" && r.state.Status == status {
				return true
			}
		}
		return false
	}
}

func startStage(t testing.TB, opts ...harnessOpt) (*harness, *stageSurface) {
	t.Helper()
	s := newStageSurface()
	h := start(t, append([]harnessOpt{func(o *daemon.Options) { o.Surface = s }}, opts...)...)
	s.now = h.clock.Now
	h.surface = s.Surface
	return h, s
}

// A Show starts, plays its first cue after the lead-in (frame before
// state) and stops when an agent asks for approval; the live view follows.
func TestExperienceShowPreemptedByApproval(t *testing.T) {
	h, s := startStage(t)
	m := s.mark()
	h.surface.Inject(surface.ExperienceRequested{Kind: wire.ExperienceShow})
	h.barrier()
	s.waitRecords(t, m, "starting", hasState(visual.ExperienceStarting))
	if got := h.status()["experience"]; got != "show" {
		t.Fatalf("status.experience %v, want show", got)
	}
	h.advance(0.6)
	rs := s.waitRecords(t, m, "playing", hasState(visual.ExperiencePlaying))
	if rs[len(rs)-2].kind != "frame" || rs[len(rs)-1].kind != "state" {
		t.Fatalf("frame must precede its experience_state: %v", rs)
	}
	m = s.mark()
	h.update("codex", "a", "waiting_for_approval")
	rs = s.waitRecords(t, m, "live view", func(rs []record) bool {
		return len(rs) >= 2 && rs[len(rs)-1].kind == "surface" && rs[len(rs)-1].view.Centre == wire.StateWaitingForApproval
	})
	if rs[0].kind != "state" || rs[0].state.Status != visual.ExperienceIdle || *rs[0].state.Reason != experience.ReasonAgentAttention {
		t.Fatalf("want idle (agent_attention_required) then the live view, got %v", rs)
	}
	if got := h.status()["experience"]; got != nil {
		t.Fatalf("status.experience %v, want null", got)
	}
}

// kindsOf names records: "surface", "frame", "state:<status>", "close".
func kindsOf(rs []record) []string {
	var out []string
	for _, r := range rs {
		k := r.kind
		if k == "state" {
			k += ":" + r.state.Status
		}
		out = append(out, k)
	}
	return out
}

func withReferenceExperiences(t testing.TB) harnessOpt {
	t.Helper()
	read := func(rel string) []byte {
		b, err := os.ReadFile(conformance.File(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	demo, err := experience.ParseDemoManifest(read("experiences/demo-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	show, err := experience.ParsePerformanceManifest(read("experiences/constellation-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	return func(o *daemon.Options) { o.Demo, o.Show = demo, show }
}

func lastStateRecord(t testing.TB, rs []record) visual.ExperienceView {
	t.Helper()
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].kind == "state" {
			return rs[i].state
		}
	}
	t.Fatalf("no experience_state in %v", rs)
	return visual.ExperienceView{}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestCase018_019_DaemonDemo(t *testing.T) {
	h, s := startStage(t, withReferenceExperiences(t))
	h.barrier()
	m := s.mark()
	h.surface.Inject(surface.ExperienceRequested{Kind: wire.ExperienceDemo})
	h.barrier()
	rs := s.records(m)
	// Case 19: the stage view first, then experience_state cue 0.
	if !slices.Equal(kindsOf(rs), []string{"surface", "state:playing"}) {
		t.Fatalf("case 19: %v", kindsOf(rs))
	}
	v := rs[1].state
	if deref(v.CueIndex) != 0 || deref(v.AudioCue) != "question" || v.AudioSlot != nil || v.AudioSequence != 1 {
		t.Fatalf("case 19: %+v", v)
	}
	if rs[0].view.Indicators[0].Label != "Builder" || rs[0].view.Centre != wire.StateRunning {
		t.Fatalf("stage view %+v", rs[0].view)
	}
	if got := h.status()["experience"]; got != "demo" {
		t.Fatalf("case 18: status.experience %v", got)
	}
	// Case 18: select 1, approve.
	h.selectSlot(1)
	m = s.mark()
	h.press(wire.ActionApprove)
	rs = s.records(m)
	if !slices.Equal(kindsOf(rs), []string{"surface", "state:playing"}) {
		t.Fatalf("approve: %v", kindsOf(rs))
	}
	if in := rs[0].view.Indicators[1]; in.Slot != 1 || in.State != wire.StateSuccess {
		t.Fatalf("case 18: the last view shows slot 1 %+v", in)
	}
	if deref(rs[1].state.AudioCue) != "approve" || deref(rs[1].state.AudioSlot) != 1 {
		t.Fatalf("approve state %+v", rs[1].state)
	}
	m = s.mark()
	h.surface.Inject(surface.ExperienceStopRequested{})
	h.barrier()
	rs = s.records(m)
	if !slices.Equal(kindsOf(rs), []string{"state:idle", "surface"}) || deref(rs[0].state.Reason) != "stopped" || deref(rs[0].state.Kind) != "demo" {
		t.Fatalf("case 18 stop: %v %+v", rs, rs[0].state)
	}
	if got := h.status()["experience"]; got != nil {
		t.Fatalf("case 18: status.experience %v after stop", got)
	}
}

// Case 22 in the daemon: after the terminal stage, 2.0 s later idle
// (complete) and then the live surface.
func TestCase022_DaemonDemoCompletes(t *testing.T) {
	h, s := startStage(t, withReferenceExperiences(t))
	h.update("codex", "a", "running")
	h.surface.Inject(surface.ExperienceRequested{Kind: wire.ExperienceDemo})
	h.barrier()
	for _, ev := range []surface.Event{surface.SessionSelected{Slot: 1}, surface.ActionPressed{Action: wire.ActionApprove}, surface.SessionSelected{Slot: 2}, surface.ActionPressed{Action: wire.ActionRetry}} {
		h.surface.Inject(ev)
		h.barrier()
	}
	m := s.mark()
	h.press(wire.ActionApprove) // swallowed on the terminal stage
	if rs := s.records(m); len(rs) != 0 {
		t.Fatalf("terminal stage reacted: %v", rs)
	}
	h.advance(2.0)
	rs := s.waitRecords(t, m, "idle then the live view", func(rs []record) bool { return len(rs) >= 2 })
	if !slices.Equal(kindsOf(rs), []string{"state:idle", "surface"}) || deref(rs[0].state.Reason) != "complete" {
		t.Fatalf("end: %v", rs)
	}
	if in := rs[1].view.Indicators; len(in) != 1 || in[0].Label == "Builder" {
		t.Fatalf("the live view must show the real agent: %+v", in)
	}
}

// Case 35 and the rendering rule: during a Show agent updates are applied
// but not rendered; the admin stop reports idle and then renders the live
// view with them.
func TestCase035_DaemonStopShowRestoresLiveView(t *testing.T) {
	h, s := startStage(t)
	h.surface.Inject(surface.ExperienceRequested{Kind: wire.ExperienceShow})
	h.barrier()
	h.advance(0.5)
	s.waitRecords(t, 0, "first cue", hasState(visual.ExperiencePlaying))
	m := s.mark()
	h.update("codex", "a", "running")
	h.update("codex", "b", "success")
	h.barrier()
	h.ticks(3)
	for _, r := range s.records(m) {
		if r.kind == "surface" {
			t.Fatalf("the live view was rendered during the Show: %v", s.records(m))
		}
	}
	h.surface.Inject(surface.ExperienceStopRequested{})
	h.barrier()
	rs := s.records(m)
	if len(rs) < 2 || !slices.Equal(kindsOf(rs[len(rs)-2:]), []string{"state:idle", "surface"}) {
		t.Fatalf("stop: %v", rs)
	}
	v := rs[len(rs)-2].state
	if deref(v.Reason) != "stopped" || deref(v.Kind) != "show" {
		t.Fatalf("idle %+v", v)
	}
	if len(rs[len(rs)-1].view.Indicators) != 2 {
		t.Fatalf("the live view lacks the agents that reported during the Show: %+v", rs[len(rs)-1].view)
	}
	// Case 36: a stop while nothing plays sends nothing.
	m = s.mark()
	h.surface.Inject(surface.ExperienceStopRequested{})
	h.barrier()
	if rs := s.records(m); len(rs) != 0 {
		t.Fatalf("case 36: %v", rs)
	}
}

// Case 34 in the daemon: selections and presses during a Show never reach
// an agent.
func TestCase034_DaemonShowSwallowsPresses(t *testing.T) {
	h, s := startStage(t)
	h.update("codex", "a", "running")
	sub := h.subscribe("codex", "a", []string{"stop"})
	h.surface.Inject(surface.ExperienceRequested{Kind: wire.ExperienceShow})
	h.barrier()
	m := s.mark()
	h.press(wire.ActionStop)
	h.selectSlot(0)
	sub.expectSilence()
	for _, r := range s.records(m) {
		if r.kind != "frame" && !(r.kind == "state" && r.state.Status == visual.ExperiencePlaying) {
			t.Fatalf("a press changed something during the Show: %v", s.records(m))
		}
	}
	// Case 37: a second start while the Show plays changes nothing.
	m = s.mark()
	h.surface.Inject(surface.ExperienceRequested{Kind: wire.ExperienceDemo})
	h.barrier()
	for _, r := range s.records(m) {
		if r.kind == "state" && r.state.Status != visual.ExperiencePlaying {
			t.Fatalf("case 37: %v", s.records(m))
		}
	}
	if got := h.status()["experience"]; got != "show" {
		t.Fatalf("status.experience %v", got)
	}
}

// Case 38 and the brief's preemption rule through a real Wire client: an
// agent entering waiting_for_approval mid-Demo stops it within one tick
// (agent_attention_required) and the pad shows the real state. It needs
// no tick at all: the daemon preempts while it handles the state message.
func TestCase038_DaemonDemoPreemptedByWireClient(t *testing.T) {
	for _, kind := range []string{wire.ExperienceDemo, wire.ExperienceShow} {
		t.Run(kind, func(t *testing.T) {
			h, s := startStage(t)
			ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
			defer cancel()
			wc := wireclient.New(h.path)
			agent := wire.Identity{Backend: "claude-code", SessionID: "s1"}
			if _, err := wc.ReportStateReply(ctx, wire.StateCommand{Agent: agent, State: wire.StateRunning, Reply: true}); err != nil {
				t.Fatal(err)
			}
			h.surface.Inject(surface.ExperienceRequested{Kind: kind})
			h.barrier()
			if kind == wire.ExperienceDemo {
				h.selectSlot(1) // mid-Demo
			}
			m := s.mark()
			if _, err := wc.ReportStateReply(ctx, wire.StateCommand{Agent: agent, State: wire.StateWaitingForApproval, Reply: true}); err != nil {
				t.Fatal(err)
			}
			// The fake clock does not move: no tick happens, so the
			// preemption comes from the state message itself.
			rs := s.waitRecords(t, m, "preemption", func(rs []record) bool { return len(rs) >= 2 })
			if !slices.Equal(kindsOf(rs[:2]), []string{"state:idle", "surface"}) || deref(rs[0].state.Reason) != experience.ReasonAgentAttention || deref(rs[0].state.Kind) != kind {
				t.Fatalf("preemption: %v %+v", rs, rs[0].state)
			}
			if v := rs[1].view; v.Centre != wire.StateWaitingForApproval || len(v.Indicators) != 1 || v.Indicators[0].State != wire.StateWaitingForApproval {
				t.Fatalf("the pad must show the real state: %+v", v)
			}
			st, err := wc.Status(ctx)
			if err != nil || st.Experience != "" {
				t.Fatalf("status.experience %q (%v)", st.Experience, err)
			}
		})
	}
}

// Preemption on a tick: an agent's success falls back to
// waiting_for_reply after the terminal hold while a Show plays.
func TestDaemonShowPreemptedOnTick(t *testing.T) {
	h, s := startStage(t)
	h.update("codex", "a", "success")
	h.surface.Inject(surface.ExperienceRequested{Kind: wire.ExperienceShow})
	h.barrier()
	if got := h.status()["experience"]; got != "show" {
		t.Fatalf("a success does not block: %v", got)
	}
	m := s.mark()
	h.advance(wire.DefaultTerminalHold + 0.1)
	rs := s.waitRecords(t, m, "preemption on a tick", hasState(visual.ExperienceIdle))
	v := lastStateRecord(t, rs)
	if deref(v.Reason) != experience.ReasonAgentAttention {
		t.Fatalf("idle %+v", v)
	}
	s.waitRecords(t, m, "the live view", func(rs []record) bool {
		return len(rs) > 0 && rs[len(rs)-1].kind == "surface" && rs[len(rs)-1].view.Centre == wire.StateWaitingForReply
	})
}

// Case 39: a start while an agent waits for a reply is blocked and nothing
// starts.
func TestCase039_DaemonBlocksStartWhileAgentWaits(t *testing.T) {
	for _, state := range []string{"waiting_for_reply", "waiting_for_approval"} {
		h, s := startStage(t)
		h.update("codex", "a", "running")
		h.update("codex", "b", state) // not selected: any session counts
		for _, kind := range []string{wire.ExperienceDemo, wire.ExperienceShow} {
			m := s.mark()
			h.surface.Inject(surface.ExperienceRequested{Kind: kind})
			h.barrier()
			rs := s.records(m)
			if !slices.Equal(kindsOf(rs), []string{"state:blocked"}) {
				t.Fatalf("%s/%s: %v", state, kind, rs)
			}
			v := rs[0].state
			if deref(v.Kind) != kind || !strings.Contains(deref(v.Reason).(string), "waiting") {
				t.Fatalf("blocked %+v", v)
			}
			if got := h.status()["experience"]; got != nil {
				t.Fatalf("status.experience %v", got)
			}
		}
	}
}

// Case 43: shutting down during playback reports idle (daemon_stopped)
// before the surface closes.
func TestCase043_DaemonShutdownDuringShow(t *testing.T) {
	h, s := startStage(t)
	h.surface.Inject(surface.ExperienceRequested{Kind: wire.ExperienceShow})
	h.barrier()
	m := s.mark()
	h.stop()
	rs := s.records(m)
	if len(rs) < 2 || !slices.Equal(kindsOf(rs[len(rs)-2:]), []string{"state:idle", "close"}) || deref(rs[len(rs)-2].state.Reason) != experience.ReasonDaemonStopped {
		t.Fatalf("shutdown: %v", rs)
	}
}

// fakeAudio records the host audio calls.
type fakeAudio struct {
	mu                sync.Mutex
	earcons           []string
	starts, stops     int
	startTempo        float64
	startShowDuration int
}

func (a *fakeAudio) Earcon(name string, slot int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.earcons = append(a.earcons, fmt.Sprintf("%s:%d", name, slot))
}

func (a *fakeAudio) StartSoundtrack(show *experience.Performance, tempo float64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.starts++
	a.startTempo, a.startShowDuration = tempo, show.DurationMS
	return nil
}

func (a *fakeAudio) StopSoundtrack() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stops++
}

func (a *fakeAudio) counts() (int, int, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.starts, a.stops, slices.Clone(a.earcons)
}

// Case 40: with host audio, the soundtrack starts exactly once at the
// first tick at or after the start and stops once; Demo earcons play.
func TestCase040_DaemonHostAudio(t *testing.T) {
	audio := &fakeAudio{}
	h, s := startStage(t, withControl(func(c *control.Config) { c.AudioFeedback = true }), func(o *daemon.Options) { o.ExperienceAudio = audio })
	h.surface.Inject(surface.ExperienceRequested{Kind: wire.ExperienceShow})
	h.barrier()
	if starts, _, _ := audio.counts(); starts != 0 {
		t.Fatal("the soundtrack started during the lead-in")
	}
	h.advance(0.5)
	s.waitRecords(t, 0, "first cue", hasState(visual.ExperiencePlaying))
	h.ticks(3)
	h.surface.Inject(surface.ExperienceStopRequested{})
	h.barrier()
	if starts, stops, _ := audio.counts(); starts != 1 || stops != 1 || audio.startTempo != 1 || audio.startShowDuration < 60000 {
		t.Fatalf("soundtrack started %d, stopped %d times (tempo %v)", starts, stops, audio.startTempo)
	}
	h.surface.Inject(surface.ExperienceRequested{Kind: wire.ExperienceDemo})
	h.barrier()
	h.selectSlot(1)
	if _, _, earcons := audio.counts(); !slices.Equal(earcons, []string{"approval:-1", "session_selected:1"}) {
		t.Fatalf("earcons %v", earcons)
	}
}

// The daemon ticks a Show at its cue boundaries, not only on its 30 ms
// poll. On the daemon's fake clock (nothing here depends on the wall clock
// or the machine's load): the test moves the clock from one wake-up of the
// daemon to the next. The periodic ticks in between render nothing; before
// every cue the daemon's next wake-up is exactly that cue's boundary, and
// when the clock reaches it exactly one new frame is rendered, stamped with
// the boundary's time. The cues (25 ms) are shorter than the tick (30 ms),
// so most boundaries have no tick near them: their frames come from the
// cue timer alone.
func TestDaemonShowCueTiming(t *testing.T) {
	show := quickShow(t, 24, 25)
	h, s := startStage(t, func(o *daemon.Options) { o.Show = show })
	requested := h.clock.Now()
	h.surface.Inject(surface.ExperienceRequested{Kind: wire.ExperienceShow})
	h.barrier()

	frames := func() []record {
		var out []record
		for _, r := range s.records(0) {
			if r.kind == "frame" {
				out = append(out, r)
			}
		}
		return out
	}
	const cues = 20
	for i := range cues {
		boundary := requested.Add(experience.DefaultLeadIn + time.Duration(show.Start(i))*time.Millisecond)
		// The ticks before the boundary render nothing.
		for {
			next, ok := h.clock.NextDeadline()
			if !ok {
				t.Fatalf("before cue %d the daemon has no wake-up armed", i)
			}
			if !next.Before(boundary) {
				if !next.Equal(boundary) {
					t.Fatalf("before cue %d the daemon wakes %v after the cue's boundary, want exactly at it", i, next.Sub(boundary))
				}
				break
			}
			h.setTime(next)
			if n := len(frames()); n != i {
				t.Fatalf("%d frames %v before cue %d's boundary, want %d", n, next.Sub(boundary), i, i)
			}
		}
		h.setTime(boundary)
		rs := frames()
		if len(rs) != i+1 || !rs[i].clock.Equal(boundary) {
			t.Fatalf("cue %d: %d frames, the last at %v; want %d, at the boundary %v", i, len(rs), rs[len(rs)-1].clock, i+1, boundary)
		}
	}
}

// quickShow is a synthetic Show of n cues of d ms each (a light walking
// the grid), for timing tests.
func quickShow(t testing.TB, n, d int) *experience.Performance {
	t.Helper()
	var cues []string
	for i := range n {
		grid := make([]string, 8)
		for y := range 8 {
			row := make([]string, 8)
			for x := range 8 {
				row[x] = "0"
				if y*8+x == i%64 {
					row[x] = "1"
				}
			}
			grid[y] = "[" + strings.Join(row, ",") + "]"
		}
		cues = append(cues, fmt.Sprintf(`{"act":0,"duration_ms":%d,"caption":null,"frame":{"grid":[%s],"top":[0,0,0,0,0,0,0,0],"right":[0,0,0,0,0,0,0,0]}}`, d, strings.Join(grid, ",")))
	}
	doc := fmt.Sprintf(`{"schema_version":1,"kind":"performance","id":"quick","title":"Quick","dimensions":{"grid":[8,8],"top":8,"right":8},"duration_ms":%d,"acts":["Quick"],"palette":[{"fallback":"off","rgb":[0,0,0]},{"fallback":"accent:cyan:selected","rgb":[0,200,255]}],"cues":[%s],"audio":{"asset":"audio/quick.wav","mime_type":"audio/wav","duration_ms":%d}}`, n*d, strings.Join(cues, ","), n*d)
	p, err := experience.ParsePerformanceManifest([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
