// Package hostclient is a client of the running host's privileged HTTP API
// (lip-1 §8.1), for `lets mcp` and `lets hook`. It finds the host through
// host.json, sends the host token, re-reads host.json when the host
// restarted (new port, new token) and, when asked to, starts a host and
// waits for it.
package hostclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/hostapi"
)

// Defaults for Options.
const (
	DefaultStartWait = 5 * time.Second
	DefaultTimeout   = 10 * time.Second
	// maxAnswer bounds what the client reads from one answer.
	maxAnswer = 64 << 20
	// pollEvery is how often a starting host is looked for.
	pollEvery = 50 * time.Millisecond
)

// Options configure a Client. All fields are optional.
type Options struct {
	// HTTP is the client used for requests; nil means a fresh one without
	// proxies (the host is on loopback).
	HTTP *http.Client
	// ClaudePID, when > 0, is sent as X-Lets-Claude-Pid on every request.
	ClaudePID int
	// Start, when set, starts a host when none answers; the client calls
	// it at most once per request and then waits up to StartWait for the
	// host to answer GET /lip/status.
	Start func(ctx context.Context) error
	// StartWait bounds the wait for a started host; 0 means 5 s.
	StartWait time.Duration
	// Timeout bounds one request (a listen gets its wait on top); 0 means
	// 10 s.
	Timeout time.Duration
	// Clock paces the wait for a started host (StartWait, the polls); nil
	// means the real clock.
	Clock clock.Clock
}

// Client talks to the host. It is safe for concurrent use.
type Client struct {
	paths config.Paths
	opts  Options

	mu     sync.Mutex
	info   config.HostInfo
	loaded bool
	// local: the host is served in memory (NewLocal); there is no
	// host.json to read.
	local bool

	// startMu makes concurrent requests start one host, not several.
	startMu sync.Mutex
}

// New returns a client for the host whose host.json lies in paths.Home.
// host.json is read on first use, not here.
func New(paths config.Paths, opts Options) *Client {
	if opts.HTTP == nil {
		opts.HTTP = &http.Client{Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         newOwnedDialer(2 * time.Second).DialContext,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     30 * time.Second,
		}}
	}
	if opts.StartWait <= 0 {
		opts.StartWait = DefaultStartWait
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	opts.Clock = clock.Or(opts.Clock)
	return &Client{paths: paths, opts: opts}
}

// hostInfo returns host.json, read once and cached; fresh re-reads it.
func (c *Client) hostInfo(fresh bool) (config.HostInfo, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.local {
		return config.HostInfo{PID: os.Getpid()}, nil
	}
	if c.loaded && !fresh {
		return c.info, nil
	}
	info, err := config.ReadHostInfo(c.paths)
	if err != nil {
		c.loaded = false
		if errors.Is(err, config.ErrHostNotRunning) {
			return info, ErrNotRunning
		}
		return info, &HostFileError{Path: c.paths.HostFile(), Err: err}
	}
	c.info, c.loaded = info, true
	return info, nil
}

// WireSocket is the pad daemon's socket the running host announced in
// host.json ("" when it runs none or no host runs), so another process
// (a hook) reaches the same daemon as the host without asking it.
func (c *Client) WireSocket() string {
	info, err := c.hostInfo(true)
	if err != nil {
		return ""
	}
	return info.WireSocket
}

// Do sends a privileged request (method, path such as "/lip/status",
// optional query and JSON body) and decodes the JSON answer into out (nil:
// the answer is dropped). Errors: ErrNotRunning, *UnreachableError,
// *APIError, *HostFileError, *DecodeError, or the context's error.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body any, out any) error {
	return c.do(ctx, method, path, query, body, out, c.opts.Timeout)
}

// DoWithin is Do with its own bound on one attempt (0 or less: the
// client's Timeout), for a request known to take longer (a long listen) or
// that should give up sooner.
func (c *Client) DoWithin(ctx context.Context, method, path string, query url.Values, body any, out any, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = c.opts.Timeout
	}
	return c.do(ctx, method, path, query, body, out, timeout)
}

func (c *Client) do(ctx context.Context, method, path string, query url.Values, body any, out any, timeout time.Duration) error {
	var payload []byte
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode the request body for %s %s: %w", method, path, err)
		}
		payload = b
	}
	call := func(info config.HostInfo) error {
		return c.send(ctx, info, method, path, query, payload, out, timeout)
	}
	info, err := c.hostInfo(false)
	if err == nil {
		err = call(info)
		if !retryable(method, err) {
			return err
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// The host may have restarted with a new port or token, or started
	// since: read host.json again and try once more.
	info, err = c.hostInfo(true)
	if err == nil {
		err = call(info)
		if !retryable(method, err) {
			return err
		}
	}
	if c.opts.Start == nil || !noHost(err) {
		return err
	}
	info, serr := c.start(ctx)
	if serr != nil {
		return serr
	}
	return call(info)
}

// retryable says whether a failed call is worth a fresh host.json: no host
// file, a host that does not answer, or a token it refuses.
// A request that may have reached the host (not a refused connection) is
// only repeated when it is a GET, so a command is never sent twice.
func retryable(method string, err error) bool {
	if err == nil {
		return false
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status == http.StatusUnauthorized
	}
	var ue *UnreachableError
	if errors.As(err, &ue) {
		return !ue.TimedOut && (ue.Dial || method == http.MethodGet)
	}
	return errors.Is(err, ErrNotRunning)
}

// noHost says the error means no host is there to answer: no host.json, or
// a connection nobody takes. A host that is slow to answer is not "no host".
func noHost(err error) bool {
	var ue *UnreachableError
	if errors.As(err, &ue) {
		return ue.Dial && !ue.TimedOut
	}
	return errors.Is(err, ErrNotRunning)
}

// start runs Options.Start once (unless another request got a host going
// meanwhile) and waits for the host to answer.
func (c *Client) start(ctx context.Context) (config.HostInfo, error) {
	c.startMu.Lock()
	defer c.startMu.Unlock()
	if info, err := c.hostInfo(true); err == nil && c.ping(ctx, info) == nil {
		return info, nil
	}
	if err := c.opts.Start(ctx); err != nil {
		return config.HostInfo{}, &StartError{Err: err}
	}
	deadline := c.opts.Clock.Now().Add(c.opts.StartWait)
	tick := c.opts.Clock.NewTicker(pollEvery)
	defer tick.Stop()
	var last error
	for {
		info, err := c.hostInfo(true)
		if err == nil {
			if err = c.ping(ctx, info); err == nil {
				return info, nil
			}
		}
		last = err
		if !c.opts.Clock.Now().Before(deadline) {
			return config.HostInfo{}, &StartError{Waited: c.opts.StartWait, Err: last}
		}
		select {
		case <-ctx.Done():
			return config.HostInfo{}, ctx.Err()
		case <-tick.C():
		}
	}
}

// ping asks GET /lip/status with a short deadline.
func (c *Client) ping(ctx context.Context, info config.HostInfo) error {
	return c.send(ctx, info, http.MethodGet, hostapi.PathStatus, nil, nil, nil, time.Second)
}

func baseURL(info config.HostInfo) string {
	return "http://127.0.0.1:" + strconv.Itoa(info.Port)
}

// send does one request against one host.
func (c *Client) send(parent context.Context, info config.HostInfo, method, path string, query url.Values, payload []byte, out any, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	u := baseURL(info) + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return fmt.Errorf("build the request %s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+info.Token)
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.opts.ClaudePID > 0 {
		req.Header.Set(hostapi.HeaderClaudePID, strconv.Itoa(c.opts.ClaudePID))
	}
	resp, err := c.opts.HTTP.Do(req)
	if err != nil {
		if perr := parent.Err(); perr != nil {
			return perr
		}
		return &UnreachableError{URL: baseURL(info), PID: info.PID, Err: err, TimedOut: ctx.Err() != nil, Dial: isDial(err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return &UnreachableError{URL: baseURL(info), PID: info.PID, Err: fmt.Errorf("read the answer: %w", err)}
	}
	if resp.StatusCode != http.StatusOK {
		var e hostapi.ErrorBody
		_ = json.Unmarshal(data, &e)
		return &APIError{Status: resp.StatusCode, Code: string(e.Error.Code), Message: e.Error.Message, Hint: e.Error.Hint}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &DecodeError{Path: path, Err: err}
	}
	return nil
}

// isDial says the error happened while connecting, before anything was
// sent.
func isDial(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}
