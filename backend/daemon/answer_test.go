package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

func claudeID(sid string) wire.Identity { return wire.Identity{Backend: "claude", SessionID: sid} }

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// hookSubscribe subscribes like `lets hook PermissionRequest` does, through
// the real Wire client, and waits until the daemon has the subscription
// (its actions become answerable for the request).
func hookSubscribe(t *testing.T, h *harness, id wire.Identity, rid string, oneShot bool, actions ...wire.Action) *wireclient.Subscription {
	t.Helper()
	ctx := testCtx(t)
	sub, err := wireclient.New(h.path).Subscribe(ctx, wire.SubscribeActionsCommand{Agent: id, Actions: actions, RequestID: rid, OneShot: oneShot})
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	t.Cleanup(func() { sub.Close() })
	testutil.Eventually(t, fmt.Sprintf("the subscription for %s request %q is answerable", id, rid), func() bool {
		got, err := h.d.Answerable(ctx, id, rid)
		if err != nil {
			t.Fatalf("Answerable: %v", err)
		}
		return len(got) > 0
	})
	return sub
}

// receive waits for one action event.
func receive(t *testing.T, sub *wireclient.Subscription) wire.ActionEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	ev, err := sub.Receive(ctx)
	if err != nil {
		t.Fatalf("receive the action: %v", err)
	}
	return ev
}

func wantPressErr(t *testing.T, err, reason error) {
	t.Helper()
	var pe *control.PressError
	if !errors.Is(err, reason) || !errors.As(err, &pe) {
		t.Fatalf("Answer err = %v, want a *control.PressError for %v", err, reason)
	}
}

// The approval card's Allow reaches the hook's one-shot subscription with
// its request id; the answered request is then over.
func TestAnswerDeliversToHookSubscription(t *testing.T) {
	h := start(t)
	id := claudeID("s1")
	h.update("claude", "s1", "waiting_for_approval")
	sub := hookSubscribe(t, h, id, "req-1", true, wire.ActionApprove, wire.ActionReject, wire.ActionStop)
	if got, _ := h.d.Answerable(testCtx(t), id, "req-1"); !reflect.DeepEqual(got, []wire.Action{wire.ActionApprove, wire.ActionReject}) {
		t.Fatalf("Answerable = %v", got)
	}
	if err := h.d.Answer(testCtx(t), id, "req-1", wire.ActionApprove); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	ev := receive(t, sub)
	if ev != (wire.ActionEvent{Action: wire.ActionApprove, Agent: id, RequestID: "req-1"}) {
		t.Fatalf("received %+v", ev)
	}
	// One-shot: a second click (even after the debounce) finds it over.
	h.advance(1)
	// A refusal sends nothing (Answer returns before applying anything).
	wantPressErr(t, h.d.Answer(testCtx(t), id, "req-1", wire.ActionReject), control.ErrRequestOver)
	if got, _ := h.d.Answerable(testCtx(t), id, "req-1"); len(got) != 0 {
		t.Fatalf("Answerable after the answer = %v", got)
	}
}

// A card for an earlier request (wrong request id) delivers nothing.
func TestAnswerWrongRequestID(t *testing.T) {
	h := start(t)
	id := claudeID("s1")
	h.update("claude", "s1", "waiting_for_approval")
	sub := hookSubscribe(t, h, id, "req-2", true, wire.ActionApprove, wire.ActionReject)
	wantPressErr(t, h.d.Answer(testCtx(t), id, "req-1", wire.ActionApprove), control.ErrRequestOver)
	// The right request still works: the refusal neither disarmed nor
	// debounced it, and sent nothing (the next action received is this
	// one: a connection's output is written in order).
	if err := h.d.Answer(testCtx(t), id, "req-2", wire.ActionReject); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	if ev := receive(t, sub); ev.Action != wire.ActionReject || ev.RequestID != "req-2" {
		t.Fatalf("received %+v", ev)
	}
}

// Approve is refused while the session does not wait for approval.
func TestAnswerStateNotPermitted(t *testing.T) {
	h := start(t)
	id := claudeID("s1")
	h.update("claude", "s1", "running")
	sub := hookSubscribe(t, h, id, "req-1", false, wire.ActionApprove, wire.ActionStop)
	wantPressErr(t, h.d.Answer(testCtx(t), id, "req-1", wire.ActionApprove), control.ErrNotPermitted)
	// Nothing was sent: the next action received is the stop below.
	if err := h.d.Answer(testCtx(t), id, "req-1", wire.ActionStop); err != nil {
		t.Fatalf("Answer stop: %v", err)
	}
	if ev := receive(t, sub); ev.Action != wire.ActionStop {
		t.Fatalf("received %+v", ev)
	}
}

func TestAnswerUnknownSession(t *testing.T) {
	h := start(t)
	h.dial().ping() // Run is serving
	wantPressErr(t, h.d.Answer(testCtx(t), claudeID("nobody"), "req-1", wire.ActionApprove), control.ErrUnknownSession)
}

// The card answers its own session; the pad's selection and the selected
// session's subscriber are left alone.
func TestAnswerKeepsSelection(t *testing.T) {
	h := start(t)
	h.update("codex", "selected", "waiting_for_approval")
	id := claudeID("card")
	h.update("claude", "card", "waiting_for_approval")
	selSub := h.subscribe("codex", "selected", []string{"approve", "reject"}, `"request_id":"other"`, `"one_shot":true`)
	sub := hookSubscribe(t, h, id, "req-1", true, wire.ActionApprove, wire.ActionReject)
	if err := h.d.Answer(testCtx(t), id, "req-1", wire.ActionApprove); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	if ev := receive(t, sub); ev.Action != wire.ActionApprove || ev.Agent != id {
		t.Fatalf("received %+v", ev)
	}
	selSub.expectSilence()
	st := h.status()
	sel, _ := st["selected"].(map[string]any)
	if sel["backend"] != "codex" || sel["session_id"] != "selected" {
		t.Fatalf("status.selected = %v after the answer", st["selected"])
	}
	// The surface still lights the selected session's actions.
	if _, err := h.surface.WaitView(ioTimeout, func(v control.View) bool {
		return reflect.DeepEqual(v.Available, []wire.Action{wire.ActionApprove, wire.ActionReject}) &&
			len(v.Indicators) == 2 && v.Indicators[0].Selected && !v.Indicators[1].Selected
	}); err != nil {
		t.Fatalf("surface view after the answer: %v", err)
	}
}

// A surface press during a Show belongs to the Show; an Answer is not a
// surface press and still reaches the agent, and the Show keeps playing.
func TestAnswerDuringExperience(t *testing.T) {
	h, _ := startStage(t)
	id := claudeID("s1")
	h.update("claude", "s1", "running")
	sub := hookSubscribe(t, h, id, "", false, wire.ActionStop)
	h.surface.Inject(surface.ExperienceRequested{Kind: wire.ExperienceShow})
	h.barrier()
	if got := h.status()["experience"]; got != "show" {
		t.Fatalf("status.experience %v", got)
	}
	// The pad's stop goes to the Show. Had it reached the agent, the
	// Answer below (same session and action, the clock not moved) would be
	// debounced.
	h.press(wire.ActionStop)
	if err := h.d.Answer(testCtx(t), id, "", wire.ActionStop); err != nil {
		t.Fatalf("Answer during the Show: %v", err)
	}
	if ev := receive(t, sub); ev.Action != wire.ActionStop || ev.Agent != id {
		t.Fatalf("received %+v", ev)
	}
	if got := h.status()["experience"]; got != "show" {
		t.Fatalf("status.experience after the answer %v, want the Show still playing", got)
	}
}

// Debounce is shared with the pad: a card click right after a pad press on
// the same session and action is dropped.
func TestAnswerDebouncedAfterPadPress(t *testing.T) {
	h := start(t)
	id := claudeID("s1")
	h.update("claude", "s1", "running")
	sub := hookSubscribe(t, h, id, "", false, wire.ActionStop)
	h.press(wire.ActionStop)
	if ev := receive(t, sub); ev.Action != wire.ActionStop {
		t.Fatalf("received %+v", ev)
	}
	wantPressErr(t, h.d.Answer(testCtx(t), id, "", wire.ActionStop), control.ErrDebounced)
	h.advance(1)
	if err := h.d.Answer(testCtx(t), id, "", wire.ActionStop); err != nil {
		t.Fatalf("Answer after the debounce: %v", err)
	}
	receive(t, sub)
}

func TestAnswerHonoursContext(t *testing.T) {
	h := start(t)
	h.update("claude", "s1", "waiting_for_approval")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.d.Answer(ctx, claudeID("s1"), "", wire.ActionApprove); !errors.Is(err, context.Canceled) {
		t.Fatalf("Answer with a cancelled context = %v", err)
	}
	if _, err := h.d.Answerable(ctx, claudeID("s1"), ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("Answerable with a cancelled context = %v", err)
	}
}

// Before Run and after Close, Answer returns ErrNotRunning at once.
func TestAnswerWhenNotRunning(t *testing.T) {
	d, err := daemon.New(daemon.Options{SocketPath: filepath.Join(shortDir(t), "s.sock")})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Answer(testCtx(t), claudeID("s1"), "", wire.ActionApprove); !errors.Is(err, daemon.ErrNotRunning) {
		t.Fatalf("Answer before Run = %v", err)
	}
	d.Close()
	if err := d.Answer(testCtx(t), claudeID("s1"), "", wire.ActionApprove); !errors.Is(err, daemon.ErrNotRunning) {
		t.Fatalf("Answer after Close of a daemon that never ran = %v", err)
	}

	h := start(t)
	h.update("claude", "s1", "waiting_for_approval")
	h.stop()
	if err := h.d.Answer(testCtx(t), claudeID("s1"), "", wire.ActionApprove); !errors.Is(err, daemon.ErrNotRunning) {
		t.Fatalf("Answer after stop = %v", err)
	}
	if err := h.d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := h.d.Answerable(testCtx(t), claudeID("s1"), ""); !errors.Is(err, daemon.ErrNotRunning) {
		t.Fatalf("Answerable after Close = %v", err)
	}
}

// Answers racing Close end with a result, ErrNotRunning or a refusal, never
// a hang or a panic (run with -race).
func TestAnswerRacesClose(t *testing.T) {
	for round := range 5 {
		h := start(t)
		h.update("claude", "s1", "running")
		hookSubscribe(t, h, claudeID("s1"), "", false, wire.ActionStop)
		var wg sync.WaitGroup
		errs := make(chan error, 4*50)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 50 {
					ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
					err := h.d.Answer(ctx, claudeID("s1"), "", wire.ActionStop)
					cancel()
					errs <- err
				}
			}()
		}
		// Close at a different point of the answers in each round.
		testutil.Eventually(t, "answers are under way", func() bool { return len(errs) >= 10*round })
		closed := make(chan error, 1)
		go func() { closed <- h.d.Close() }()
		select {
		case err := <-closed:
			if err != nil {
				t.Fatalf("Close: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Close did not return while answers were running")
		}
		waited := make(chan struct{})
		go func() { wg.Wait(); close(waited) }()
		select {
		case <-waited:
		case <-time.After(10 * time.Second):
			t.Fatal("Answer blocked after Close")
		}
		close(errs)
		for err := range errs {
			var pe *control.PressError
			if err != nil && !errors.Is(err, daemon.ErrNotRunning) && !errors.As(err, &pe) {
				t.Fatalf("Answer racing Close returned %v", err)
			}
		}
		h.stop()
	}
}

// stallSurface blocks Render while stalled, which holds the owner loop.
type stallSurface struct {
	*daemontest.Surface
	mu      sync.Mutex
	gate    chan struct{} // nil: render at once
	entered chan struct{}
}

func (s *stallSurface) stall() {
	s.mu.Lock()
	s.gate, s.entered = make(chan struct{}), make(chan struct{}, 1)
	s.mu.Unlock()
}

func (s *stallSurface) release() {
	s.mu.Lock()
	close(s.gate)
	s.gate = nil
	s.mu.Unlock()
}

func (s *stallSurface) Render(v control.View) error {
	s.mu.Lock()
	gate, entered := s.gate, s.entered
	s.mu.Unlock()
	if gate != nil {
		select {
		case entered <- struct{}{}:
		default:
		}
		select {
		case <-gate:
		case <-time.After(10 * time.Second): // never hold a broken test forever
		}
	}
	return s.Surface.Render(v)
}

// When ctx ends while the owner loop is busy, Answer returns the context's
// error and the answer is never delivered later.
func TestAnswerContextEndsBeforeOwnerTakesIt(t *testing.T) {
	s := &stallSurface{Surface: daemontest.NewSurface()}
	h := start(t, func(o *daemon.Options) { o.Surface = s })
	id := claudeID("s1")
	h.update("claude", "s1", "waiting_for_approval")
	sub := hookSubscribe(t, h, id, "req-1", true, wire.ActionApprove, wire.ActionReject)

	s.stall()
	h.updateAck("codex", "other", "running") // its render holds the owner
	select {
	case <-s.entered:
	case <-time.After(ioTimeout):
		t.Fatal("the owner never rendered")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := h.d.Answer(ctx, id, "req-1", wire.ActionApprove); !errors.Is(err, context.DeadlineExceeded) {
		s.release()
		t.Fatalf("Answer while the owner is busy = %v, want the deadline", err)
	}
	s.release()
	// Nothing was delivered: the next action received is the reject below.
	// Still armed: the request can be answered.
	if err := h.d.Answer(testCtx(t), id, "req-1", wire.ActionReject); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	if ev := receive(t, sub); ev.Action != wire.ActionReject || ev.RequestID != "req-1" {
		t.Fatalf("received %+v", ev)
	}
}
