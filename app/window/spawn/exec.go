package spawn

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/lets-app/lets/app/window"
)

// ExecOptions say how to start `lets window`.
type ExecOptions struct {
	// Path is the Lets binary (os.Executable in the app).
	Path string
	// Env is the child's environment (it needs DISPLAY or
	// WAYLAND_DISPLAY, and LETS_HOME); the report pipe's variable is
	// added.
	Env []string
	// Stderr receives what GTK and WebKit print; nil discards it.
	Stderr io.Writer
}

// ExecStarter starts real `lets window` processes: the launch (with the
// one-time URL) goes on stdin, argv is only "window", and reports come
// back on file descriptor 3.
func ExecStarter(o ExecOptions) Starter {
	// Pdeathsig fires when the thread that started the child ends, not
	// the process, and Go may end a thread whose goroutine locked it. So
	// every window starts from one goroutine that keeps its thread for the
	// life of the process and never ends.
	starts := make(chan startRequest)
	go func() {
		runtime.LockOSThread()
		for r := range starts {
			r.done <- r.cmd.Start()
		}
	}()
	return func(l window.Launch) (Child, error) {
		line, err := l.Encode()
		if err != nil {
			return nil, err
		}
		r, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("make the window's report pipe: %w", err)
		}
		// stdin stays open after the launch: Lets writes control lines
		// there (window.ControlPresent).
		in, control, err := os.Pipe()
		if err != nil {
			r.Close()
			w.Close()
			return nil, fmt.Errorf("make the window's stdin: %w", err)
		}
		cmd := exec.Command(o.Path, "window")
		cmd.Stdin = in
		cmd.Stdout = o.Stderr // GTK and WebKit chatter; never our reports
		cmd.Stderr = o.Stderr
		cmd.ExtraFiles = []*os.File{w} // fd 3
		cmd.Env = append(append([]string(nil), o.Env...), window.ReportFDEnv+"=3")
		// Its own process group, so a Ctrl+C meant for Lets in a terminal
		// does not reach the windows before Lets closes them.
		// A window without its Lets is of no use: if Lets dies without
		// closing it (SIGKILL, a crash), the kernel ends the window too.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
		// WebKit's helper processes inherit stdout and stderr and may
		// outlive the window by a moment; Wait does not wait for them.
		cmd.WaitDelay = reportDrain
		started := make(chan error, 1)
		starts <- startRequest{cmd: cmd, done: started}
		if err := <-started; err != nil {
			r.Close()
			w.Close()
			in.Close()
			control.Close()
			return nil, fmt.Errorf("run %s window: %w", o.Path, err)
		}
		w.Close()  // the child holds the only write end now
		in.Close() // and the only read end of its stdin
		c := &execChild{cmd: cmd, reports: r, control: control}
		// The launch goes in a goroutine: a pipe holds 64 KiB, and a
		// launch of that size must not block the start until the child
		// reads it.
		c.controlMu.Lock()
		go func() {
			defer c.controlMu.Unlock()
			_ = control.SetWriteDeadline(time.Now().Add(controlWait))
			if _, err := control.Write(line); err != nil {
				c.controlErr = fmt.Errorf("hand the window its launch: %w", err)
			}
		}()
		return c, nil
	}
}

// controlWait bounds one write to a window's stdin: a window that reads
// nothing for that long is hung, and Lets does not wait on it.
const controlWait = 2 * time.Second

type startRequest struct {
	cmd  *exec.Cmd
	done chan error
}

type execChild struct {
	cmd     *exec.Cmd
	reports *os.File

	// controlMu orders the writes on the child's stdin (the launch first).
	controlMu  sync.Mutex
	control    *os.File // the child's stdin; closed once it ended
	controlErr error    // the launch could not be written
	closed     bool
}

func (c *execChild) PID() int           { return c.cmd.Process.Pid }
func (c *execChild) Reports() io.Reader { return c.reports }
func (c *execChild) Terminate() error   { return c.cmd.Process.Signal(syscall.SIGTERM) }
func (c *execChild) Kill() error        { return c.cmd.Process.Kill() }

// Present asks the window to come to the front: a control line on its
// stdin.
func (c *execChild) Present() error {
	c.controlMu.Lock()
	defer c.controlMu.Unlock()
	if c.closed {
		return os.ErrClosed
	}
	if c.controlErr != nil {
		return c.controlErr
	}
	_ = c.control.SetWriteDeadline(time.Now().Add(controlWait))
	_, err := io.WriteString(c.control, window.ControlPresent+"\n")
	return err
}

// reportDrain is how long the report pipe and the output stay readable
// after the window process ended, for what it wrote last.
const reportDrain = 300 * time.Millisecond

func (c *execChild) Wait() Exit {
	err := c.cmd.Wait()
	c.controlMu.Lock()
	c.closed = true
	_ = c.control.Close()
	c.controlMu.Unlock()
	// What the child wrote is in the pipe; a helper process that kept the
	// write end must not keep the reader waiting.
	_ = c.reports.SetReadDeadline(time.Now().Add(reportDrain))
	return exitOf(c.cmd.ProcessState, err)
}

// exitOf turns a reaped process's state into an Exit.
func exitOf(ps *os.ProcessState, err error) Exit {
	if ps == nil {
		if err == nil {
			err = errors.New("the window process could not be waited for")
		}
		return Exit{Code: -1, Err: err}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Exit{Code: -1, Signal: ws.Signal().String()}
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !errors.Is(err, exec.ErrWaitDelay) {
		return Exit{Code: ps.ExitCode(), Err: err}
	}
	return Exit{Code: ps.ExitCode()}
}
