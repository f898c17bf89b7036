package daemon_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// stageSurface is the fake surface plus the Show and experience methods;
// it records every output in order.
type stageSurface struct {
	*daemontest.Surface
	mu  sync.Mutex
	log []record
}

// record is one surface call: "surface" (Render), "frame" (RenderShowFrame)
// or "state" (SetExperience).
type record struct {
	kind  string
	view  control.View
	frame *visual.ShowFrame
	state visual.ExperienceView
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
	s.log = append(s.log, record{kind: "frame", frame: f})
	return nil
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
	deadline := time.Now().Add(ioTimeout)
	for {
		rs := s.records(from)
		if ok(rs) {
			return rs
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; surface saw %v", what, rs)
		}
		time.Sleep(2 * time.Millisecond)
	}
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
	rs := s.waitRecords(t, m, "starting", hasState(visual.ExperienceStarting))
	if got := h.status()["experience"]; got != "show" {
		t.Fatalf("status.experience %v, want show", got)
	}
	h.clock.Advance(0.6)
	rs = s.waitRecords(t, m, "playing", hasState(visual.ExperiencePlaying))
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
	_ = strings.TrimSpace
}
