package wireclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/lets-app/lets/backend/wire"
)

// Subscription is a live subscribe_actions connection. Actions arrive on
// Actions(); the channel is closed when the subscription ends (context
// cancelled, Close, daemon closed the connection, or a bad line), after
// which Err tells why. Disconnecting removes the advertised capabilities on
// the daemon at once.
type Subscription struct {
	cn      *conn
	actions chan wire.ActionEvent
	closed  chan struct{} // closed by Close / ctx cancellation
	done    chan struct{} // closed when the reader has exited
	once    sync.Once
	stop    func() bool
	ctx     context.Context
	err     error
}

// ErrSubscriptionEnded is returned by Receive after the daemon closed a
// subscription.
var ErrSubscriptionEnded = errors.New("the pad daemon closed the action subscription")

// Subscribe opens a connection, sends cmd (there is no acknowledgement) and
// starts delivering action events. Cancelling ctx ends the subscription.
func (c *Client) Subscribe(ctx context.Context, cmd wire.SubscribeActionsCommand) (*Subscription, error) {
	if _, err := cmd.Encode(); err != nil {
		return nil, fmt.Errorf("encode subscribe_actions: %w", err)
	}
	cn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	if err := cn.send(ctx, cmd); err != nil {
		cn.Close()
		return nil, err
	}
	s := &Subscription{
		cn:      cn,
		actions: make(chan wire.ActionEvent),
		closed:  make(chan struct{}),
		done:    make(chan struct{}),
		ctx:     ctx,
	}
	s.stop = context.AfterFunc(ctx, s.shutdown)
	go s.read()
	return s, nil
}

func (s *Subscription) shutdown() {
	s.once.Do(func() {
		close(s.closed)
		_ = s.cn.Close()
	})
}

func (s *Subscription) read() {
	defer close(s.done)
	defer close(s.actions)
	defer s.shutdown()
	for {
		line, err := readLine(s.cn.r)
		if err != nil {
			s.finish(err)
			return
		}
		if wire.IsBlankLine(line) {
			continue
		}
		r, perr := wire.DecodeReply(line)
		if perr != nil {
			s.finish(perr)
			return
		}
		switch m := r.(type) {
		case wire.ActionEvent:
			select {
			case s.actions <- m:
			case <-s.closed:
				s.finish(nil)
				return
			}
		case wire.ErrorMessage:
			s.finish(m.Err())
			return
		default:
			s.finish(unexpected(wire.TypeAction, r.Type()))
			return
		}
	}
}

// finish records why the reader stopped.
func (s *Subscription) finish(err error) {
	select {
	case <-s.closed:
		// Ended by us: report the context's reason, or nothing for Close.
		s.err = s.ctx.Err()
		return
	default:
	}
	switch {
	case err == nil:
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
		s.err = ErrSubscriptionEnded
	default:
		s.err = err
	}
}

// Actions delivers each action event addressed to this connection.
func (s *Subscription) Actions() <-chan wire.ActionEvent { return s.actions }

// Err reports why the subscription ended (valid after Actions is closed):
// nil after Close, the context's error after cancellation,
// ErrSubscriptionEnded when the daemon closed it, a *wire.ProtocolError for
// an error line or a bad event.
func (s *Subscription) Err() error {
	<-s.done
	return s.err
}

// Receive waits for the next action (like the reference client's
// subscription.receive()).
func (s *Subscription) Receive(ctx context.Context) (wire.ActionEvent, error) {
	select {
	case ev, ok := <-s.actions:
		if !ok {
			if err := s.Err(); err != nil {
				return wire.ActionEvent{}, err
			}
			return wire.ActionEvent{}, ErrSubscriptionEnded
		}
		return ev, nil
	case <-ctx.Done():
		return wire.ActionEvent{}, ctx.Err()
	}
}

// Close ends the subscription and closes the connection; it waits for the
// reader to stop.
func (s *Subscription) Close() error {
	s.stop()
	s.shutdown()
	<-s.done
	return nil
}
