package approval_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/approval"
	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// fakeCard is a window card: it answers what the test sends on answer,
// or ends when ctx ends (the card taken down).
type fakeCard struct {
	asked     chan approval.Request
	answer    chan approval.Answer
	withdrawn chan struct{}
}

func newCard() *fakeCard {
	return &fakeCard{asked: make(chan approval.Request, 1), answer: make(chan approval.Answer, 1), withdrawn: make(chan struct{})}
}

func (c *fakeCard) Ask(ctx context.Context, req approval.Request) (approval.Answer, error) {
	c.asked <- req
	select {
	case a := <-c.answer:
		return a, nil
	case <-ctx.Done():
		close(c.withdrawn)
		return approval.Answer{}, ctx.Err()
	}
}

// fakePads hold one question; nil question means no daemon.
type fakePads struct {
	q   *fakeQuestion
	err error
	ids chan string
}

func (p *fakePads) Open(ctx context.Context, requestID string) (approval.Question, error) {
	p.ids <- requestID
	if p.err != nil || p.q == nil {
		return nil, p.err
	}
	return p.q, nil
}

type fakeQuestion struct {
	press chan bool
	mu    sync.Mutex
	ended []bool // the decisions Withdraw was called with
}

func newQuestion() *fakeQuestion { return &fakeQuestion{press: make(chan bool, 1)} }

func (q *fakeQuestion) Receive(ctx context.Context) (approval.Decision, error) {
	select {
	case a := <-q.press:
		return approval.Decision{Allow: a}, nil
	case <-ctx.Done():
		return approval.Decision{}, ctx.Err()
	}
}

func (q *fakeQuestion) Withdraw(d approval.Decision) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ended = append(q.ended, d.Allow)
}

func (q *fakeQuestion) withdrawals() []bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]bool(nil), q.ended...)
}

type result struct {
	d   approval.Decision
	err error
}

func ask(ctx context.Context, s approval.Surfaces) <-chan result {
	out := make(chan result, 1)
	go func() {
		d, err := approval.Ask(ctx, approval.Request{Window: "w1", Tool: "Bash", Summary: "ls"}, "req-1", s)
		out <- result{d, err}
	}()
	return out
}

func TestAskCardAnswersFirst(t *testing.T) {
	card, q := newCard(), newQuestion()
	pads := &fakePads{q: q, ids: make(chan string, 1)}
	done := ask(context.Background(), approval.Surfaces{Card: card, Pads: pads})
	if req := testutil.Wait(t, "the card is asked", card.asked); req.Window != "w1" || req.Tool != "Bash" {
		t.Fatalf("card asked %+v", req)
	}
	if id := testutil.Wait(t, "the pads are asked", pads.ids); id != "req-1" {
		t.Fatalf("pads asked for %q", id)
	}
	card.answer <- approval.Answer{Choice: approval.ChoiceAllow, Reason: approval.ReasonAnswered}
	r := testutil.Wait(t, "Ask returns", done)
	if r.err != nil || r.d != (approval.Decision{Allow: true, From: approval.FromWindow}) {
		t.Fatalf("got %+v, %v", r.d, r.err)
	}
	if w := q.withdrawals(); len(w) != 1 || !w[0] {
		t.Fatalf("the pad question was withdrawn %v times, want once with allow", w)
	}
}

func TestAskPadAnswersFirst(t *testing.T) {
	card, q := newCard(), newQuestion()
	pads := &fakePads{q: q, ids: make(chan string, 1)}
	done := ask(context.Background(), approval.Surfaces{Card: card, Pads: pads})
	testutil.Wait(t, "the card is asked", card.asked)
	testutil.Wait(t, "the pads are asked", pads.ids)
	q.press <- false
	r := testutil.Wait(t, "Ask returns", done)
	if r.err != nil || r.d != (approval.Decision{Allow: false, From: approval.FromPad}) {
		t.Fatalf("got %+v, %v", r.d, r.err)
	}
	// Ask returns only once the card's request ended: it is down.
	select {
	case <-card.withdrawn:
	default:
		t.Fatal("the card was still up when Ask returned")
	}
	if w := q.withdrawals(); len(w) != 1 || w[0] {
		t.Fatalf("the pad question was withdrawn %v, want once with deny", w)
	}
}

// TestAskAskerWithdraws: the asker's context ends (Claude withdrew the
// question): nobody answered, ctx's error, every surface withdrawn.
func TestAskAskerWithdraws(t *testing.T) {
	card, q := newCard(), newQuestion()
	pads := &fakePads{q: q, ids: make(chan string, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := ask(ctx, approval.Surfaces{Card: card, Pads: pads})
	testutil.Wait(t, "the card is asked", card.asked)
	testutil.Wait(t, "the pads are asked", pads.ids)
	cancel()
	r := testutil.Wait(t, "Ask returns", done)
	if !errors.Is(r.err, context.Canceled) || r.d != (approval.Decision{From: approval.FromNobody}) {
		t.Fatalf("got %+v, %v", r.d, r.err)
	}
	testutil.Wait(t, "the card is taken down", card.withdrawn)
	if w := q.withdrawals(); len(w) != 1 || w[0] {
		t.Fatalf("the pad question was withdrawn %v, want once with deny", w)
	}
}

// TestAskNoDaemon: without a pad daemon the card alone answers.
func TestAskNoDaemon(t *testing.T) {
	card := newCard()
	pads := &fakePads{ids: make(chan string, 1)}
	done := ask(context.Background(), approval.Surfaces{Card: card, Pads: pads})
	testutil.Wait(t, "the pads are asked", pads.ids)
	card.answer <- approval.Answer{Choice: approval.ChoiceDeny, Reason: approval.ReasonAnswered}
	r := testutil.Wait(t, "Ask returns", done)
	if r.err != nil || r.d != (approval.Decision{From: approval.FromWindow}) {
		t.Fatalf("got %+v, %v", r.d, r.err)
	}
}

// TestAskPadsFail: the daemon refuses the question; the error is heard
// and the card still answers.
func TestAskPadsFail(t *testing.T) {
	card := newCard()
	refused := errors.New("refused")
	pads := &fakePads{err: refused, ids: make(chan string, 1)}
	heard := make(chan error, 1)
	done := ask(context.Background(), approval.Surfaces{Card: card, Pads: pads, OnPadsError: func(err error) { heard <- err }})
	if err := testutil.Wait(t, "the pads' error is heard", heard); !errors.Is(err, refused) {
		t.Fatalf("heard %v", err)
	}
	card.answer <- approval.Answer{Choice: approval.ChoiceAllow, Reason: approval.ReasonAnswered}
	if r := testutil.Wait(t, "Ask returns", done); r.d != (approval.Decision{Allow: true, From: approval.FromWindow}) {
		t.Fatalf("got %+v, %v", r.d, r.err)
	}
}

// TestAskNoWindow: the card cannot be drawn (no shell page); that is no
// answer, and a pad press still decides.
func TestAskNoWindow(t *testing.T) {
	card, q := newCard(), newQuestion()
	pads := &fakePads{q: q, ids: make(chan string, 1)}
	card.answer <- approval.Answer{Choice: approval.ChoiceDeny, Reason: approval.ReasonNoShell}
	done := ask(context.Background(), approval.Surfaces{Card: card, Pads: pads})
	testutil.Wait(t, "the pads are asked", pads.ids)
	q.press <- true
	r := testutil.Wait(t, "Ask returns", done)
	if r.err != nil || r.d != (approval.Decision{Allow: true, From: approval.FromPad}) {
		t.Fatalf("got %+v, %v", r.d, r.err)
	}
}

// TestAskNobodyAnswers: the wait, on the given clock, ends the question
// with no answer and no error.
func TestAskNobodyAnswers(t *testing.T) {
	clk := clock.NewFake(time.Unix(1_700_000_000, 0))
	card, q := newCard(), newQuestion()
	pads := &fakePads{q: q, ids: make(chan string, 1)}
	done := ask(context.Background(), approval.Surfaces{Card: card, Pads: pads, Wait: time.Minute, Clock: clk})
	testutil.Wait(t, "the pads are asked", pads.ids)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute - time.Millisecond)
	select {
	case r := <-done:
		t.Fatalf("Ask returned before its wait: %+v", r)
	default:
	}
	clk.Advance(time.Millisecond)
	r := testutil.Wait(t, "Ask returns", done)
	if r.err != nil || r.d != (approval.Decision{From: approval.FromNobody}) {
		t.Fatalf("got %+v, %v", r.d, r.err)
	}
	testutil.Wait(t, "the card is taken down", card.withdrawn)
	if w := q.withdrawals(); len(w) != 1 || w[0] {
		t.Fatalf("the pad question was withdrawn %v, want once with deny", w)
	}
}

// failingQuestion ends without an answer (the daemon closed it).
type failingQuestion struct {
	err       error
	withdrawn chan approval.Decision
}

func (q failingQuestion) Receive(ctx context.Context) (approval.Decision, error) {
	return approval.Decision{}, q.err
}

func (q failingQuestion) Withdraw(d approval.Decision) { q.withdrawn <- d }

type questionPads struct{ q approval.Question }

func (p questionPads) Open(ctx context.Context, requestID string) (approval.Question, error) {
	return p.q, nil
}

// TestAskEndsWhenUnanswerable: with EndWhenUnanswerable and no card, a
// question that ends without an answer ends Ask with its error, and one
// that cannot open ends it at once.
func TestAskEndsWhenUnanswerable(t *testing.T) {
	closed := errors.New("subscription closed")
	q := failingQuestion{err: closed, withdrawn: make(chan approval.Decision, 1)}
	r := testutil.Wait(t, "Ask returns", ask(context.Background(), approval.Surfaces{Pads: questionPads{q}, EndWhenUnanswerable: true}))
	if !errors.Is(r.err, closed) || r.d != (approval.Decision{From: approval.FromNobody}) {
		t.Fatalf("got %+v, %v", r.d, r.err)
	}
	if d := testutil.Wait(t, "the question is withdrawn", q.withdrawn); d != (approval.Decision{From: approval.FromNobody}) {
		t.Fatalf("withdrawn with %+v", d)
	}
	down := errors.New("no daemon")
	pads := &fakePads{err: down, ids: make(chan string, 1)}
	r = testutil.Wait(t, "Ask returns", ask(context.Background(), approval.Surfaces{Pads: pads, EndWhenUnanswerable: true}))
	if !errors.Is(r.err, down) || r.d != (approval.Decision{From: approval.FromNobody}) {
		t.Fatalf("got %+v, %v", r.d, r.err)
	}
}

// stopQuestion answers with Stop.
type stopQuestion struct{}

func (stopQuestion) Receive(ctx context.Context) (approval.Decision, error) {
	return approval.Decision{Stop: true}, nil
}
func (stopQuestion) Withdraw(approval.Decision) {}

func TestAskStopFromThePads(t *testing.T) {
	r := testutil.Wait(t, "Ask returns", ask(context.Background(), approval.Surfaces{Pads: questionPads{stopQuestion{}}, EndWhenUnanswerable: true}))
	if r.err != nil || r.d != (approval.Decision{Stop: true, From: approval.FromPad}) {
		t.Fatalf("got %+v, %v", r.d, r.err)
	}
}
