// Package wireclient is a Go client of Wire Protocol 1 with the
// capabilities of the reference Python client (spec §12): report state with
// and without reply, end a session, status, ping, action subscriptions,
// session leases and previews. Every call takes a context and is bounded by
// a timeout.
//
// Every connection goes to the user's own daemon only: before a byte is
// sent, the socket file (seen without following a link) and the process
// listening on it (SO_PEERCRED) must belong to this user, or the call
// fails with a *ForeignPeerError (issue #23: another user listening first
// on /tmp/pad-lattice-<uid>.sock would read the agents' reports and answer
// their approvals). When that default path is taken, the client finds the
// daemon in its private folder (wire.ChooseSocketPath).
package wireclient

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/lets-app/lets/backend/wire"
)

// ErrDaemonNotRunning is wrapped by every error caused by nothing listening
// at the socket path (missing file or connection refused).
var ErrDaemonNotRunning = errors.New("the pad daemon is not running")

// Client talks to one daemon socket. The zero value is not usable; use New.
type Client struct {
	// Path is the Unix socket path.
	Path string
	// Timeout bounds each request/response exchange and each connect
	// (default wire.ClientRequestTimeout, 2 s).
	Timeout time.Duration
}

// New returns a client for the socket at path.
func New(path string) *Client {
	return &Client{Path: path, Timeout: wire.ClientRequestTimeout}
}

// NewDefault returns a client for the socket resolved from the environment
// (spec §2.1) with the real user id.
func NewDefault(getenv func(string) string) *Client {
	return New(wire.ResolveSocketPath(getenv, os.Getuid()))
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return wire.ClientRequestTimeout
}

// conn is one connection with a line reader.
type conn struct {
	nc      net.Conn
	r       *bufio.Reader
	timeout time.Duration
}

// dial connects within the timeout and the context, to the user's own
// daemon only.
func (c *Client) dial(ctx context.Context) (*conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Nothing is written before both checks pass: the socket file must be
	// ours, and so must the process listening on it (peer.go).
	uid := selfUID()
	path := c.resolve()
	if err := checkSocketFile(path, uid); err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: c.timeout()}
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w at %s: %w", ErrDaemonNotRunning, path, err)
		}
		return nil, fmt.Errorf("connect to the pad daemon at %s: %w", path, err)
	}
	if err := checkPeer(nc, path, uid); err != nil {
		nc.Close()
		return nil, err
	}
	return &conn{nc: nc, r: bufio.NewReaderSize(nc, 4096), timeout: c.timeout()}, nil
}

func (cn *conn) Close() error { return cn.nc.Close() }

// bounded runs fn with a deadline of min(now+timeout, ctx deadline) that is
// also cut short when ctx is cancelled; timeout ≤ 0 means only ctx bounds it.
func (cn *conn) bounded(ctx context.Context, timeout time.Duration, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	deadline := time.Time{}
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	ctxDeadline, hasCtxDeadline := ctx.Deadline()
	if hasCtxDeadline && (deadline.IsZero() || ctxDeadline.Before(deadline)) {
		deadline = ctxDeadline
	}
	_ = cn.nc.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = cn.nc.SetDeadline(time.Unix(1, 0)) })
	err := fn()
	if !stop() && ctx.Err() != nil {
		return ctx.Err()
	}
	_ = cn.nc.SetDeadline(time.Time{})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		if hasCtxDeadline && !time.Now().Before(ctxDeadline) {
			// The context's deadline fired the socket deadline first.
			return context.DeadlineExceeded
		}
		if timeout > 0 {
			return fmt.Errorf("the pad daemon did not answer within %v: %w", timeout, err)
		}
		return fmt.Errorf("the pad daemon did not answer in time: %w", err)
	}
	return err
}

// send writes one encoded message.
func (cn *conn) send(ctx context.Context, m wire.Message) error {
	line, err := m.Encode()
	if err != nil {
		return fmt.Errorf("encode %s: %w", m.Type(), err)
	}
	return cn.bounded(ctx, cn.timeout, func() error {
		if _, err := cn.nc.Write(line); err != nil {
			return fmt.Errorf("send %s to the pad daemon: %w", m.Type(), err)
		}
		return nil
	})
}

// readLine reads one line (without "\n"), refusing more than
// wire.MaxFrameBytes before a newline.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > wire.MaxFrameBytes+1 || (err == bufio.ErrBufferFull && len(line) > wire.MaxFrameBytes) {
			return nil, wire.ErrFrameTooLarge()
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(line) > 0:
			return nil, fmt.Errorf("the pad daemon closed the connection in the middle of a line: %w", io.ErrUnexpectedEOF)
		default:
			return nil, err
		}
	}
}

// recvLine reads the next non-blank line within timeout (≤ 0: only ctx).
func (cn *conn) recvLine(ctx context.Context, timeout time.Duration) ([]byte, error) {
	var line []byte
	err := cn.bounded(ctx, timeout, func() error {
		for {
			l, err := readLine(cn.r)
			if err != nil {
				if err == io.EOF {
					return fmt.Errorf("the pad daemon closed the connection without answering: %w", io.EOF)
				}
				return err
			}
			if !wire.IsBlankLine(l) {
				line = l
				return nil
			}
		}
	})
	return line, err
}

// recv reads and decodes the next reply; an error message becomes a
// *wire.ProtocolError carrying the daemon's code.
func (cn *conn) recv(ctx context.Context, timeout time.Duration) (wire.Reply, error) {
	line, err := cn.recvLine(ctx, timeout)
	if err != nil {
		return nil, err
	}
	r, perr := wire.DecodeReply(line)
	if perr != nil {
		return nil, perr
	}
	if e, ok := r.(wire.ErrorMessage); ok {
		return nil, e.Err()
	}
	return r, nil
}

// request sends m and returns the first reply, which must have type want.
func (cn *conn) request(ctx context.Context, m wire.Message, want string) (wire.Reply, error) {
	if err := cn.send(ctx, m); err != nil {
		return nil, err
	}
	r, err := cn.recv(ctx, cn.timeout)
	if err != nil {
		return nil, err
	}
	if r.Type() != want {
		return nil, unexpected(want, r.Type())
	}
	return r, nil
}

func unexpected(want, got string) *wire.ProtocolError {
	return &wire.ProtocolError{Code: wire.CodeUnexpectedMessageType, Text: fmt.Sprintf("expected %s, got %s", want, got)}
}

// roundTrip opens a connection, sends m, reads one reply of type want and
// closes the connection.
func (c *Client) roundTrip(ctx context.Context, m wire.Message, want string) (wire.Reply, error) {
	cn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer cn.Close()
	return cn.request(ctx, m, want)
}

// fireAndForget connects, writes one line and closes at once.
func (c *Client) fireAndForget(ctx context.Context, m wire.Message) error {
	if _, err := m.Encode(); err != nil {
		return fmt.Errorf("encode %s: %w", m.Type(), err)
	}
	cn, err := c.dial(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	return cn.send(ctx, m)
}

// Ping sends ping and waits for pong.
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.roundTrip(ctx, wire.PingCommand{}, wire.TypePong)
	return err
}

// Status asks for the daemon status.
func (c *Client) Status(ctx context.Context) (wire.Status, error) {
	r, err := c.roundTrip(ctx, wire.StatusCommand{}, wire.TypeStatus)
	if err != nil {
		return wire.Status{}, err
	}
	return r.(wire.Status), nil
}

// ReportState sends a state update without asking for a reply
// (fire-and-forget; cmd.Reply is ignored and sent as false).
func (c *Client) ReportState(ctx context.Context, cmd wire.StateCommand) error {
	cmd.Reply = false
	return c.fireAndForget(ctx, cmd)
}

// ReportStateReply sends a state update with reply: true and returns the
// daemon's state_ack.
func (c *Client) ReportStateReply(ctx context.Context, cmd wire.StateCommand) (wire.StateAck, error) {
	cmd.Reply = true
	r, err := c.roundTrip(ctx, cmd, wire.TypeStateAck)
	if err != nil {
		return wire.StateAck{}, err
	}
	return r.(wire.StateAck), nil
}

// EndSession ends the session of id (fire-and-forget; unknown identities
// are a silent no-op on the daemon).
func (c *Client) EndSession(ctx context.Context, id wire.Identity) error {
	return c.fireAndForget(ctx, wire.SessionEndCommand{Agent: id})
}

// NewID returns a random 32-hex-digit id, as the reference uses for
// request, lease and preview ids.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}
