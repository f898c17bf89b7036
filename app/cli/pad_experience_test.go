package cli

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/backend/surface/midi/miditest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Case 52 and the flag rules: mistakes exit 2 with the spec's words.
func TestCase052_PadShowTempoMustBePositive(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"pad", "show", "--tempo", "0"}, "show tempo must be positive"},
		{[]string{"pad", "show", "--tempo", "-2"}, "show tempo must be positive"},
		{[]string{"pad", "show", "--surface", "tv"}, "--surface must be midi, web or both"},
		{[]string{"pad", "demo", "--surface", "web", "--profile", "x"}, "need --surface midi or both"},
		{[]string{"pad", "demo", "--lan"}, "need --surface web or both"},
		{[]string{"pad", "demo", "--tempo", "2"}, "unknown flag"},
		{[]string{"pad", "show", "extra"}, "unexpected argument"},
		{[]string{"pad", "demo", "--greeting-delay", "3"}, "between 0 and 1"},
	} {
		e := newPadDaemonEnv(t)
		if code := Run(context.Background(), e.env, tc.args); code != 2 || !strings.Contains(e.stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, e.stderr.String(), tc.want)
		}
	}
}

// `lets pad show` on a Launchpad starts at once, paints the frames with
// RGB SysEx, prints the title and the captions, and ends after one run.
func TestPadShowOnMIDI(t *testing.T) {
	e := newPadDaemonEnv(t)
	bus := miditest.New()
	bus.Plug(lpPort, lpPort)
	ctx := midiCtx(e, bus, "", func(time.Duration) {})
	e.env.AudioPlayer = []string{"true"}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	// How long a 30× Show takes is BenchmarkPadShowOnMIDI's business.
	if err := runPadShow(ctx, e.env, []string{"--tempo", "30", "--audio"}); err != nil {
		t.Fatalf("%v\n%s", err, e.stderr.String())
	}
	out := e.stdout.String()
	for _, want := range []string{"Playing on Novation Launchpad Pro Mk1", "A Spark Among Friends\n", "Prelude - A Spark: In the dark\n", "A Spark Among Friends: the end.\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	rgb := 0
	for _, m := range bus.Sent(lpPort) {
		if len(m) > 8 && m[0] == 0xF0 && m[6] == 0x0B { // Launchpad Pro RGB LED SysEx
			rgb++
		}
	}
	if rgb < 10 {
		t.Fatalf("%d RGB SysEx messages sent", rgb)
	}
}

// BenchmarkPadShowOnMIDI: the wall time of `lets pad show --tempo 30
// --audio` on a Launchpad, start to the end (a 67 s Show: ~2.2 s of
// playing, the rest is setting up and closing).
func BenchmarkPadShowOnMIDI(b *testing.B) {
	for b.Loop() {
		e := newPadDaemonEnv(b)
		bus := miditest.New()
		bus.Plug(lpPort, lpPort)
		ctx := midiCtx(e, bus, "", func(time.Duration) {})
		e.env.AudioPlayer = []string{"true"}
		start := time.Now()
		if err := runPadShow(ctx, e.env, []string{"--tempo", "30", "--audio"}); err != nil {
			b.Fatalf("%v\n%s", err, e.stderr.String())
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/show")
	}
}

// `lets pad demo` on a Launchpad: a Scene press moves the tour on; Ctrl+C
// ends it.
func TestPadDemoOnMIDI(t *testing.T) {
	e := newPadDaemonEnv(t)
	bus := miditest.New()
	bus.Plug(lpPort, lpPort)
	ctx, cancel := context.WithCancel(midiCtx(e, bus, "", func(time.Duration) {}))
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- runPadDemo(ctx, e.env, []string{"--no-greeting"}) }()
	waitOutput(t, e, done, "One light per agent.")
	bus.Press(lpPort, []byte{0xB0, 79, 127}) // Scene 2 = slot 1 (Reviewer)
	waitOutput(t, e, done, "Approve or reject.")
	cancel()
	if err := testutil.Wait(t, "the Demo stops on Ctrl+C", done); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.stdout.String(), "stopped (cancelled)") {
		t.Fatal(e.stdout.String())
	}
}

func waitOutput(t *testing.T, e *padDaemonEnv, done chan error, want string) {
	t.Helper()
	testutil.Eventually(t, "the output says "+strconv.Quote(want), func() bool {
		select {
		case err := <-done:
			t.Fatalf("exited early: %v\n%s\n%s", err, e.stdout.String(), e.stderr.String())
		default:
		}
		return strings.Contains(e.stdout.String(), want)
	})
}

// `lets pad show --surface web` waits for the administrator, plays to
// the browser, and exits after the run; a second command instance with
// stop_experience while idle exits at once (case 42), and a Demo command
// refuses a Show request (case 41).
func TestPadShowOnBrowser(t *testing.T) {
	admin := regexp.MustCompile(`Local admin: http://(127\.0\.0\.1:\d+)/#admin=([A-Za-z0-9_-]{43})\n`)
	connect := func(t *testing.T, e *padDaemonEnv, done chan error) *websocket.Conn {
		t.Helper()
		waitOutput(t, e, done, "Press ")
		m := admin.FindStringSubmatch(e.stdout.String())
		if m == nil {
			t.Fatalf("no admin link:\n%s", e.stdout.String())
		}
		ws, _, err := websocket.DefaultDialer.Dial("ws://"+m[1]+"/ws", http.Header{"Origin": {"http://" + m[1]}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.Close() })
		ws.WriteMessage(websocket.TextMessage, []byte(`{"protocol":1,"type":"authenticate","credential":"`+m[2]+`"}`))
		return ws
	}
	readUntil := func(t *testing.T, ws *websocket.Conn, needle string) string {
		t.Helper()
		ws.SetReadDeadline(time.Now().Add(10 * time.Second))
		for {
			_, b, err := ws.ReadMessage()
			if err != nil {
				t.Fatalf("waiting for %s: %v", needle, err)
			}
			if strings.Contains(string(b), needle) {
				return string(b)
			}
		}
	}
	run := func(kind string, args ...string) (*padDaemonEnv, chan error, context.CancelFunc) {
		e := newPadDaemonEnv(t)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		done := make(chan error, 1)
		go func() {
			done <- runPadExperience(ctx, e.env, kind, append([]string{"--surface", "web", "--port", "0", "--no-open"}, args...))
		}()
		return e, done, cancel
	}
	wait := func(t *testing.T, done chan error) error {
		t.Helper()
		return testutil.Wait(t, "the command exits", done)
	}

	t.Run("plays", func(t *testing.T) {
		e, done, cancel := run("show", "--tempo", "40")
		defer cancel()
		ws := connect(t, e, done)
		readUntil(t, ws, `"type":"experience_state"`)
		ws.WriteMessage(websocket.TextMessage, []byte(`{"protocol":1,"type":"start_experience","kind":"show"}`))
		readUntil(t, ws, `"status":"starting"`)
		readUntil(t, ws, `"type":"performance_frame"`)
		readUntil(t, ws, `"reason":"complete"`)
		if err := wait(t, done); err != nil {
			t.Fatalf("%v\n%s", err, e.stderr.String())
		}
	})
	t.Run("case042 stop while idle exits", func(t *testing.T) {
		e, done, cancel := run("show")
		defer cancel()
		ws := connect(t, e, done)
		readUntil(t, ws, `"type":"experience_state"`)
		ws.WriteMessage(websocket.TextMessage, []byte(`{"protocol":1,"type":"stop_experience"}`))
		var ee exitError
		if err := wait(t, done); !errors.As(err, &ee) || ee.code != 1 {
			t.Fatalf("a Show that never played is not a success: %v", err)
		}
		if !strings.Contains(e.stdout.String(), "Stopped before anything played.") {
			t.Fatal(e.stdout.String())
		}
	})
	t.Run("case041 demo refuses a show", func(t *testing.T) {
		e, done, cancel := run("demo")
		defer cancel()
		ws := connect(t, e, done)
		readUntil(t, ws, `"type":"experience_state"`)
		ws.WriteMessage(websocket.TextMessage, []byte(`{"protocol":1,"type":"start_experience","kind":"show"}`))
		m := readUntil(t, ws, `"status":"blocked"`)
		if !strings.Contains(m, `"kind":"show"`) || !strings.Contains(m, `"reason":"This command is prepared for demo."`) {
			t.Fatal(m)
		}
		ws.WriteMessage(websocket.TextMessage, []byte(`{"protocol":1,"type":"start_experience","kind":"demo"}`))
		readUntil(t, ws, `"caption":"One light per agent."`)
		ws.WriteMessage(websocket.TextMessage, []byte(`{"protocol":1,"type":"stop_experience"}`))
		if err := wait(t, done); err != nil {
			t.Fatal(err)
		}
	})
}
