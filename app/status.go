package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/host"
)

// hostClient talks to the running host's privileged API.
type hostClient struct {
	info config.HostInfo
	http *http.Client
}

func newHostClient(paths config.Paths) (*hostClient, error) {
	info, err := config.ReadHostInfo(paths)
	if err != nil {
		return nil, err
	}
	return &hostClient{info: info, http: &http.Client{Timeout: 3 * time.Second}}, nil
}

func (c *hostClient) baseURL() string { return "http://127.0.0.1:" + strconv.Itoa(c.info.Port) }

// getJSON GETs a privileged path with the host token and decodes the answer.
func (c *hostClient) getJSON(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL()+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.info.Token)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("Lets (pid %d) should be listening on %s but does not answer; it may have crashed — start it again with `lets`: %w", c.info.PID, c.baseURL(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Errorf("host answered %s: %s", resp.Status, e.Error.Message)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("host sent an answer Lets could not read: %w", err)
	}
	return nil
}

func runStatus(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("status")
	asJSON := fs.Bool("json", false, "print the status as JSON")
	if err := parseFlags(env, "status", fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	home, err := config.ResolveHome(env.Getenv)
	if err != nil {
		return err
	}
	c, err := newHostClient(config.Paths{Home: home})
	if errors.Is(err, config.ErrHostNotRunning) {
		fmt.Fprintf(env.Stdout, "Lets is not running (data folder %s).\nStart it with `lets` (desktop) or `lets serve` (headless).\n", home)
		return exitError{code: 1}
	}
	if err != nil {
		return err
	}
	var st host.Status
	if err := c.getJSON(ctx, "/lip/status", &st); err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	fmt.Fprintf(env.Stdout, "Lets %s is running (pid %d, up %s).\n", st.Version, st.PID, (time.Duration(st.UptimeSec) * time.Second).String())
	fmt.Fprintf(env.Stdout, "  Listening on: %s\n  Data folder:  %s\n  Services:     %v\n", st.URL, st.DataDir, st.Services)
	if st.WireSocket != "" {
		fmt.Fprintf(env.Stdout, "  Pad daemon:   %s\n", st.WireSocket)
	}
	return nil
}
