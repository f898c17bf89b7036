package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/clock"
)

// Limits of a run (spec §10).
const (
	DefaultTimeout = 10 * time.Second
	MaxTimeout     = 60 * time.Second
	MaxOutput      = 1 << 20 // bytes of stdout and of stderr each
	MaxCode        = 1 << 20 // bytes of source code
	MaxStdin       = 1 << 20
	MaxConcurrent  = 2 // runs at once per unique
)

// Language is a language the host knows how to run.
type Language struct {
	Name string
	// Program is looked up in PATH (or absolute).
	Program string
	// Ext is the extension of the source file the code is written to.
	Ext string
}

// Languages known to the host.
func Languages() map[string]Language {
	return map[string]Language{
		"python":     {Name: "python", Program: "python3", Ext: ".py"},
		"javascript": {Name: "javascript", Program: "node", Ext: ".js"},
		"shell":      {Name: "shell", Program: "/bin/sh", Ext: ".sh"},
	}
}

// Request is what a window asks to run.
type Request struct {
	Language  string `json:"language"`
	Code      string `json:"code"`
	Stdin     string `json:"stdin,omitempty"`
	TimeoutMs int    `json:"timeoutMs,omitempty"`
}

// Result is what a run produced.
type Result struct {
	ExitCode int    `json:"exitCode"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	TimedOut bool   `json:"timedOut"`
	// Truncated is set when stdout or stderr passed MaxOutput.
	Truncated bool  `json:"truncated,omitempty"`
	Ms        int64 `json:"ms"`
}

// Errors a caller maps to LIP error codes.
var (
	ErrUnknownLanguage = errors.New("unknown language")
	ErrBusy            = errors.New("too many runs at once")
	ErrBadRequest      = errors.New("bad run request")
)

var uniqueNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]{1,31}$`) })

// Runner executes requests. Its zero value is not usable; use New.
type Runner struct {
	dir string
	env []string

	mu      sync.Mutex
	running map[string]int

	logger *slog.Logger
	// clk times each run's limit; nil is the wall clock (SetClock).
	clk clock.Clock
	// noCgroup makes runs go without a cgroup of their own (the /proc
	// scan alone contains them); tests of that path set it.
	noCgroup bool
	// cgroupNoted is set once the lack of a cgroup has been logged.
	cgroupNoted sync.Once
}

// SetLogger sets where the runner reports what a person or a
// maintainer may want to know (e.g. how runs are contained here).
func (r *Runner) SetLogger(l *slog.Logger) { r.logger = l }

// SetClock sets the clock that times each run's limit (the wall clock
// unless set): a test lets the limit pass once the program has got as far
// as it needs, instead of racing the machine's load.
func (r *Runner) SetClock(c clock.Clock) { r.clk = c }

// errTimeLimit ends a run's context when its time limit passes.
var errTimeLimit = errors.New("the run's time limit passed")

func (r *Runner) log() *slog.Logger {
	if r.logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.logger
}

// noteNoCgroup logs, once, that runs here are contained without a
// cgroup of their own, and why.
func (r *Runner) noteNoCgroup(err error) {
	r.cgroupNoted.Do(func() {
		r.log().Info("runs are contained by the child subreaper and a /proc scan, without a cgroup of their own", "why", err)
	})
}

// New runs code in temporary folders under dir (~/.lets/run). The child
// environment holds only PATH, HOME and LANG, taken from getenv.
func New(dir string, getenv func(string) string) *Runner {
	env := []string{}
	for _, k := range []string{"PATH", "HOME", "LANG"} {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	if getenv("PATH") == "" {
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	return &Runner{dir: dir, env: env, running: map[string]int{}}
}

func (r *Runner) acquire(unique string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running[unique] >= MaxConcurrent {
		return false
	}
	r.running[unique]++
	return true
}

func (r *Runner) release(unique string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running[unique]--
	if r.running[unique] <= 0 {
		delete(r.running, unique)
	}
}

// Check validates a request without running it.
func Check(req Request) (Language, time.Duration, error) {
	lang, ok := Languages()[req.Language]
	if !ok {
		return Language{}, 0, fmt.Errorf("%w %q: Lets runs python, javascript or shell", ErrUnknownLanguage, req.Language)
	}
	if len(req.Code) > MaxCode || len(req.Stdin) > MaxStdin {
		return Language{}, 0, fmt.Errorf("%w: code and stdin may be at most %d bytes each", ErrBadRequest, MaxCode)
	}
	timeout := DefaultTimeout
	if req.TimeoutMs < 0 {
		return Language{}, 0, fmt.Errorf("%w: timeoutMs must be positive", ErrBadRequest)
	}
	if req.TimeoutMs > 0 {
		timeout = min(time.Duration(req.TimeoutMs)*time.Millisecond, MaxTimeout)
	}
	return lang, timeout, nil
}

// Run executes req for unique. The code is written to a file and the file
// is passed as one argument to the interpreter: nothing is interpolated
// into a command line.
func (r *Runner) Run(ctx context.Context, unique string, req Request) (Result, error) {
	if !uniqueNameRE().MatchString(unique) {
		return Result{}, fmt.Errorf("%w: %q is not a unique name", ErrBadRequest, unique)
	}
	lang, timeout, err := Check(req)
	if err != nil {
		return Result{}, err
	}
	if !r.acquire(unique) {
		return Result{}, fmt.Errorf("%w: %s already has %d runs going; wait for one to finish", ErrBusy, unique, MaxConcurrent)
	}
	defer r.release(unique)

	base := filepath.Join(r.dir, unique)
	if err := os.MkdirAll(base, 0o700); err != nil {
		return Result{}, fmt.Errorf("make the run folder %s: %w", base, err)
	}
	work, err := os.MkdirTemp(base, "run-")
	if err != nil {
		return Result{}, fmt.Errorf("make a run folder under %s: %w", base, err)
	}
	defer func() { _ = os.RemoveAll(work) }()
	src := filepath.Join(work, "main"+lang.Ext)
	if err := os.WriteFile(src, []byte(req.Code), 0o600); err != nil {
		return Result{}, fmt.Errorf("write the code to run: %w", err)
	}

	// The interpreter is looked up here, in the host's PATH, so a missing
	// one is named in words before anything starts.
	prog, err := exec.LookPath(lang.Program)
	if err != nil {
		return Result{}, fmt.Errorf("%s is not installed on this computer (%s): %w", lang.Program, lang.Name, err)
	}

	clk := clock.Or(r.clk)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	limit := clk.AfterFunc(timeout, func() { cancel(errTimeLimit) })
	defer limit.Stop()
	stdout := &capped{max: MaxOutput}
	stderr := &capped{max: MaxOutput}
	start := clk.Now()
	// runContained (contain_*.go) ends the program and everything it
	// started when ctx ends or when the program itself exits.
	code, err := r.runContained(ctx, job{
		prog: prog, src: src, dir: work, env: r.env,
		stdin: bytes.NewReader([]byte(req.Stdin)), stdout: stdout, stderr: stderr,
	})
	res := Result{
		ExitCode:  code,
		Stdout:    stdout.buf.String(),
		Stderr:    stderr.buf.String(),
		Truncated: stdout.cut || stderr.cut,
		Ms:        clk.Now().Sub(start).Milliseconds(),
	}
	switch {
	case errors.Is(context.Cause(ctx), errTimeLimit), errors.Is(ctx.Err(), context.DeadlineExceeded):
		// The run's own limit, or the caller's deadline: both are a
		// run that took too long.
		res.TimedOut = true
		res.ExitCode = -1
		return res, nil
	case errors.Is(ctx.Err(), context.Canceled):
		// The caller went away: the same answer whether that was before
		// the program started or while it ran.
		res.ExitCode = -1
		return res, fmt.Errorf("run %s: stopped before it finished: %w", lang.Name, context.Canceled)
	}
	if err != nil {
		return res, fmt.Errorf("run %s: %w", lang.Name, err)
	}
	return res, nil
}

// job is one program to run: prog (an absolute path) with src as its one
// argument, in dir, with exactly env.
type job struct {
	prog, src, dir string
	env            []string
	stdin          io.Reader
	stdout, stderr io.Writer
}

// capped keeps the first max bytes written and drops the rest.
type capped struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if room < len(p) {
		c.cut = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}
