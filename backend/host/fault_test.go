package host

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

func withTiming(ping, write, hello time.Duration) hostOpt {
	return func(o *Options) { o.timing = &wsTiming{ping: ping, write: write, hello: hello} }
}

// TestCase038_RateLimitPerWindow: 300 up-envelopes in one second from one
// window — the excess gets rate_limited, another window is unaffected.
func TestCase038_RateLimitPerWindow(t *testing.T) {
	th := startLIPHost(t)
	w1 := th.open(t, "board", "")
	w2 := th.open(t, "board", "")
	s1 := th.dialShell(t, w1, nil)
	s2 := th.dialShell(t, w2, nil)
	// Use up the burst first, then 300 more within a second.
	burst := make([]map[string]any, 0, 256)
	for i := range upRateBurst {
		burst = append(burst, map[string]any{"lip": 1, "id": "b" + itoa3(i), "type": "board.note", "data": map[string]any{"i": i}, "from": "unique"})
		if len(burst) == 200 {
			s1.writeJSON(burst)
			burst = burst[:0]
		}
	}
	if len(burst) > 0 {
		s1.writeJSON(burst)
	}
	for i := range 300 {
		s1.sendEnv("board.note", map[string]any{"i": i}, "unique")
	}
	e, ok := s1.nextOfType("lip.error", ioTimeout)
	if !ok || dataOf(t, e)["code"] != "rate_limited" {
		t.Fatalf("no rate_limited: %+v", e)
	}
	// w2 is unaffected.
	s2.sendEnv("board.note", map[string]any{"from": "w2"}, "unique")
	// Each listen returns as soon as the event is there.
	deadline := time.Now().Add(testutil.EventuallyTimeout)
	got := false
	for !got && time.Now().Before(deadline) {
		res := th.listen(t, "cursor=r&window="+w2.Window+"&types=board.note&wait_ms=500")
		got = len(res.Events) > 0
	}
	if !got {
		t.Fatal("w2's event was not accepted while w1 was limited")
	}
	res := th.listen(t, "cursor=count&window="+w1.Window+"&types=board.note&wait_ms=0&max=2000")
	n := len(res.Events)
	// 400 burst + refill during the test (≤ 200/s × elapsed).
	if n < upRateBurst || n >= upRateBurst+300 {
		t.Fatalf("w1 got %d events into the ring; want the burst plus at most the refill", n)
	}
}

func itoa3(i int) string {
	const digits = "0123456789"
	return string([]byte{digits[i/100%10], digits[i/10%10], digits[i%10]})
}

// TestResumeRedeliversExactlyTheUnacked: reconnect with resume gives the
// commands after the shell's last applied seq, in order, and nothing else.
func TestResumeRedeliversExactlyTheUnacked(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	sc := th.dialShell(t, win, nil)
	sc.sendEnv("lip.ready", map[string]any{}, "shell")
	var batch []map[string]any
	for i := range 5 {
		batch = append(batch, map[string]any{"lip": 1, "type": "board.add", "win": win.Window, "data": map[string]any{"i": i}})
	}
	th.send(t, batch)
	cmds := sc.commands(5, ioTimeout)
	sc.ack(cmds[0], cmds[1])
	// The shell applied 1..3 but the connection drops before it acks 3.
	_ = sc.ws.Close()
	last := cmds[2].Seq
	sc2 := th.dialShell(t, win, &last)
	sc2.sendEnv("lip.ready", map[string]any{}, "shell")
	again := sc2.commands(2, ioTimeout)
	if again[0].ID != cmds[3].ID || again[1].ID != cmds[4].ID {
		t.Fatalf("redelivered %v, want the last two of %v", again, cmds)
	}
	sc2.noneBefore(t, th, "board.add") // no extra redelivery
	// Without resume (a fresh page), everything unacked comes again.
	_ = sc2.ws.Close()
	sc3 := th.dialShell(t, win, nil)
	sc3.sendEnv("lip.ready", map[string]any{}, "shell")
	if all := sc3.commands(2, ioTimeout); all[0].ID != cmds[3].ID {
		t.Fatalf("fresh connection got %v", typesOf(all))
	}
}

// TestNothingFlowsBeforeReady: commands wait for lip.ready.
func TestNothingFlowsBeforeReady(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	sc := th.dialShell(t, win, nil)
	th.send(t, map[string]any{"lip": 1, "type": "board.add", "win": win.Window})
	if e, ok := sc.nextOfType("board.add", 200*time.Millisecond); ok {
		t.Fatalf("delivered before ready: %+v", e)
	}
	sc.sendEnv("lip.ready", map[string]any{}, "shell")
	sc.commands(1, ioTimeout)
}

// stuckReader opens two windows on a host with this write deadline: w1's
// raw connection says hello and ready, then never reads again, while 60
// big commands (~12 MB) are sent toward it; w2 is a normal shell that
// round-trips 20 commands and notes meanwhile. It returns w1's window.
func stuckReader(t *testing.T, write time.Duration) (*testHost, *window) {
	t.Helper()
	th := startLIPHost(t, withTiming(time.Hour, write, ioTimeout))
	w1 := th.open(t, "board", "")
	w2 := th.open(t, "board", "")
	stuck := th.dialRaw(t, w1.Token)
	_ = stuck.WriteJSON(map[string]any{"lip": 1, "id": "h1", "type": "lip.hello", "from": "shell", "data": map[string]any{"window": w1.Window}})
	_ = stuck.SetReadDeadline(time.Now().Add(ioTimeout))
	if _, _, err := stuck.ReadMessage(); err != nil {
		t.Fatal(err)
	}
	_ = stuck.WriteJSON(map[string]any{"lip": 1, "id": "r1", "type": "lip.ready", "from": "shell", "data": map[string]any{}})
	other := th.dialShell(t, w2, nil)
	other.sendEnv("lip.ready", map[string]any{}, "shell")
	big := strings.Repeat("x", 200<<10)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 60 { // ~12 MB toward a reader that reads nothing
			th.send(t, map[string]any{"lip": 1, "type": "board.add", "win": w1.Window, "data": map[string]any{"pad": big}})
		}
	}()
	for i := range 20 {
		th.send(t, map[string]any{"lip": 1, "type": "board.add", "win": w2.Window, "data": map[string]any{"i": i}})
		c := other.commands(1, ioTimeout)
		other.ack(c...)
		other.sendEnv("board.note", map[string]any{"i": i}, "unique")
	}
	wg.Wait()
	res := th.listen(t, "cursor=st&window="+w2.Window+"&types=board.note&wait_ms=1000&max=100")
	if len(res.Events) == 0 {
		t.Fatal("w2's events did not reach the ring")
	}
	w, _ := th.core.window(w1.Window)
	return th, w
}

// TestStuckReaderBlocksNobody: while a shell that never reads has filled
// its socket, another window and the ring go on. Its write deadline is an
// hour, so w2's 20 round trips finishing while w1 is still attached shows
// w2 never waited for w1 (no wall-clock budget per command).
func TestStuckReaderBlocksNobody(t *testing.T) {
	_, w := stuckReader(t, time.Hour)
	w.mu.Lock()
	attached := w.conn != nil
	w.mu.Unlock()
	if !attached {
		t.Fatal("the stuck connection was closed before its write deadline")
	}
}

// TestStuckReaderIsClosedByWriteDeadline: the write deadline closes a shell
// that never reads; its queue is kept for the resume.
func TestStuckReaderIsClosedByWriteDeadline(t *testing.T) {
	_, w := stuckReader(t, 300*time.Millisecond)
	testutil.Eventually(t, "the stuck connection is detached", func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.conn == nil
	})
	w.mu.Lock()
	queued := len(w.queue)
	w.mu.Unlock()
	if queued != 60 {
		t.Fatalf("queue kept %d commands, want 60", queued)
	}
}

// TestHelloDeadlineAndPingMisses: no hello within the deadline closes with
// 4401; a shell that never answers pings is closed after three misses.
func TestHelloDeadlineAndPingMisses(t *testing.T) {
	th := startLIPHost(t, withTiming(60*time.Millisecond, time.Second, 150*time.Millisecond))
	win := th.open(t, "board", "")
	c := th.dialRaw(t, win.Token)
	_ = c.SetReadDeadline(time.Now().Add(ioTimeout))
	_, _, err := c.ReadMessage()
	var ce *websocket.CloseError
	if !asCloseError(err, &ce) || ce.Code != 4401 {
		t.Fatalf("no hello: %v, want close 4401", err)
	}
	sc := th.dialShell(t, win, nil)
	pings := 0
	var closed error
	for closed == nil {
		envs, err := sc.tryRead(testutil.EventuallyTimeout)
		if err == errTimeout {
			t.Fatal("the silent shell was never closed")
		}
		closed = err
		for _, e := range envs {
			if e.Type == "lip.ping" {
				pings++
			}
		}
	}
	// Closed for the pings, not for anything else, after exactly three.
	if !asCloseError(closed, &ce) || !strings.Contains(ce.Text, "no answer to three pings") || pings != 3 {
		t.Fatalf("closed (%v) after %d pings, want closed for 3 unanswered pings", closed, pings)
	}
	// A shell that answers stays.
	sc2 := th.dialShell(t, win, nil)
	for range 6 {
		e, ok := sc2.nextOfType("lip.ping", testutil.EventuallyTimeout)
		if !ok {
			t.Fatal("an answering shell was dropped")
		}
		_ = e
		sc2.sendEnv("lip.pong", map[string]any{}, "shell")
	}
}

func asCloseError(err error, target **websocket.CloseError) bool {
	ce, ok := err.(*websocket.CloseError)
	if ok {
		*target = ce
	}
	return ok
}

// TestHostRestartNewEpochCursorsRestart: after a restart the epoch is new
// and a cursor saved in the old epoch starts at the oldest event, no error.
func TestHostRestartNewEpochCursorsRestart(t *testing.T) {
	home := t.TempDir()
	th := startLIPHostAt(t, home)
	th.open(t, "board", "")
	first := th.listen(t, "cursor=claude&wait_ms=0")
	if len(first.Events) == 0 || first.Seq == 0 {
		t.Fatalf("first run: %+v", first)
	}
	oldEpoch := first.Epoch
	th.stop()

	th2 := startLIPHostAt(t, home)
	win := th2.open(t, "board", "")
	res := th2.listen(t, "cursor=claude&wait_ms=0")
	if res.Epoch == oldEpoch || res.Epoch == "" {
		t.Fatalf("epoch %q after restart, was %q", res.Epoch, oldEpoch)
	}
	if len(res.Events) != 1 || res.Events[0].Seq != 1 || res.Events[0].Type != "session.open" || res.Events[0].Win != win.Window {
		t.Fatalf("after restart: %+v", res)
	}
	// The old window token is dead.
	if code, _ := th2.call(t, "GET", "/w/w1/shell.js?t="+"stale", nil, ""); code != 401 {
		t.Fatalf("stale token: %d", code)
	}
}

// TestQueueIsBoundedOldestDropped: beyond 1000 queued commands the oldest
// go, reported as lip.expired.
func TestQueueIsBoundedOldestDropped(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	var first string
	for b := range 5 {
		batch := make([]map[string]any, 0, 201)
		for i := range 201 {
			batch = append(batch, map[string]any{"lip": 1, "type": "board.add", "win": win.Window, "data": map[string]any{"i": b*201 + i}})
		}
		_, body := th.send(t, batch)
		if b == 0 {
			first = body["accepted"].([]any)[0].(string)
		}
	}
	w, _ := th.core.window(win.Window)
	if n := len(w.queuedIDs()); n != downQueueMax {
		t.Fatalf("queue %d, want %d", n, downQueueMax)
	}
	ev := th.waitEvent(t, "q", "lip.expired", ioTimeout)
	d := dataOf(t, ev)
	if d["reason"] != "queue_full" || d["ids"].([]any)[0] != first {
		t.Fatalf("lip.expired %v", d)
	}
}

// TestTokensNeverReachTheLog: a whole session of work logs no token.
func TestTokensNeverReachTheLog(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "coder", "")
	sc := th.dialShell(t, win, nil)
	sc.sendEnv("lip.ready", map[string]any{}, "shell")
	th.call(t, "GET", "/w/w1/?t="+win.Token, nil, "")
	th.call(t, "GET", "/lip/status?t=wrong", nil, "")
	th.send(t, map[string]any{"lip": 1, "type": "ui.toast", "win": win.Window})
	sc.commands(1, ioTimeout)
	w, _ := th.core.window(win.Window)
	th.stop()
	logs := th.logBuf.String()
	if logs == "" {
		t.Fatal("expected some log lines")
	}
	for name, tok := range map[string]string{"host": testHostToken, "window": win.Token, "frame": w.frameToken} {
		if strings.Contains(logs, tok) {
			t.Errorf("the %s token is in the log", name)
		}
	}
}

// TestUniquePortRememberedAcrossRestarts: the unique's origin comes back on
// the same port (so its browser storage survives), recorded in ports.json.
func TestUniquePortRememberedAcrossRestarts(t *testing.T) {
	home := t.TempDir()
	th := startLIPHostAt(t, home)
	th.open(t, "board", "")
	o, _ := th.origins.get("board")
	port := o.port
	th.stop()
	raw, err := os.ReadFile(filepath.Join(home, "state", "ports.json"))
	if err != nil || !strings.Contains(string(raw), `"board": `+strconv.Itoa(port)) {
		t.Fatalf("ports.json: %s %v", raw, err)
	}
	th2 := startLIPHostAt(t, home)
	th2.open(t, "board", "")
	o2, _ := th2.origins.get("board")
	if o2.port != port {
		t.Fatalf("port %d after restart, was %d", o2.port, port)
	}
}
