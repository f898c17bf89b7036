package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// ptyTerminal is a pseudo-terminal that behaves enough like xterm for a
// full-screen terminal program (Claude Code's Ink interface) to treat it
// as a person's terminal: it has a size, answers the queries such a
// program sends at start (device attributes, the terminal's name and
// version, the cursor position, its colours), keeps everything the
// program wrote with the time it arrived, and logs the keys typed into
// it on the same clock, so a failure shows what the program drew and
// asked and when each key went in.
type ptyTerminal struct {
	t     testing.TB
	tty   *os.File
	start time.Time
	done  chan struct{} // closed when the program has exited

	mu      sync.Mutex
	raw     bytes.Buffer // everything the program wrote
	events  []ptyEvent   // the same, as timed chunks, with the keys typed
	pending []byte       // an unfinished escape sequence at a chunk's end
}

// ptyEvent is one chunk the program wrote (out) or one write into the
// terminal (in: a key typed or a query answered), at a time since start.
type ptyEvent struct {
	at   time.Duration
	in   bool
	what string // for in: why it was written
	data []byte
}

// terminalQuery matches the queries a terminal answers: primary and
// secondary device attributes (ESC[c, ESC[0c, ESC[>c, ESC[>0c), XTVERSION
// (ESC[>q, ESC[>0q), the cursor position report (ESC[6n), the status
// report (ESC[5n) and the default colours (OSC 10/11 with "?"). The
// kitty keyboard query (ESC[?u) gets no answer, as from any terminal
// without that protocol: the device attributes that follow tell the
// program so.
var terminalQuery = regexp.MustCompile(`\x1b\[(0?c|>0?c|>0?q|6n|5n)|\x1b\](1[01]);\?(\x07|\x1b\\)`)

// startPtyTerminal starts cmd on a new rows×cols pseudo-terminal, as the
// leader of a session of its own with the terminal as its controlling
// one (so the whole process tree can be ended at once), with TERM set to
// xterm-256color. The program is ended (SIGTERM to its group, then
// SIGKILL) when the test ends, and its timed output is logged if the test
// failed or $LETS_PTY_LOG names a file to write it to.
func startPtyTerminal(t testing.TB, cmd *exec.Cmd, rows, cols uint16) *ptyTerminal {
	t.Helper()
	cmd.Env = append(cmd.Env, "TERM=xterm-256color", "COLORTERM=truecolor")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	if err != nil {
		t.Fatalf("start %s on a pseudo-terminal: %v", cmd.Path, err)
	}
	p := &ptyTerminal{t: t, tty: tty, start: time.Now(), done: make(chan struct{})}
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 32<<10)
		for {
			n, err := tty.Read(buf)
			if n > 0 {
				p.received(buf[:n])
			}
			if err != nil { // EIO once the program and its children closed the terminal
				return
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		ended := time.NewTimer(10 * time.Second)
		defer ended.Stop()
		select {
		case <-p.done:
		case <-ended.C:
		}
		_ = syscall.Kill(-pid, syscall.SIGKILL) // whatever of the group is left
		<-p.done
		_ = tty.Close()
		<-read
		if name := os.Getenv("LETS_PTY_LOG"); name != "" {
			if err := os.WriteFile(name, []byte(p.timeline()), 0o644); err != nil {
				t.Logf("write the terminal's log to $LETS_PTY_LOG: %v", err)
			}
		}
		if t.Failed() {
			t.Logf("the terminal, as timed chunks (< written by %s, > typed or answered):\n%s", cmd.Path, p.timeline())
		}
	})
	return p
}

// received keeps a chunk the program wrote and answers the queries in it.
func (p *ptyTerminal) received(chunk []byte) {
	at := time.Since(p.start)
	p.mu.Lock()
	p.raw.Write(chunk)
	p.events = append(p.events, ptyEvent{at: at, data: bytes.Clone(chunk)})
	scan := append(p.pending, chunk...)
	p.pending = nil
	// Keep an escape sequence cut off at the chunk's end for the next one.
	if i := bytes.LastIndexByte(scan, 0x1b); i >= 0 && len(scan)-i < 16 && !terminalQuery.Match(scan[i:]) && !complete(scan[i:]) {
		p.pending = bytes.Clone(scan[i:])
		scan = scan[:i]
	}
	var answers [][]byte
	for _, m := range terminalQuery.FindAllSubmatch(scan, -1) {
		answers = append(answers, p.answer(m))
	}
	p.mu.Unlock()
	for _, a := range answers {
		p.write(a, "answer")
	}
}

// complete reports whether seq, which starts with ESC, is a whole escape
// sequence already (so nothing of it waits for the next chunk).
func complete(seq []byte) bool {
	if len(seq) < 2 {
		return false
	}
	switch seq[1] {
	case '[':
		for _, b := range seq[2:] {
			if b >= 0x40 && b <= 0x7e {
				return true
			}
		}
		return false
	case ']', 'P':
		return bytes.Contains(seq, []byte{0x07}) || bytes.Contains(seq[1:], []byte{0x1b, '\\'})
	default:
		return true
	}
}

// answer is what xterm would answer to the query m (called with p.mu
// held).
func (p *ptyTerminal) answer(m [][]byte) []byte {
	q := string(m[0])
	switch {
	case strings.HasSuffix(q, "c") && strings.Contains(q, ">"):
		return []byte("\x1b[>41;390;0c") // xterm, patch 390
	case strings.HasSuffix(q, "c"):
		return []byte("\x1b[?62;22c") // VT220 with ANSI colour
	case strings.HasSuffix(q, "q"):
		return []byte("\x1bP>|xterm(390)\x1b\\")
	case q == "\x1b[5n":
		return []byte("\x1b[0n")
	case q == "\x1b[6n":
		row, col := p.cursor()
		return []byte("\x1b[" + strconv.Itoa(row) + ";" + strconv.Itoa(col) + "R")
	case string(m[1]) == "10":
		return []byte("\x1b]10;rgb:ffff/ffff/ffff\x1b\\")
	default: // 11: the background
		return []byte("\x1b]11;rgb:0000/0000/0000\x1b\\")
	}
}

// cursorMove matches the absolute cursor moves a full-screen program
// uses (CUP), the only ones cursor follows.
var cursorMove = regexp.MustCompile(`\x1b\[(\d*)(?:;(\d*))?[Hf]`)

// cursor is where the last absolute cursor move put the cursor (1-based;
// 1;1 before any): enough for a program that asks where it is after
// placing the cursor itself.
func (p *ptyTerminal) cursor() (row, col int) {
	ms := cursorMove.FindAllSubmatch(p.raw.Bytes(), -1)
	if len(ms) == 0 {
		return 1, 1
	}
	m := ms[len(ms)-1]
	row, col = 1, 1
	if n, err := strconv.Atoi(string(m[1])); err == nil && n > 0 {
		row = n
	}
	if n, err := strconv.Atoi(string(m[2])); err == nil && n > 0 {
		col = n
	}
	return row, col
}

// write writes into the terminal (as typed) and logs it as why.
func (p *ptyTerminal) write(b []byte, why string) error {
	p.mu.Lock()
	p.events = append(p.events, ptyEvent{at: time.Since(p.start), in: true, what: why, data: bytes.Clone(b)})
	p.mu.Unlock()
	_, err := p.tty.Write(b)
	return err
}

// keys types s into the terminal.
func (p *ptyTerminal) keys(s string) {
	p.t.Helper()
	if err := p.write([]byte(s), "keys"); err != nil {
		p.t.Fatalf("type %q into the terminal: %v", s, err)
	}
}

// screenSeq matches escape sequences (CSI, OSC, DCS, two-byte ones), for
// text to remove.
var screenSeq = regexp.MustCompile(`\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|P[^\x1b]*\x1b\\|[()][0-9A-Za-z]|[@-Z\\-_78=>])`)

// text is everything the program wrote, without escape sequences and
// with runs of white space made one space (a full-screen program draws
// the screen piece by piece, so words arrive in order but apart).
func (p *ptyTerminal) text() string {
	p.mu.Lock()
	raw := p.raw.String()
	p.mu.Unlock()
	return strings.Join(strings.Fields(screenSeq.ReplaceAllString(raw, " ")), " ")
}

// since is the text written after the first n bytes (see size).
func (p *ptyTerminal) since(n int) string {
	p.mu.Lock()
	raw := p.raw.String()[n:]
	p.mu.Unlock()
	return strings.Join(strings.Fields(screenSeq.ReplaceAllString(raw, " ")), " ")
}

// size is how many bytes the program has written so far.
func (p *ptyTerminal) size() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.raw.Len()
}

// waitText waits until the program has written s (as text, see text).
func (p *ptyTerminal) waitText(s string) {
	p.t.Helper()
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return strings.Contains(p.text(), s) }) {
		p.t.Fatalf("the terminal never showed %q; it shows:\n%s", s, p.text())
	}
}

// timeline is the log: one line per chunk, escaped, with its time.
func (p *ptyTerminal) timeline() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for _, e := range p.events {
		dir := "<"
		if e.in {
			dir = "> " + e.what
		}
		fmt.Fprintf(&b, "%9.3fs %s %q\n", e.at.Seconds(), dir, e.data)
	}
	return b.String()
}
