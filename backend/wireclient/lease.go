package wireclient

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/wire"
)

// LeaseUpdate is one event of a lease's life.
type LeaseUpdate struct {
	// Type is the message that caused it (session_lease_ack or
	// session_lease_bound), or "disconnected" / "reconnected".
	Type string
	// Session is the embedded snapshot when the message carried a complete
	// one.
	Session *wire.StateAck
	// Identity is the lease's identity after this update (zero if none).
	Identity wire.Identity
	// Err is the connection error for "disconnected".
	Err error
}

// Lease keeps a session_lease registered for as long as it is open: the
// session it binds to lives while this connection lives (spec §9.11). It
// adopts the identity from every message carrying a session (case 112) and,
// when the daemon goes away, reconnects every wire.LeaseReconnectInterval
// and re-registers with the adopted identity, like the reference launcher.
type Lease struct {
	client *Client
	id     string

	mu       sync.Mutex
	metadata wire.Metadata
	identity wire.Identity
	session  *wire.StateAck

	updates chan LeaseUpdate
	cancel  context.CancelFunc
	done    chan struct{}
	err     error
}

// Lease registers cmd (LeaseID required; a zero Agent registers without
// identity) and returns once the daemon has acknowledged it. The lease is
// then maintained in the background until ctx is cancelled or Close.
func (c *Client) Lease(ctx context.Context, cmd wire.SessionLeaseCommand) (*Lease, wire.SessionLeaseAck, error) {
	if _, err := cmd.Encode(); err != nil {
		return nil, wire.SessionLeaseAck{}, fmt.Errorf("encode session_lease: %w", err)
	}
	l := &Lease{
		client:   c,
		id:       cmd.LeaseID,
		metadata: cmd.Metadata.Clone(),
		identity: cmd.Agent,
		updates:  make(chan LeaseUpdate, 16),
		done:     make(chan struct{}),
	}
	cn, ack, err := l.register(ctx)
	if err != nil {
		return nil, wire.SessionLeaseAck{}, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	l.cancel = cancel
	go l.run(runCtx, cn)
	return l, ack, nil
}

// ID is the lease id.
func (l *Lease) ID() string { return l.id }

// Identity is the adopted identity (zero until the lease is bound).
func (l *Lease) Identity() wire.Identity {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.identity
}

// Session is the last complete snapshot received, or nil.
func (l *Lease) Session() *wire.StateAck {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.session == nil {
		return nil
	}
	s := *l.session
	return &s
}

// Updates delivers lease events. Delivery is best effort: when nobody reads,
// updates are dropped rather than blocking the lease; Identity and Session
// are always current. The channel is closed when the lease ends.
func (l *Lease) Updates() <-chan LeaseUpdate { return l.updates }

// Close releases the lease (closing its connection, which removes the bound
// session unless another live lease owns it) and waits for the background
// work to stop.
func (l *Lease) Close() error {
	l.cancel()
	<-l.done
	return nil
}

// Done is closed when the lease has ended.
func (l *Lease) Done() <-chan struct{} { return l.done }

// Err is why the lease ended (the context's error), valid after Done.
func (l *Lease) Err() error {
	<-l.done
	return l.err
}

// register connects and sends session_lease with the current identity and
// metadata, returning the connection after the acknowledgement.
func (l *Lease) register(ctx context.Context) (*conn, wire.SessionLeaseAck, error) {
	l.mu.Lock()
	cmd := wire.SessionLeaseCommand{LeaseID: l.id, Agent: l.identity, Metadata: l.metadata}
	l.mu.Unlock()
	cn, err := l.client.dial(ctx)
	if err != nil {
		return nil, wire.SessionLeaseAck{}, err
	}
	r, err := cn.request(ctx, cmd, wire.TypeSessionLeaseAck)
	if err != nil {
		cn.Close()
		return nil, wire.SessionLeaseAck{}, err
	}
	ack := r.(wire.SessionLeaseAck)
	l.adopt(wire.TypeSessionLeaseAck, ack.Session, wire.Identity{})
	return cn, ack, nil
}

// adopt records a session snapshot or a bare identity and emits an update.
func (l *Lease) adopt(typ string, s *wire.StateAck, id wire.Identity) {
	l.mu.Lock()
	if s != nil {
		cp := *s
		l.session = &cp
		l.identity = s.Identity()
	} else if id.Valid() {
		l.identity = id
	}
	u := LeaseUpdate{Type: typ, Session: s, Identity: l.identity}
	l.mu.Unlock()
	l.emit(u)
}

func (l *Lease) emit(u LeaseUpdate) {
	select {
	case l.updates <- u:
	default:
	}
}

// run reads the lease connection until it fails, then reconnects.
func (l *Lease) run(ctx context.Context, cn *conn) {
	defer close(l.done)
	defer close(l.updates)
	for {
		err := l.readLoop(ctx, cn)
		cn.Close()
		if ctx.Err() != nil {
			l.err = ctx.Err()
			return
		}
		l.emit(LeaseUpdate{Type: "disconnected", Identity: l.Identity(), Err: err})
		for {
			t := time.NewTimer(wire.LeaseReconnectInterval)
			select {
			case <-ctx.Done():
				t.Stop()
				l.err = ctx.Err()
				return
			case <-t.C:
			}
			var rerr error
			cn, _, rerr = l.register(ctx)
			if rerr == nil {
				l.emit(LeaseUpdate{Type: "reconnected", Identity: l.Identity(), Session: l.Session()})
				break
			}
			if ctx.Err() != nil {
				l.err = ctx.Err()
				return
			}
		}
	}
}

// readLoop reads lines until the connection fails or ctx ends. Protocol
// errors are ignored, as in the reference lease client.
func (l *Lease) readLoop(ctx context.Context, cn *conn) error {
	stop := context.AfterFunc(ctx, func() { cn.Close() })
	defer stop()
	for {
		line, err := readLine(cn.r)
		if err != nil {
			return err // includes an oversized line, which desynchronises the stream
		}
		if wire.IsBlankLine(line) {
			continue
		}
		r, perr := wire.DecodeReply(line)
		if perr == nil {
			switch m := r.(type) {
			case wire.SessionLeaseBound:
				s := m.Session
				l.adopt(wire.TypeSessionLeaseBound, &s, wire.Identity{})
				continue
			case wire.SessionLeaseAck:
				l.adopt(wire.TypeSessionLeaseAck, m.Session, wire.Identity{})
				continue
			}
		}
		if id, ok := wire.LeaseSessionIdentity(line); ok {
			l.adopt(wire.TypeSessionLeaseBound, nil, id)
		}
	}
}
