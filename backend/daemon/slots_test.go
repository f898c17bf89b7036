package daemon_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/identitystore"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/wire"
)

// earcons records the earcons the control plane plays.
type earcons struct {
	mu    sync.Mutex
	plays []string
}

func (e *earcons) Earcon(name string, slot int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.plays = append(e.plays, fmt.Sprintf("%s@%d", name, slot))
}

func (e *earcons) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.plays)
}

func withAudio(e *earcons) harnessOpt {
	return withControl(func(c *control.Config) { c.AudioFeedback = true; c.Earcons = e })
}

// selected returns "backend/session_id" of status.selected, or "".
func (h *harness) selected() string {
	h.t.Helper()
	sel, _ := h.status()["selected"].(map[string]any)
	if sel == nil {
		return ""
	}
	return sel["backend"].(string) + "/" + sel["session_id"].(string)
}

// waitCentre waits until the surface shows centre state st.
func (h *harness) waitView(what string, ok func(control.View) bool) control.View {
	h.t.Helper()
	v, err := h.surface.WaitView(ioTimeout, ok)
	if err != nil {
		h.t.Fatalf("surface never showed %s: %v", what, err)
	}
	return v
}

func (h *harness) waitCentre(st wire.State) control.View {
	h.t.Helper()
	return h.waitView("centre "+string(st), func(v control.View) bool { return v.Centre == st })
}

func (h *harness) waitAvailable(want ...wire.Action) control.View {
	h.t.Helper()
	return h.waitView(fmt.Sprintf("available %v", want), func(v control.View) bool {
		return slices.Equal(v.Available, want) || (len(v.Available) == 0 && len(want) == 0)
	})
}

func slotOf(s map[string]any) int {
	if s == nil || s["slot"] == nil {
		return -1
	}
	return int(num(s["slot"]))
}

func TestCase056_057_FirstSessionSelectedThenSurfaceSelects(t *testing.T) {
	h := start(t)
	h.set(1)
	h.update("codex", "A", "waiting_for_reply")
	h.set(2)
	h.update("codex", "B", "running")
	if got := h.selected(); got != "codex/A" {
		t.Fatalf("case 56: selected %q", got)
	}
	h.waitCentre(wire.StateWaitingForReply)
	// Case 57: the surface selects B's slot.
	h.selectSlot(slotOf(h.session("codex", "B")))
	if got := h.selected(); got != "codex/B" {
		t.Fatalf("case 57: selected %q", got)
	}
	h.waitCentre(wire.StateRunning)
}

func TestCase058_SelectionEarcon(t *testing.T) {
	e := &earcons{}
	h := start(t, withAudio(e))
	h.update("codex", "A", "waiting_for_reply")
	h.update("codex", "B", "waiting_for_reply")
	h.selectSlot(1)
	plays := e.list()
	if len(plays) == 0 || plays[len(plays)-1] != control.EarconSessionSelected+"@1" {
		t.Fatalf("earcons %v, want the last to be %s@1", plays, control.EarconSessionSelected)
	}
}

func TestCase059_060_SelectionStaysEmptyUntilRegistryEmpty(t *testing.T) {
	h := start(t)
	h.update("codex", "A", "running")
	h.update("codex", "B", "running")
	h.end("codex", "A")
	if got := h.selected(); got != "" {
		t.Fatalf("case 59: after ending A, selected %q", got)
	}
	h.update("codex", "C", "running")
	if got := h.selected(); got != "" {
		t.Fatalf("case 59: C took the selection")
	}
	h.waitView("idle centre", func(v control.View) bool { return v.Centre == "" && len(v.Indicators) == 2 })
	// Case 60.
	h.end("codex", "B")
	h.end("codex", "C")
	h.update("codex", "D", "running")
	if got := h.selected(); got != "codex/D" {
		t.Fatalf("case 60: selected %q", got)
	}
}

func TestCase061_UnknownIdentitySelectedWithItsState(t *testing.T) {
	h := start(t)
	h.update("codex", "session-1", "running")
	if got := h.selected(); got != "codex/session-1" {
		t.Fatalf("selected %q", got)
	}
	if s := h.session("codex", "session-1"); s["state"] != "running" {
		t.Fatalf("state %v", s["state"])
	}
	h.waitCentre(wire.StateRunning)
}

func TestCase062_EvictionSparesSelectedAndApproval(t *testing.T) {
	h := start(t)
	for i := range 4 {
		h.update("codex", strconv.Itoa(i), "running")
	}
	h.update("codex", "1", "waiting_for_approval")
	h.update("codex", "4", "running")
	for _, id := range []string{"0", "1", "4"} {
		if slotOf(h.session("codex", id)) < 0 {
			t.Errorf("session %s has no slot", id)
		}
	}
	if s := h.session("codex", "2"); slotOf(s) != -1 {
		t.Errorf("session 2 slot %v, want overflow", s["slot"])
	}
}

func TestCase063_AllApprovalsMeansOverflow(t *testing.T) {
	h := start(t)
	for i := range 4 {
		h.update("codex", strconv.Itoa(i), "waiting_for_approval")
	}
	ack := h.update("codex", "5", "running")
	if ack["slot"] != nil || ack["scene"] != nil {
		t.Fatalf("fifth ack %v, want slot and scene null", ack)
	}
	st := h.status()
	if num(st["overflow_count"]) != 1 {
		t.Fatalf("overflow_count %v", st["overflow_count"])
	}
	h.waitView("overflow 1", func(v control.View) bool { return v.OverflowCount == 1 })
}

func TestCase064_FreedSlotReusedWithItsAccent(t *testing.T) {
	h := start(t)
	for i := range 4 {
		h.update("codex", strconv.Itoa(i), "running")
	}
	h.end("codex", "1")
	ack := h.update("codex", "new", "running")
	if num(ack["slot"]) != 1 || ack["accent"] != "magenta" {
		t.Fatalf("new session ack %v, want slot 1 magenta", ack)
	}
	for i, accent := range map[int]string{0: "cyan", 2: "lime", 3: "orange"} {
		s := h.session("codex", strconv.Itoa(i))
		if slotOf(s) != i || s["accent"] != accent {
			t.Errorf("session %d: slot %v accent %v", i, s["slot"], s["accent"])
		}
	}
}

func TestCase065_066_RefillPrefersApprovalThenRecency(t *testing.T) {
	s := daemontest.NewSurfaceCapacity(2)
	h := start(t, withSurface(s))
	h.update("codex", "sel", "running")
	h.update("codex", "a", "running")
	h.update("codex", "b", "running") // evicts a
	a := h.session("codex", "a")
	if slotOf(a) != -1 || a["accent"] != "magenta" {
		t.Fatalf("case 66: evicted a = %v, want slot null and accent magenta kept", a)
	}
	h.update("codex", "b", "waiting_for_approval")
	h.update("codex", "a", "waiting_for_approval") // nothing evictable
	if slotOf(h.session("codex", "a")) != -1 {
		t.Fatal("a got a slot although nothing was evictable")
	}
	h.update("codex", "c", "running")
	h.update("codex", "c", "running")
	h.end("codex", "b")
	if got := slotOf(h.session("codex", "a")); got != 1 {
		t.Fatalf("slot of a = %d, want 1 (approval first)", got)
	}
	if got := slotOf(h.session("codex", "c")); got != -1 {
		t.Fatalf("slot of c = %d, want overflow", got)
	}
}

func TestCase067_FourDistinctAccentsFirstCyan(t *testing.T) {
	h := start(t)
	for i := range 4 {
		h.update("codex", strconv.Itoa(i), "running")
	}
	seen := map[any]bool{}
	for _, s := range h.sessions() {
		seen[s["accent"]] = true
	}
	if len(seen) != 4 {
		t.Fatalf("accents %v", seen)
	}
	if h.session("codex", "0")["accent"] != "cyan" {
		t.Fatal("first session is not cyan")
	}
}

// Case 68 over the socket: a random trace of state, end, subscribe, lease,
// preview, selection and press operations from several connections keeps the
// status invariants.
func TestCase068_RandomTraceKeepsInvariants(t *testing.T) {
	h := start(t)
	rng := rand.New(rand.NewPCG(68, 1))
	conns := make([]*client, 6)
	for i := range conns {
		conns[i] = h.dial()
	}
	states := wire.States()
	ops := 300
	if testing.Short() {
		ops = 100
	}
	for op := range ops {
		c := conns[rng.IntN(len(conns))]
		id := strconv.Itoa(rng.IntN(8))
		h.advance(rng.Float64())
		switch rng.IntN(9) {
		case 0, 1, 2:
			c.send(stateMsg("codex", id, string(states[rng.IntN(len(states))]), `"reply":true`))
			c.read()
		case 3:
			c.send(`{"protocol":1,"type":"session_end","agent":{"backend":"codex","session_id":"` + id + `"}}`)
			c.ping()
		case 4:
			c.send(subscribeMsg("codex", id, []string{"approve", "stop"}, `"request_id":"r`+strconv.Itoa(op)+`"`, `"one_shot":true`))
			c.ping()
		case 5:
			c.send(`{"protocol":1,"type":"session_lease","lease_id":"L` + strconv.Itoa(rng.IntN(4)) + `","agent":{"backend":"codex","session_id":"` + id + `"}}`)
			c.read()
		case 6:
			h.selectSlot(rng.IntN(5))
		case 7:
			h.press(wire.Actions()[rng.IntN(4)])
		case 8:
			i := rng.IntN(len(conns))
			conns[i].close()
			conns[i] = h.dial()
		}
		checkStatusInvariants(t, h.status(), 4)
	}
}

func checkStatusInvariants(t *testing.T, st map[string]any, capacity int) {
	t.Helper()
	slots := map[int]bool{}
	accents := map[string]bool{}
	overflow, visible := 0, 0
	var sel string
	if s, ok := st["selected"].(map[string]any); ok {
		sel = s["backend"].(string) + "/" + s["session_id"].(string)
	}
	foundSel := sel == ""
	for _, raw := range st["sessions"].([]any) {
		s := raw.(map[string]any)
		id := s["backend"].(string) + "/" + s["session_id"].(string)
		if id == sel {
			foundSel = true
			if s["slot"] == nil || s["selected"] != true {
				t.Fatalf("selected %s has no slot or is not flagged: %v", id, s)
			}
		}
		if s["slot"] == nil {
			overflow++
			continue
		}
		visible++
		slot := int(num(s["slot"]))
		if slot < 0 || slot >= capacity || slots[slot] {
			t.Fatalf("bad or duplicate slot %d", slot)
		}
		slots[slot] = true
		a := s["accent"].(string)
		if accents[a] {
			t.Fatalf("duplicate visible accent %s", a)
		}
		accents[a] = true
	}
	if !foundSel {
		t.Fatalf("selected %s is not in the registry", sel)
	}
	if visible > capacity || int(num(st["overflow_count"])) != overflow {
		t.Fatalf("visible %d, overflow %d vs overflow_count %v", visible, overflow, st["overflow_count"])
	}
}

func TestCase069_RememberedAccentOnArrival(t *testing.T) {
	path := filepath.Join(shortDir(t), "state", identitystore.FileName)
	store := identitystore.Open(path, identitystore.Options{})
	if err := store.Remember("codex", "returning", "magenta"); err != nil {
		t.Fatal(err)
	}
	h := start(t, func(o *daemon.Options) { o.IdentityStore = path })
	if ack := h.update("codex", "returning", "running"); ack["accent"] != "magenta" {
		t.Fatalf("accent %v, want magenta", ack["accent"])
	}
}

func TestCase070_TakenPreferenceIsReplacedInStore(t *testing.T) {
	path := filepath.Join(shortDir(t), identitystore.FileName)
	store := identitystore.Open(path, identitystore.Options{})
	if err := store.Remember("codex", "B", "cyan"); err != nil {
		t.Fatal(err)
	}
	h := start(t, func(o *daemon.Options) { o.IdentityStore = path })
	h.update("codex", "A", "running")
	if ack := h.update("codex", "B", "running"); ack["accent"] != "magenta" {
		t.Fatalf("B accent %v, want magenta", ack["accent"])
	}
	h.stop()
	if got := identitystore.Open(path, identitystore.Options{}).Lookup("codex", "B"); got != "magenta" {
		t.Fatalf("store says %q for B, want magenta", got)
	}
}

func TestCase126_EmptyDaemonStatusLiteral(t *testing.T) {
	h := start(t)
	want := `{"protocol":1,"type":"status","profile":"test/grid/device","visual_protocol":1,"input":"Test input","output":"Test output","surfaces":[{"kind":"midi","profile":"test/grid/device","visual_protocol":1,"input":"Test input","output":"Test output"}],"selected":null,"overflow_count":0,"activity_motion":false,"audio_feedback":false,"experience":null,"preview_active":false,"session_ttl":86400.0,"sessions":[]}`
	if got := h.statusLine(); got != want {
		t.Fatalf("status\n got %s\nwant %s", got, want)
	}
}

func TestCase127_CapacityTwoThreeSessionsLiteral(t *testing.T) {
	h := start(t, withSurface(daemontest.NewSurfaceCapacity(2)))
	h.update("codex", "019f28ff-aaaa-bbbb", "running", `"agent":{"backend":"codex","session_id":"019f28ff-aaaa-bbbb","cwd":"/home/u/pad-lattice"}`)
	h.update("codex", "5b2e91c0", "waiting_for_approval", `"agent":{"backend":"codex","session_id":"5b2e91c0","label":"docs"}`)
	h.update("codex-exec", "d41d8cd98f00b204", "running")
	want := `{"protocol":1,"type":"status","profile":"test/grid/device","visual_protocol":1,"input":"Test input","output":"Test output","surfaces":[{"kind":"midi","profile":"test/grid/device","visual_protocol":1,"input":"Test input","output":"Test output"}],"selected":{"backend":"codex","session_id":"019f28ff-aaaa-bbbb"},"overflow_count":1,"activity_motion":false,"audio_feedback":false,"experience":null,"preview_active":false,"session_ttl":86400.0,"sessions":[{"backend":"codex","session_id":"019f28ff-aaaa-bbbb","state":"running","slot":0,"accent":"cyan","selected":true,"leased":false,"label":"pad-lattice","metadata":{"cwd":"/home/u/pad-lattice"}},{"backend":"codex","session_id":"5b2e91c0","state":"waiting_for_approval","slot":1,"accent":"magenta","selected":false,"leased":false,"label":"docs","metadata":{"label":"docs"}},{"backend":"codex-exec","session_id":"d41d8cd98f00b204","state":"running","slot":null,"accent":null,"selected":false,"leased":false,"label":"d41d8cd9","metadata":{}}]}`
	if got := h.statusLine(); got != want {
		t.Fatalf("status\n got %s\nwant %s", got, want)
	}
}

func TestCase125_StatusReportsOptionsAndSurface(t *testing.T) {
	e := &earcons{}
	h := start(t, withAudio(e), withControl(func(c *control.Config) { c.ActivityMotion = true }))
	h.update("codex", "a", "running")
	st := h.status()
	surfaces := st["surfaces"].([]any)
	if num(st["visual_protocol"]) != 1 || surfaces[0].(map[string]any)["kind"] != "midi" ||
		st["activity_motion"] != true || st["audio_feedback"] != true ||
		st["sessions"].([]any)[0].(map[string]any)["accent"] != "cyan" {
		t.Fatalf("status %v", st)
	}
}

func TestCase128_ExperienceReportedInStatus(t *testing.T) {
	h := start(t)
	h.surface.Inject(surface.ExperienceRequested{Kind: wire.ExperienceDemo})
	h.barrier()
	if got := h.status()["experience"]; got != "demo" {
		t.Fatalf("experience %v, want demo", got)
	}
	h.surface.Inject(surface.ExperienceStopRequested{})
	h.barrier()
	if got := h.status()["experience"]; got != nil {
		t.Fatalf("experience %v, want null", got)
	}
}

func TestCase129_AttentionStopsShow(t *testing.T) {
	h := start(t)
	h.surface.Inject(surface.ExperienceRequested{Kind: wire.ExperienceShow})
	h.barrier()
	// While the Show plays the surface shows it, not the live view
	// (experience_test.go covers the frames); status reports it.
	if got := h.status()["experience"]; got != "show" {
		t.Fatalf("experience %v, want show", got)
	}
	h.update("codex", "a", "waiting_for_approval")
	if got := h.status()["experience"]; got != nil {
		t.Fatalf("experience %v, want null after an approval request", got)
	}
	h.waitView("approval shown", func(v control.View) bool {
		return v.Experience == "" && v.Centre == wire.StateWaitingForApproval
	})
}

// The production placeholder surface validates against both schemas and
// reports what DESIGN promises: capacity 8, kind web, profile lets/none.
func TestNoSurfaceStatus(t *testing.T) {
	h := start(t, func(o *daemon.Options) { o.Surface = daemon.NoSurface() })
	for i := range 9 {
		h.update("codex", strconv.Itoa(i), "waiting_for_approval")
	}
	st := h.status()
	if st["profile"] != daemon.NoSurfaceProfile || num(st["overflow_count"]) != 1 {
		t.Fatalf("status %v", st)
	}
	d := st["surfaces"].([]any)[0].(map[string]any)
	if d["kind"] != "web" || d["profile"] != "lets/none" || d["input"] != daemon.NoSurfaceInput {
		t.Fatalf("descriptor %v", d)
	}
	if a := h.session("codex", "7")["accent"]; a != "sky" {
		t.Fatalf("eighth accent %v, want sky", a)
	}
}

// Cases 71 and 74 through the daemon: the store it writes is private, keyed
// by hash, and never holds the raw identity.
func TestCase071_074_DaemonWritesPrivateHashedStore(t *testing.T) {
	dir := filepath.Join(shortDir(t), "state")
	path := filepath.Join(dir, identitystore.FileName)
	h := start(t, func(o *daemon.Options) { o.IdentityStore = path })
	h.update("codex", "private-session-id", "running")
	h.update("codex", "abc", "running")
	h.stop()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "private-session-id") {
		t.Fatal("the store holds a raw session id")
	}
	if !strings.Contains(string(data), "0500ad38d366d7c1f7bc8f7e7e1b03a54410aa6385e15f10d1077c0038867dc2") {
		t.Fatalf("the store lacks the key of codex/abc: %s", data)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v (%v)", p, fi.Mode().Perm(), want, err)
		}
	}
	if got := identitystore.Open(path, identitystore.Options{}).Lookup("codex", "abc"); got != "magenta" {
		t.Fatalf("codex/abc remembered as %q", got)
	}
}
