package control

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lets-app/lets/backend/testenv/conformance"
	"github.com/lets-app/lets/backend/wire"
)

func TestCase125_StatusFlags(t *testing.T) {
	p := newPlane(t, func(c *Config) { c.ActivityMotion = true; c.AudioFeedback = true })
	update(p, 1, cx("s"), wire.StateRunning)
	st := p.Status()
	if st.VisualProtocol != 1 || st.Surfaces[0].Kind != "midi" || !st.ActivityMotion || !st.AudioFeedback || st.Sessions[0].Accent != "cyan" {
		t.Fatalf("status = %+v", st)
	}
	if !p.View().ActivityMotion {
		t.Fatalf("view should enable activity motion")
	}
}

func TestCase126_EmptyStatusLiteral(t *testing.T) {
	p := newPlane(t)
	want := `{"protocol":1,"type":"status","profile":"test/grid/device","visual_protocol":1,"input":"Test input","output":"Test output","surfaces":[{"kind":"midi","profile":"test/grid/device","visual_protocol":1,"input":"Test input","output":"Test output"}],"selected":null,"overflow_count":0,"activity_motion":false,"audio_feedback":false,"experience":null,"preview_active":false,"session_ttl":86400.0,"sessions":[]}` + "\n"
	if got := encode(t, p.Status()); got != want {
		t.Fatalf("status:\n%s\nwant:\n%s", got, want)
	}
}

func TestCase127_OverflowStatusLiteral(t *testing.T) {
	p := newPlane(t, capacity(2))
	p.cfg.Surface = testSurface()
	p.Update(1, 1, wire.StateCommand{Agent: cx("019f28ff-aaaa-bbbb"), State: wire.StateRunning, Metadata: meta("cwd", "/home/u/pad-lattice")})
	p.Update(2, 1, wire.StateCommand{Agent: cx("5b2e91c0"), State: wire.StateWaitingForApproval, Metadata: meta("label", "docs")})
	p.Update(3, 1, wire.StateCommand{Agent: ident("codex-exec", "d41d8cd98f00b204"), State: wire.StateRunning})
	want := `{"protocol":1,"type":"status","profile":"test/grid/device","visual_protocol":1,"input":"Test input","output":"Test output","surfaces":[{"kind":"midi","profile":"test/grid/device","visual_protocol":1,"input":"Test input","output":"Test output"}],"selected":{"backend":"codex","session_id":"019f28ff-aaaa-bbbb"},"overflow_count":1,"activity_motion":false,"audio_feedback":false,"experience":null,"preview_active":false,"session_ttl":86400.0,"sessions":[{"backend":"codex","session_id":"019f28ff-aaaa-bbbb","state":"running","slot":0,"accent":"cyan","selected":true,"leased":false,"label":"pad-lattice","metadata":{"cwd":"/home/u/pad-lattice"}},{"backend":"codex","session_id":"5b2e91c0","state":"waiting_for_approval","slot":1,"accent":"magenta","selected":false,"leased":false,"label":"docs","metadata":{"label":"docs"}},{"backend":"codex-exec","session_id":"d41d8cd98f00b204","state":"running","slot":null,"accent":null,"selected":false,"leased":false,"label":"d41d8cd9","metadata":{}}]}` + "\n"
	if got := encode(t, p.Status()); got != want {
		t.Fatalf("status:\n%s\nwant:\n%s", got, want)
	}
}

func TestStatusIsASnapshot(t *testing.T) {
	p := newPlane(t)
	p.Update(1, 1, wire.StateCommand{Agent: cx("s"), State: wire.StateRunning, Metadata: meta("a", "1")})
	st := p.Status()
	p.Update(2, 1, wire.StateCommand{Agent: cx("s"), State: wire.StateRunning, Metadata: meta("a", "2", "b", "3")})
	if !st.Sessions[0].Metadata.Equal(meta("a", "1")) {
		t.Fatalf("status metadata aliased the registry: %v", st.Sessions[0].Metadata)
	}
}

func TestCase055_MessagesValidateAgainstReferenceSchema(t *testing.T) {
	schema := conformance.Schema(t, "socket-protocol-v1.json")
	p := newPlane(t, debounce(0))
	var msgs []wire.Message
	collect := func(r Result) {
		for _, o := range r.Out {
			msgs = append(msgs, o.Msg)
		}
	}
	collect(p.RegisterLease(1, 1, wire.SessionLeaseCommand{LeaseID: "L", Metadata: meta("label", "docs")}))
	collect(p.Update(2, 2, wire.StateCommand{Agent: cx("s"), State: wire.StateWaitingForApproval, LeaseID: "L", Reply: true}))
	collect(p.RegisterLease(3, 1, wire.SessionLeaseCommand{LeaseID: "L"}))
	collect(subscribe(p, 4, 3, cx("s"), "r", true, approve, reject))
	collect(subscribe(p, 4, 4, cx("s"), "", false, approve, reject))
	collect(p.Press(5, approve))
	collect(p.Press(6, reject))
	collect(setPreview(p, 7, 5, "p", wire.StateSuccess, 2))
	collect(setPreview(p, 7, 6, "q", wire.StateSuccess, 2))
	collect(p.EndPreview(8, 5, "p"))
	collect(p.EndPreview(8, 5, "p"))
	for i := 0; i < 6; i++ {
		update(p, 9, cx(string(rune('a'+i))), wire.StateRunning)
	}
	msgs = append(msgs, p.Status())
	if len(msgs) < 11 {
		t.Fatalf("only %d messages collected", len(msgs))
	}
	for _, m := range msgs {
		line := encode(t, m)
		if err := schema.Validate(mustJSON(t, line)); err != nil {
			t.Errorf("%s does not validate: %v\n%s", m.Type(), err, line)
		}
	}
}

func TestCase128_ExperienceField(t *testing.T) {
	p := newPlane(t)
	got, err := p.StartExperience(1, wire.ExperienceDemo)
	if err != nil || got != ExperienceStarted {
		t.Fatalf("start = %v, %v", got, err)
	}
	if p.Status().Experience != "demo" || p.View().Experience != "demo" {
		t.Fatalf("experience not reported")
	}
	if got := encode(t, p.Status()); !contains(got, `"experience":"demo"`) {
		t.Fatalf("status: %s", got)
	}
	if got, _ := p.StartExperience(2, wire.ExperienceShow); got != ExperienceIgnored {
		t.Fatalf("second start = %v, want ignored", got)
	}
	// Surface events go to the experience, not the control plane.
	if r := p.SelectSlot(2, 0); !r.Consumed {
		t.Fatalf("selection should be consumed")
	}
	if r := p.Press(2, stop); !r.Consumed {
		t.Fatalf("press should be consumed")
	}
	if !p.StopExperience() || p.Status().Experience != "" {
		t.Fatalf("stop failed")
	}
	if p.StopExperience() {
		t.Fatalf("second stop should report nothing running")
	}
	if got := encode(t, p.Status()); !contains(got, `"experience":null`) {
		t.Fatalf("status: %s", got)
	}
	if _, err := p.StartExperience(3, "karaoke"); err == nil {
		t.Fatalf("unknown kind should fail")
	}
	// Blocked while an agent waits.
	update(p, 4, cx("s"), wire.StateWaitingForReply)
	if got, _ := p.StartExperience(5, wire.ExperienceDemo); got != ExperienceBlocked {
		t.Fatalf("start with a waiting agent = %v, want blocked", got)
	}
}

func TestCase129_ApprovalStopsShow(t *testing.T) {
	p := newPlane(t)
	if got, _ := p.StartExperience(1, wire.ExperienceShow); got != ExperienceStarted {
		t.Fatalf("start = %v", got)
	}
	// A running agent does not stop it (created in waiting_for_reply but the
	// check happens after the update).
	if r := update(p, 2, cx("busy"), wire.StateRunning); r.ExperienceStopped != "" {
		t.Fatalf("running agent stopped the show")
	}
	r := update(p, 3, cx("s"), wire.StateWaitingForApproval)
	if r.ExperienceStopped != ReasonAgentAttention || p.Experience() != "" {
		t.Fatalf("show should stop with %s, got %q", ReasonAgentAttention, r.ExperienceStopped)
	}
	p.SelectSlot(4, entry(t, p, cx("s")).Slot)
	if v := p.View(); v.Centre != wire.StateWaitingForApproval {
		t.Fatalf("centre = %s", v.Centre)
	}
	// Tick preemption: the terminal-hold fallback creates a waiting agent.
	p.End(5, cx("s"))
	update(p, 5, cx("busy"), wire.StateSuccess)
	if got, _ := p.StartExperience(5, wire.ExperienceShow); got != ExperienceStarted {
		t.Fatalf("restart = %v", got)
	}
	if r := p.Tick(8); r.ExperienceStopped != ReasonAgentAttention {
		t.Fatalf("tick should stop the show, got %+v", r)
	}
}

func mustJSON(t *testing.T, line string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, line)
	}
	return v
}
