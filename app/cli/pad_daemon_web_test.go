package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/surface/web"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// `lets pad daemon --web`: the browser pad next to the Wire socket, its
// start-up line, the admin link for `lets pad pair`, a tap reaching an
// agent, and a clean stop.
func TestPadDaemonWeb(t *testing.T) {
	e := newPadDaemonEnv(t)
	var opened []string
	e.env.OpenURL = func(u string) error {
		opened = append(opened, u)
		return errors.New("no desktop here")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- runPadDaemon(ctx, e.env, []string{"--web", "--port", "0"}) }()

	admin := regexp.MustCompile(`Local admin: (http://127\.0\.0\.1:(\d+)/#admin=([A-Za-z0-9_-]{43}))\n`)
	var m []string
	testutil.Eventually(t, "the daemon prints its admin link and listens", func() bool {
		select {
		case err := <-done:
			t.Fatalf("daemon exited: %v\n%s", err, e.stderr.String())
		default:
		}
		m = admin.FindStringSubmatch(e.stdout.String())
		return m != nil && strings.Contains(e.stdout.String(), "listening on")
	})
	// Issue #10: the desktop opener's command line is readable by every
	// local user (ps), so it gets a one-time link, never the admin token.
	if len(opened) != 1 || strings.Contains(opened[0], m[3]) || !strings.HasPrefix(opened[0], "http://127.0.0.1:"+m[2]+"/admin/open/") {
		t.Fatalf("opened %v: want one one-time link on port %s without the admin token", opened, m[2])
	}
	checkOneTimeAdminLink(t, opened[0], m[3])
	if strings.Contains(e.stdout.String(), "Pairing PIN") {
		t.Fatal("PIN printed without --lan")
	}
	// The admin link is recorded privately for `lets pad pair`.
	paths := config.Paths{Home: e.home}
	info, err := lets.ReadWebSurfaceInfo(paths)
	if err != nil || info.AdminURL != m[1] {
		t.Fatalf("web-surface.json: %+v %v", info, err)
	}

	host := "127.0.0.1:" + m[2]
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+host+"/ws", http.Header{"Origin": {"http://" + host}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.WriteMessage(websocket.TextMessage, []byte(`{"protocol":1,"type":"authenticate","credential":"`+m[3]+`"}`))

	nc, err := net.Dial("unix", e.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	agent := `{"backend":"codex","session_id":"s1","label":"Reviewer"}`
	nc.Write([]byte(`{"protocol":1,"type":"subscribe_actions","agent":` + agent + `,"actions":["approve"]}` + "\n" +
		`{"protocol":1,"type":"state","state":"waiting_for_approval","agent":` + agent + `}` + "\n"))
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		var msg struct {
			Type string
			View struct {
				Available []string `json:"available_actions"`
			}
		}
		json.Unmarshal(data, &msg)
		if msg.Type == "surface" && len(msg.View.Available) > 0 {
			break
		}
	}
	ws.WriteMessage(websocket.TextMessage, []byte(`{"protocol":1,"type":"action","action":"approve"}`))
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil || !strings.Contains(line, `"action":"approve"`) {
		t.Fatalf("agent: %q %v", line, err)
	}
	status, err := padClient(e.socket).Status(ctx)
	if err != nil || len(status.Surfaces) != 1 || status.Surfaces[0].Profile != web.Profile || status.Surfaces[0].Input != "Browser controls ("+m[2]+")" {
		t.Fatalf("status %+v %v", status, err)
	}

	cancel()
	if err := testutil.Wait(t, "the daemon stops", done); err != nil {
		t.Fatal(err)
	}
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != 1001 {
				t.Fatalf("close: %v", err)
			}
			break
		}
	}
	if _, err := os.Stat(lets.WebSurfaceInfoPath(paths)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("web-surface.json left behind: %v", err)
	}
}

func TestPadDaemonWebUsageErrors(t *testing.T) {
	resolver := web.Resolver{
		LookupIPv4: func(context.Context, string) ([]netip.Addr, error) { return nil, errors.New("no") },
		Discover:   func(context.Context) []netip.Addr { return nil },
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--lan"}, "--lan, --bind-host, and --advertise-host require --web"},
		{[]string{"--bind-host", "10.0.0.2"}, "--lan, --bind-host, and --advertise-host require --web"},
		{[]string{"--web", "--port", "65536"}, "web port must be from 0 to 65535"},
		{[]string{"--web", "--port", "-1"}, "web port must be from 0 to 65535"},
		{[]string{"--web", "--advertise-host", "pad.local"}, "--bind-host and --advertise-host require --lan"},
		{[]string{"--web", "--lan", "--bind-host", "8.8.8.8"}, "--bind-host must be a private LAN IPv4 address"},
		{[]string{"--web", "--lan", "--bind-host", "a/b"}, "--bind-host must be a bare private IPv4 address or hostname"},
		{[]string{"--web", "--lan", "--advertise-host", "pad.invalid", "--bind-host", "10.0.0.2"}, "could not resolve --advertise-host 'pad.invalid'"},
		{[]string{"--web", "--lan"}, "could not discover a private LAN address; pass --bind-host"},
	} {
		e := newPadDaemonEnv(t)
		e.env.LAN = resolver
		err := runPadDaemon(context.Background(), e.env, c.args)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: %v, want usage error %q", c.args, err, c.msg)
		}
		if _, serr := os.Lstat(e.socket); !errors.Is(serr, os.ErrNotExist) {
			t.Errorf("%v: a socket was created", c.args)
		}
	}
}

// A port that is taken fails start-up with "could not start browser
// surface" and leaves no socket.
func TestPadDaemonWebPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	e := newPadDaemonEnv(t)
	err = runPadDaemon(context.Background(), e.env, []string{"--web", "--no-open", "--port", strconv.Itoa(port)})
	if err == nil || !strings.Contains(err.Error(), "could not start browser surface") {
		t.Fatalf("err = %v", err)
	}
	if _, serr := os.Lstat(e.socket); !errors.Is(serr, os.ErrNotExist) {
		t.Fatal("a socket was created")
	}
}
