package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/token"
)

// Options start one Claude Code conversation process.
type Options struct {
	Claude string // path of the claude binary (see Find)
	Dir    string // working folder; --resume only works in the same one
	// SessionID is the conversation's uuid: a new conversation starts with
	// --session-id, an existing one (Resume) with --resume. Empty: Start
	// makes a new uuid.
	SessionID string
	Resume    bool
	MCPConfig string // --mcp-config: a file or JSON ("" = none)
	Settings  string // --settings: a file or JSON ("" = none)
	// PermissionMode is "" (ask: the CLI's default) or e.g. "acceptEdits".
	PermissionMode string
	// PermissionPromptStdio passes --permission-prompt-tool stdio: claude
	// asks Lets (ControlRequest can_use_tool) before a tool runs.
	PermissionPromptStdio bool
	// OnlyLetsSettings keeps the working folder's own Claude settings
	// out, for a folder the person has not trusted: its
	// .claude/settings.json and settings.local.json (hooks can run
	// programs) with --setting-sources user, and its .mcp.json servers
	// with --strict-mcp-config (only MCPConfig's servers start). The
	// person's own user settings and Settings still apply.
	OnlyLetsSettings bool
	// Env is claude's whole environment; nil means os.Environ().
	Env    []string
	Logger *slog.Logger
	// Clock is the Process's time: the restart window and Close's
	// graces; nil means the wall clock.
	Clock clock.Clock
	// RestartLimit is how many times claude is started again with
	// --resume after it ended unexpectedly within RestartWindow (default
	// one minute); 0 means never.
	RestartLimit  int
	RestartWindow time.Duration
	// ExtraArgs go after Lets' own flags (e.g. --strict-mcp-config,
	// --allowedTools …). Do not pass a prompt.
	ExtraArgs []string
	// MaxLineBytes is the longest stdout line read (default 16 MiB);
	// longer lines are skipped with a StreamError{*LineTooLongError}.
	MaxLineBytes int
	// EventBuffer is the capacity of Events() (default 256).
	EventBuffer int
	// Grace is how long Close waits after closing stdin, and again after
	// SIGTERM, before the next step (default 5 s).
	Grace time.Duration
}

// Errors of the Process.
var (
	// ErrClosed: the Process was closed or gave up restarting claude.
	ErrClosed = errors.New("agent: the Claude conversation has ended; start it again")
	// ErrUnknownRequest: AnswerPermission for a request claude is not
	// waiting for (already answered, or claude restarted since).
	ErrUnknownRequest = errors.New("agent: claude is not waiting for an answer to this request (already answered, or claude restarted)")
	// ErrNoClaude: Options.Claude is empty.
	ErrNoClaude = errors.New("agent: no claude binary given; use Find to locate it")
)

// ExitError says claude ended unexpectedly and was not started again.
type ExitError struct {
	Err      error // from exec.Cmd.Wait; nil for exit status 0
	Restarts int   // how many restarts happened within the window
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("agent: claude ended unexpectedly (%v) after %d restart(s); start the conversation again", e.Err, e.Restarts)
}
func (e *ExitError) Unwrap() error { return e.Err }

// Process is one supervised `claude -p` in stream-json mode: one Lets
// conversation. Its methods are safe for concurrent use.
//
// Supervision: when claude ends without Close (a crash, a kill, any exit
// status), a turn that was running or waiting gets one made-up Result
// (IsError, Error "crashed"), then claude starts again with --resume
// (same Dir) and a Restarted event follows — at most RestartLimit times
// per RestartWindow; past that a StreamError{*ExitError} is the last
// event and Done closes. Permission requests claude was waiting for are
// forgotten (AnswerPermission then gives ErrUnknownRequest).
//
// Back-pressure: Events() is bounded. When the consumer is slow, the
// stdout reader blocks (and so, through the pipe, does claude) rather than
// dropping anything — except that consecutive TextDelta of the same
// message and block waiting to be delivered are merged into one (the text
// is the same, in fewer pieces; up to 1 MiB per merged delta). After
// Close, events the consumer does not take are dropped.
type Process struct {
	o         Options
	log       *slog.Logger
	sessionID string
	events    chan Event
	done      chan struct{}
	closing   chan struct{}
	closeOnce sync.Once

	wmu sync.Mutex // serialises writes to claude's stdin

	mu       sync.Mutex
	child    *child
	ready    chan struct{} // closed when child is set
	started  bool          // claude printed init: the session exists on disk
	running  bool          // claude started a turn (init) and has not ended it (result)
	queued   int           // turns sent since the last init
	pending  map[string]json.RawMessage
	nextID   int
	restarts []time.Time
	closed   bool
	exitErr  error
}

type child struct {
	cmd   *exec.Cmd
	stdin *os.File
	exit  chan struct{} // closed after Wait
	err   error         // valid after exit
}

// Start starts claude and its supervisor. ctx bounds only the start; use
// Close to end the conversation.
func Start(ctx context.Context, o Options) (*Process, error) {
	if o.Claude == "" {
		return nil, ErrNoClaude
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	o.Clock = clock.Or(o.Clock)
	if o.RestartWindow <= 0 {
		o.RestartWindow = time.Minute
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = 16 << 20
	}
	if o.EventBuffer <= 0 {
		o.EventBuffer = 256
	}
	if o.Grace <= 0 {
		o.Grace = 5 * time.Second
	}
	if o.Resume && o.SessionID == "" {
		return nil, errors.New("agent: Resume needs the SessionID of the conversation")
	}
	if o.SessionID == "" {
		o.SessionID = token.NewUUID()
	}
	p := &Process{
		o: o, log: o.Logger.With("session", o.SessionID), sessionID: o.SessionID,
		events: make(chan Event, o.EventBuffer), done: make(chan struct{}), closing: make(chan struct{}),
		ready: make(chan struct{}), started: o.Resume, pending: map[string]json.RawMessage{},
	}
	c, err := p.spawn(ctx)
	if err != nil {
		return nil, err
	}
	go p.supervise(c)
	return p, nil
}

// Args are the command-line arguments of claude for o; resume chooses
// --resume over --session-id.
func Args(o Options, resume bool) []string {
	args := []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages"}
	if resume {
		args = append(args, "--resume", o.SessionID)
	} else {
		args = append(args, "--session-id", o.SessionID)
	}
	if o.MCPConfig != "" {
		args = append(args, "--mcp-config", o.MCPConfig)
	}
	if o.Settings != "" {
		args = append(args, "--settings", o.Settings)
	}
	if o.PermissionMode != "" {
		args = append(args, "--permission-mode", o.PermissionMode)
	}
	if o.PermissionPromptStdio {
		args = append(args, "--permission-prompt-tool", "stdio")
	}
	if o.OnlyLetsSettings {
		args = append(args, "--setting-sources", "user")
		if !slices.Contains(o.ExtraArgs, "--strict-mcp-config") {
			args = append(args, "--strict-mcp-config")
		}
	}
	return append(args, o.ExtraArgs...)
}

func (p *Process) spawn(ctx context.Context) (*child, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	resume := p.started
	p.mu.Unlock()
	cmd := exec.Command(p.o.Claude, Args(p.o, resume)...)
	cmd.Dir = p.o.Dir
	cmd.Env = p.o.Env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = &logWriter{log: p.log}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("agent: make a pipe for claude: %w", err)
	}
	cmd.Stdin = inR
	out, err := cmd.StdoutPipe()
	if err != nil {
		_ = inR.Close()
		_ = inW.Close()
		return nil, fmt.Errorf("agent: make a pipe for claude: %w", err)
	}
	if err := cmd.Start(); err != nil {
		_ = inR.Close()
		_ = inW.Close()
		var pe *os.PathError
		if errors.As(err, &pe) && errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %v", ErrNotInstalled, err)
		}
		return nil, fmt.Errorf("agent: start claude (%s): %w", p.o.Claude, err)
	}
	_ = inR.Close()
	c := &child{cmd: cmd, stdin: inW, exit: make(chan struct{})}
	p.log.Info("agent: claude started", "pid", cmd.Process.Pid, "resume", resume, "dir", p.o.Dir)
	go func() {
		p.read(out)
		c.err = cmd.Wait()
		// Whatever claude left behind in its group (Bash commands, MCP
		// servers) goes with it.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		p.mu.Lock()
		if p.child == c {
			p.child = nil
			p.ready = make(chan struct{})
		}
		p.mu.Unlock()
		_ = inW.Close()
		close(c.exit)
	}()
	p.mu.Lock()
	p.child = c
	close(p.ready)
	closed := p.closed
	p.mu.Unlock()
	if closed { // Close came while this restart was under way
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return c, nil
}

// supervise waits for each child to exit and restarts it when it ended
// unexpectedly, within the restart limit.
func (p *Process) supervise(c *child) {
	defer close(p.done)
	defer close(p.events)
	for {
		<-c.exit
		p.mu.Lock()
		closed := p.closed
		p.pending = map[string]json.RawMessage{}
		lost := p.running || p.queued > 0
		p.running, p.queued = false, 0
		now := p.o.Clock.Now()
		allowed := !closed && RestartAllowed(p.restarts, now, p.o.RestartLimit, p.o.RestartWindow)
		if allowed {
			p.restarts = append(p.restarts, now)
		}
		n := len(p.restarts)
		p.mu.Unlock()
		if closed {
			return
		}
		p.log.Warn("agent: claude ended unexpectedly", "err", c.err, "turn_lost", lost, "restart", allowed)
		if lost {
			p.emit(Result{Subtype: "error_during_execution", IsError: true, Error: ErrCodeCrashed, SessionID: p.sessionID,
				Errors: []string{fmt.Sprintf("claude ended unexpectedly: %v", c.err)}})
		}
		if !allowed {
			err := &ExitError{Err: c.err, Restarts: n}
			p.mu.Lock()
			p.closed = true
			p.exitErr = err
			p.mu.Unlock()
			p.emit(StreamError{Err: err})
			return
		}
		next, err := p.spawn(context.Background())
		if err != nil {
			p.mu.Lock()
			p.closed = true
			p.exitErr = err
			p.mu.Unlock()
			p.emit(StreamError{Err: err})
			return
		}
		p.emit(Restarted{Attempt: n, PID: next.cmd.Process.Pid, Reason: fmt.Sprint(c.err)})
		c = next
	}
}

// RestartAllowed reports whether another restart at now stays within limit
// restarts per window, given the times of the earlier ones.
func RestartAllowed(earlier []time.Time, now time.Time, limit int, window time.Duration) bool {
	n := 0
	for _, t := range earlier {
		if now.Sub(t) < window {
			n++
		}
	}
	return n < limit
}

// read decodes claude's stdout until EOF.
func (p *Process) read(out io.Reader) {
	br := bufio.NewReaderSize(out, 64<<10)
	var assistantErr string
	deltas := make(chan Event, 64)
	fwdDone := make(chan struct{})
	go func() { p.forward(deltas); close(fwdDone) }()
	defer func() { close(deltas); <-fwdDone }()
	for {
		line, size, err := readLine(br, p.o.MaxLineBytes)
		if size > p.o.MaxLineBytes {
			p.log.Warn("agent: skipped a line that is too long", "bytes", size)
			deltas <- StreamError{Err: &LineTooLongError{Size: size, Limit: p.o.MaxLineBytes}}
		} else if len(line) > 0 {
			ev, derr := DecodeLine(line)
			if derr != nil {
				deltas <- StreamError{Err: derr}
			} else {
				switch e := ev.(type) {
				case Init:
					p.mu.Lock()
					p.started = true
					// The turn takes every user turn that waited.
					p.running, p.queued = true, 0
					p.mu.Unlock()
				case Assistant:
					if e.Error != "" {
						assistantErr = e.Error
					}
				case ControlRequest:
					if e.Subtype == "can_use_tool" {
						p.mu.Lock()
						p.pending[e.RequestID] = e.Input
						p.mu.Unlock()
					}
				case Result:
					if assistantErr != "" { // the most precise code of the turn
						e.Error = assistantErr
					}
					assistantErr = ""
					p.mu.Lock()
					p.running = false
					p.mu.Unlock()
					ev = e
				}
				deltas <- ev
			}
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line of at most max bytes (without the newline). A
// longer line is consumed and dropped: nil line, its size > max.
func readLine(br *bufio.Reader, max int) ([]byte, int, error) {
	var buf []byte
	size := 0
	for {
		frag, err := br.ReadSlice('\n')
		size += len(frag)
		if size <= max+1 {
			buf = append(buf, frag...)
		} else {
			buf = nil
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(buf) > 0 && buf[len(buf)-1] == '\n' {
			buf = buf[:len(buf)-1]
			size--
		}
		if size > max {
			return nil, size, err
		}
		return buf, size, err
	}
}

const maxMergedDelta = 1 << 20

// forward moves events from in to Events(), merging TextDelta that wait.
func (p *Process) forward(in <-chan Event) {
	var held *TextDelta
	for {
		if held == nil {
			ev, ok := <-in
			if !ok {
				return
			}
			if d, isDelta := ev.(TextDelta); isDelta {
				held = &d
				continue
			}
			p.emit(ev)
			continue
		}
		select {
		case p.events <- *held:
			held = nil
		case <-p.closing:
			select {
			case p.events <- *held:
			default:
			}
			held = nil
		case ev, ok := <-in:
			if !ok {
				p.emit(*held)
				return
			}
			if d, isDelta := ev.(TextDelta); isDelta && d.MessageID == held.MessageID && d.Index == held.Index && len(held.Text) < maxMergedDelta {
				held.Text += d.Text
				continue
			}
			p.emit(*held)
			held = nil
			if d, isDelta := ev.(TextDelta); isDelta {
				held = &d
				continue
			}
			p.emit(ev)
		}
	}
}

// emit delivers ev, blocking until the consumer takes it; after Close it
// gives up when the consumer is not there.
func (p *Process) emit(ev Event) {
	select {
	case p.events <- ev:
	case <-p.closing:
		select {
		case p.events <- ev:
		default:
		}
	}
}

// Events is the stream of what claude reports, closed after Done.
func (p *Process) Events() <-chan Event { return p.events }

// Done is closed when the conversation process has ended for good (Close,
// or claude ended and was not restarted).
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is why the Process ended on its own (*ExitError), nil otherwise.
func (p *Process) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitErr
}

// SessionID is the conversation's id (for --resume later).
func (p *Process) SessionID() string { return p.sessionID }

// PID is the pid of the running claude (0 while it restarts or after it
// ended).
func (p *Process) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.child == nil {
		return 0
	}
	return p.child.cmd.Process.Pid
}

// write sends one line to the current claude, waiting for a restart to
// finish if one is under way.
func (p *Process) write(ctx context.Context, line []byte, turn bool) error {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return ErrClosed
		}
		c, ready := p.child, p.ready
		if c != nil {
			if turn {
				p.queued++
			}
			p.mu.Unlock()
			deadline, _ := ctx.Deadline() // zero: none
			p.wmu.Lock()
			_ = c.stdin.SetWriteDeadline(deadline)
			_, err := c.stdin.Write(line)
			p.wmu.Unlock()
			if err != nil {
				if turn {
					p.mu.Lock()
					if p.queued > 0 {
						p.queued--
					}
					p.mu.Unlock()
				}
				if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
					// claude just ended: wait for it to be restarted and
					// write the line to the new one.
					select {
					case <-c.exit:
						continue
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				return fmt.Errorf("agent: write to claude: %w", err)
			}
			return nil
		}
		p.mu.Unlock()
		select {
		case <-ready:
		case <-p.done:
			return ErrClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Send sends one user turn. A turn sent while another runs waits in claude;
// claude may answer several waiting turns together in one turn (one Init,
// one Result: 2.1.332 does), so treat a Result as "claude is idle now"
// rather than as the answer to one particular Send.
func (p *Process) Send(ctx context.Context, blocks []Block) error {
	line, err := EncodeUserTurn(blocks)
	if err != nil {
		return err
	}
	return p.write(ctx, line, true)
}

// Interrupt stops the running turn (and a running Bash command); claude
// stays alive. The turn ends with a Result whose Error is "interrupted",
// and a ControlResponse answers the request.
func (p *Process) Interrupt(ctx context.Context) error {
	line, err := EncodeInterrupt(p.newRequestID("interrupt"))
	if err != nil {
		return err
	}
	return p.write(ctx, line, false)
}

func (p *Process) newRequestID(kind string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nextID++
	return fmt.Sprintf("lets-%s-%d", kind, p.nextID)
}

// AnswerPermission answers a can_use_tool ControlRequest. allow with a nil
// input runs the tool with the input claude asked about; message is told
// to the model on deny. Only the first answer counts: a second one gets
// ErrUnknownRequest.
func (p *Process) AnswerPermission(requestID string, allow bool, input json.RawMessage, message string) error {
	p.mu.Lock()
	orig, ok := p.pending[requestID]
	if ok {
		delete(p.pending, requestID)
	}
	p.mu.Unlock()
	if !ok {
		return ErrUnknownRequest
	}
	var line []byte
	var err error
	if allow {
		if input == nil {
			input = orig
		}
		if len(input) == 0 {
			input = json.RawMessage(`{}`)
		}
		line, err = EncodePermissionAllow(requestID, input)
	} else {
		line, err = EncodePermissionDeny(requestID, message)
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return p.write(ctx, line, false)
}

// Close ends the conversation: it closes claude's stdin (claude ends the
// session), sends SIGTERM to its process group after Grace, then SIGKILL
// after another Grace, and waits for the supervisor.
func (p *Process) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		c := p.child
		p.mu.Unlock()
		close(p.closing)
		if c == nil {
			return
		}
		_ = c.stdin.Close()
		if p.exitWithin(c) {
			return
		}
		p.log.Warn("agent: claude did not end after its input closed; SIGTERM", "pid", c.cmd.Process.Pid)
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGTERM)
		if p.exitWithin(c) {
			return
		}
		p.log.Warn("agent: claude did not end after SIGTERM; SIGKILL", "pid", c.cmd.Process.Pid)
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	})
	<-p.done
	return nil
}

// exitWithin reports whether c exits within one Grace.
func (p *Process) exitWithin(c *child) bool {
	grace := p.o.Clock.NewTimer(p.o.Grace)
	defer grace.Stop()
	select {
	case <-c.exit:
		return true
	case <-grace.C():
		return false
	}
}

// logWriter sends claude's stderr to the log, line by line.
type logWriter struct {
	log *slog.Logger
	mu  sync.Mutex
	buf []byte
}

func (w *logWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	for {
		i := indexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.log.Info("agent: claude stderr", "line", string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 4096 {
		w.log.Info("agent: claude stderr", "line", string(w.buf))
		w.buf = nil
	}
	return len(b), nil
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
