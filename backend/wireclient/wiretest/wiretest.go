// Package wiretest is a fake Wire Protocol 1 daemon on a Unix socket for
// client and CLI tests: it records every line received and answers through
// a handler.
package wiretest

import (
	"bufio"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/wire"
)

// Conn is one accepted connection.
type Conn struct {
	net.Conn
	// ID numbers connections from 1 in accept order.
	ID int
}

// Send writes one encoded message.
func (c *Conn) Send(m wire.Message) error {
	line, err := m.Encode()
	if err != nil {
		return err
	}
	_, err = c.Write(line)
	return err
}

// SendRaw writes s followed by "\n".
func (c *Conn) SendRaw(s string) error {
	_, err := c.Write([]byte(s + "\n"))
	return err
}

// Handler answers one received line; it may write to c or close it.
type Handler func(c *Conn, line []byte)

// Line is one line received by the server.
type Line struct {
	Conn int
	Text string
}

// Server is the fake daemon.
type Server struct {
	Path string

	ln      net.Listener
	handler Handler
	mu      sync.Mutex
	lines   []Line
	bytes   int   // every byte received, lines or not
	accepts int   // connections accepted
	closed  []int // connection ids whose peer closed
	nextID  int
	changed chan struct{}
	wg      sync.WaitGroup
	conns   map[*Conn]bool
}

// Start listens on a socket in a short temporary directory (Unix socket
// paths must stay below 108 bytes) and serves until the test ends.
func Start(tb testing.TB, h Handler) *Server {
	tb.Helper()
	dir, err := os.MkdirTemp("", "lw")
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, "pad.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return Serve(tb, ln, h)
}

// Serve serves on a Unix listener the test made (for example one of
// another user's, to play a squatter) until the test ends.
func Serve(tb testing.TB, ln net.Listener, h Handler) *Server {
	tb.Helper()
	s := &Server{Path: ln.Addr().String(), ln: ln, handler: h, changed: make(chan struct{}, 1), conns: map[*Conn]bool{}}
	s.wg.Add(1)
	go s.accept()
	tb.Cleanup(s.Close)
	return s
}

// Close stops listening, closes every connection and waits for the
// handlers to finish.
func (s *Server) Close() {
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// CloseConns closes every open connection but keeps listening (a daemon
// restart as seen by a lease client).
func (s *Server) CloseConns() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.Close()
	}
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.nextID++
		s.accepts++
		c := &Conn{Conn: nc, ID: s.nextID}
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(c)
	}
}

func (s *Server) serve(c *Conn) {
	defer s.wg.Done()
	defer func() {
		c.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.closed = append(s.closed, c.ID)
		s.mu.Unlock()
		s.notify()
	}()
	sc := bufio.NewScanner(countingReader{s, c})
	sc.Buffer(make([]byte, 4096), wire.MaxFrameBytes+1)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		s.mu.Lock()
		s.lines = append(s.lines, Line{Conn: c.ID, Text: string(line)})
		s.mu.Unlock()
		s.notify()
		if s.handler != nil {
			s.handler(c, line)
		}
	}
}

// countingReader counts what a connection delivers, so a test can tell
// that a client sent nothing at all, not even half a line.
type countingReader struct {
	s *Server
	r io.Reader
}

func (cr countingReader) Read(p []byte) (int, error) {
	n, err := cr.r.Read(p)
	cr.s.mu.Lock()
	cr.s.bytes += n
	cr.s.mu.Unlock()
	return n, err
}

// Received returns how many bytes all connections delivered so far.
func (s *Server) Received() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

// Accepted returns how many connections were accepted so far.
func (s *Server) Accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepts
}

func (s *Server) notify() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// Lines returns every line received so far.
func (s *Server) Lines() []Line {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Line(nil), s.lines...)
}

// Closed returns the ids of connections the peer has closed.
func (s *Server) Closed() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.closed...)
}

// Wait polls cond until it holds or timeout passes; it reports success.
func (s *Server) Wait(timeout time.Duration, cond func(lines []Line, closed []int) bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond(s.Lines(), s.Closed()) {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		t := time.NewTimer(min(left, 50*time.Millisecond))
		select {
		case <-s.changed:
		case <-t.C:
		}
		t.Stop()
	}
}

// Canned is a handler that answers like a small daemon: ping → pong,
// status → st, state with reply → ack (identity and state from the
// request), session_lease → ack (with ack as session when the lease names
// an agent), preview → preview_ack, preview_end → preview_end_ack, and
// decode errors → the error message. subscribe_actions, session_end and
// state without reply get no answer.
func Canned(st wire.Status, ack wire.StateAck) Handler {
	return func(c *Conn, line []byte) {
		if wire.IsBlankLine(line) {
			return
		}
		cmd, perr := wire.DecodeLine(line)
		if perr != nil {
			_ = c.Send(perr.Message())
			return
		}
		switch m := cmd.(type) {
		case wire.PingCommand:
			_ = c.Send(wire.Pong{})
		case wire.StatusCommand:
			_ = c.Send(st)
		case wire.StateCommand:
			if m.Reply {
				a := ack
				a.Backend, a.SessionID, a.State = m.Agent.Backend, m.Agent.SessionID, m.State
				_ = c.Send(a)
			}
		case wire.SessionLeaseCommand:
			r := wire.SessionLeaseAck{LeaseID: m.LeaseID}
			if !m.Agent.IsZero() {
				a := ack
				a.Backend, a.SessionID, a.Leased = m.Agent.Backend, m.Agent.SessionID, true
				r.Session = &a
			}
			_ = c.Send(r)
		case wire.PreviewCommand:
			_ = c.Send(wire.PreviewAck{PreviewID: m.PreviewID, State: m.State})
		case wire.PreviewEndCommand:
			_ = c.Send(wire.PreviewEndAck(m))
		}
	}
}

// Approver answers like a squatter that wants the agents' approvals: it
// answers what Canned answers and every subscribe_actions with an approve
// for that subscription's agent and request id.
func Approver(st wire.Status, ack wire.StateAck) Handler {
	canned := Canned(st, ack)
	return func(c *Conn, line []byte) {
		cmd, perr := wire.DecodeLine(line)
		if perr == nil {
			if m, ok := cmd.(wire.SubscribeActionsCommand); ok {
				_ = c.Send(wire.ActionEvent{Action: wire.ActionApprove, Agent: m.Agent, RequestID: m.RequestID})
				return
			}
		}
		canned(c, line)
	}
}
