package approval

import (
	"context"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/clock"
)

// Source says where the answer to a question came from.
type Source string

// The sources of a Decision.
const (
	FromWindow Source = "window" // the approval card in a window
	FromPad    Source = "pad"    // a pad or a phone
	FromNobody Source = "nobody" // the wait ended without an answer
)

// Decision is how a question ended: Allow only when a person allowed it.
type Decision struct {
	Allow bool
	// Stop: the person pressed Stop (deny, and end Claude's turn); only
	// a question that subscribes to Stop gets it.
	Stop bool
	From Source
}

// Card is the approval card in a window (POST /lip/approve). Ask blocks
// until the host answers; ending ctx takes the card down.
type Card interface {
	Ask(ctx context.Context, req Request) (Answer, error)
}

// Pads put a question on the pads and phones.
type Pads interface {
	// Open asks the question identified by requestID. A nil Question with
	// a nil error means nothing can answer there (no pad daemon).
	Open(ctx context.Context, requestID string) (Question, error)
}

// Question is a question open on the pads and phones.
type Question interface {
	// Receive waits for the press that answers the question. An error
	// other than ctx's means no press can come any more.
	Receive(ctx context.Context) (Decision, error)
	// Withdraw ends the question there: no press can answer it any more
	// (and, for WirePads, the pads show what comes next). d is the
	// decision Ask returns. It returns once done (bounded by the
	// implementation).
	Withdraw(d Decision)
}

// Surfaces are where Ask puts a question. Card or Pads may be nil.
type Surfaces struct {
	Card Card
	Pads Pads
	// Wait bounds the whole question (DefaultWait when 0); Clock measures
	// it (the wall clock when nil).
	Wait  time.Duration
	Clock clock.Clock
	// OnPadsError, when set, hears why the pads could not be asked.
	OnPadsError func(error)
	// EndWhenUnanswerable makes Ask return as soon as nothing can answer
	// any more — every surface failed to open or ended without an answer —
	// with that error (the hook: Claude then asks in its terminal).
	// Without it Ask waits out Wait (the chat: Claude waits for Lets).
	EndWhenUnanswerable bool
}

// Ask puts one question on every surface at once and returns the first
// answer a person gives, with where it came from; the other surfaces are
// withdrawn (the card's request ends, so the host takes it down; the pad
// question is withdrawn) before Ask returns, and every goroutine it
// started has ended.
//
// When Wait passes first the decision is {false, FromNobody} and the
// error nil. When ctx ends first (the asker withdrew the question) the
// decision is {false, FromNobody} and the error ctx's. With
// EndWhenUnanswerable, when nothing can answer any more, the decision is
// {false, FromNobody} and the error the last surface's.
//
// A card that ends without a person's answer (no shell page, its own
// wait over, the window gone) leaves the pads to answer.
func Ask(ctx context.Context, req Request, requestID string, s Surfaces) (Decision, error) {
	wait := s.Wait
	if wait <= 0 {
		wait = DefaultWait
	}
	timer := clock.Or(s.Clock).NewTimer(wait)
	defer timer.Stop()
	actx, cancel := context.WithCancel(ctx)
	defer cancel()

	var wg sync.WaitGroup
	// Every goroutine ends before Ask returns: cancel() below ends their
	// context first.
	defer wg.Wait()
	answers := make(chan Decision, 2)
	ended := make(chan error, 2) // a surface that ended without an answer
	open := 0
	if s.Card != nil {
		open++
		wg.Go(func() {
			a, err := s.Card.Ask(actx, req)
			switch {
			case err == nil && a.Answered():
				answers <- Decision{Allow: a.Choice == ChoiceAllow, From: FromWindow}
			case err == nil:
				ended <- &UnansweredError{Reason: a.Reason}
			default:
				ended <- err
			}
		})
	}
	var q Question
	var lastErr error
	if s.Pads != nil {
		var err error
		if q, err = s.Pads.Open(actx, requestID); err != nil {
			q, lastErr = nil, err
			if s.OnPadsError != nil {
				s.OnPadsError(err)
			}
		}
	}
	if q != nil {
		open++
		wg.Go(func() {
			d, err := q.Receive(actx)
			if err != nil {
				ended <- err
				return
			}
			d.From = FromPad
			answers <- d
		})
	}
	got, err := Decision{From: FromNobody}, error(nil)
	if s.EndWhenUnanswerable && open == 0 {
		return got, lastErr
	}
wait:
	for {
		select {
		case got = <-answers:
			break wait
		case e := <-ended:
			if open--; s.EndWhenUnanswerable && open == 0 {
				err = e
				break wait
			}
		case <-timer.C():
			break wait
		case <-ctx.Done():
			err = ctx.Err()
			break wait
		}
	}
	cancel()
	if q != nil {
		q.Withdraw(got)
	}
	return got, err
}

// UnansweredError: the card ended without a person's answer (Reason is
// the host's: timeout, no_shell, gone).
type UnansweredError struct {
	Reason string
}

func (e *UnansweredError) Error() string {
	return "the approval card ended without an answer (" + e.Reason + "): answer on a pad or in Claude's terminal"
}
