package ring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newTestRing(t testing.TB, capacity int) (*Ring, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(t0)
	return New(Config{Capacity: capacity, Epoch: "e1", Clock: clk}), clk
}

func ev(typ, win string, data string) lip.Envelope {
	if data == "" {
		data = "{}"
	}
	return lip.Envelope{LIP: 1, ID: "ev_" + strings.ReplaceAll(typ, ".", "-"), Dir: lip.Up, From: "unique:g#" + win,
		Type: typ, Win: win, Data: json.RawMessage(data)}
}

func listenNow(t testing.TB, r *Ring, q Query) Result {
	t.Helper()
	res, err := r.Listen(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func seqs(res Result) []uint64 {
	out := []uint64{}
	for _, e := range res.Events {
		out = append(out, e.Seq)
	}
	return out
}

func coalescedN(t testing.TB, e lip.Envelope) int {
	t.Helper()
	raw, ok := lip.DataField(e.Data, "_coalesced")
	if !ok {
		return 0
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCase005_OverflowReportsGap(t *testing.T) {
	r, _ := newTestRing(t, 2000)
	if res := listenNow(t, r, Query{Cursor: "claude"}); len(res.Events) != 0 || res.Seq != 0 {
		t.Fatalf("empty ring: %+v", res)
	}
	for i := range 2001 {
		r.Append(ev("graph.node.select", "w1", fmt.Sprintf(`{"i":%d}`, i)))
	}
	res := listenNow(t, r, Query{Cursor: "claude", Max: 2000})
	if res.Gap == nil || res.Gap.Lost != 1 || res.Gap.From != 1 || res.Gap.To != 1 {
		t.Fatalf("gap: %+v", res.Gap)
	}
	if len(res.Events) != 2000 || res.Events[0].Seq != 2 || res.Events[1999].Seq != 2001 {
		t.Fatalf("events: %d first %d", len(res.Events), res.Events[0].Seq)
	}
	if res.Seq != 2001 || res.Pending != 0 {
		t.Fatalf("cursor %d pending %d", res.Seq, res.Pending)
	}
	// The gap is reported once.
	if res := listenNow(t, r, Query{Cursor: "claude"}); res.Gap != nil {
		t.Fatalf("gap again: %+v", res.Gap)
	}
	st := r.Stats()
	if st.Size != 2000 || st.Oldest != 2 || st.Newest != 2001 || st.Evicted != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// Case 6: a blocking listen returns when a matching event arrives, not at
// its timeout, and stops its timer. The checklist's latency bound (< 310 ms
// for an event at 300 ms) is a timing budget, measured by
// BenchmarkWakeLatency.
func TestCase006_BlockingListenWakesOnEvent(t *testing.T) {
	t.Run("manual clock", func(t *testing.T) {
		r, clk := newTestRing(t, 100)
		got := make(chan Result, 1)
		go func() {
			res, err := r.Listen(context.Background(), Query{Cursor: "claude", Wait: 2 * time.Second})
			if err != nil {
				t.Error(err)
			}
			got <- res
		}()
		waitArmed(t, clk, 1)
		clk.Advance(300 * time.Millisecond)
		select {
		case res := <-got:
			t.Fatalf("returned before the event: %+v", res)
		default:
		}
		r.Append(ev("graph.node.select", "w1", ""))
		select {
		case res := <-got:
			if len(res.Events) != 1 || res.Events[0].Seq != 1 {
				t.Fatalf("%+v", res)
			}
		case <-time.After(testutil.EventuallyTimeout):
			t.Fatal("listener not woken by the append")
		}
		if clk.Pending() != 0 {
			t.Error("timer not stopped")
		}
	})
}

// waitArmed waits until n listeners have armed their timeout on clk: they
// are blocked.
func waitArmed(t *testing.T, clk *clock.Fake, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
	defer cancel()
	if err := clk.BlockUntil(ctx, n); err != nil {
		t.Fatal(err)
	}
}

func TestCase007_RepeatedChangedCoalesces(t *testing.T) {
	r, clk := newTestRing(t, 100)
	r.Append(ev("graph.changed", "w1", `{"v":1}`))
	clk.Advance(100 * time.Millisecond)
	a := r.Append(ev("graph.changed", "w1", `{"v":2}`))
	if a.Coalesced != 2 || a.Seq != 2 {
		t.Fatalf("append: %+v", a)
	}
	res := listenNow(t, r, Query{})
	if len(res.Events) != 1 {
		t.Fatalf("events: %+v", res.Events)
	}
	e := res.Events[0]
	if coalescedN(t, e) != 2 || !strings.HasPrefix(string(e.Data), `{"v":2,`) {
		t.Fatalf("survivor: %s", e.Data)
	}
	// A third within 400 ms of the second makes 3 (while unread).
	r2, clk2 := newTestRing(t, 100)
	for i := range 3 {
		r2.Append(ev("graph.changed", "w1", fmt.Sprintf(`{"v":%d}`, i)))
		clk2.Advance(390 * time.Millisecond)
	}
	if res := listenNow(t, r2, Query{}); len(res.Events) != 1 || coalescedN(t, res.Events[0]) != 3 {
		t.Fatalf("chain: %+v", res.Events)
	}
}

func TestCase008_ChangedFromTwoWindowsStaySeparate(t *testing.T) {
	r, clk := newTestRing(t, 100)
	r.Append(ev("graph.changed", "w1", ""))
	clk.Advance(100 * time.Millisecond)
	r.Append(ev("graph.changed", "w2", ""))
	res := listenNow(t, r, Query{})
	if len(res.Events) != 2 || coalescedN(t, res.Events[0]) != 0 || coalescedN(t, res.Events[1]) != 0 {
		t.Fatalf("%+v", res.Events)
	}
}

func TestCase009_ChangedAfterReadStaysSeparate(t *testing.T) {
	r, clk := newTestRing(t, 100)
	r.Append(ev("graph.changed", "w1", `{"v":1}`))
	if res := listenNow(t, r, Query{Cursor: "claude"}); len(res.Events) != 1 {
		t.Fatal(res)
	}
	clk.Advance(100 * time.Millisecond)
	a := r.Append(ev("graph.changed", "w1", `{"v":2}`))
	if a.Coalesced != 0 {
		t.Fatalf("coalesced a read event: %+v", a)
	}
	res := listenNow(t, r, Query{Cursor: "hook"}) // a new cursor sees both
	if len(res.Events) != 2 {
		t.Fatalf("%+v", res.Events)
	}
}

func TestCase010_PointerMovesNeverEnter(t *testing.T) {
	r, _ := newTestRing(t, 100)
	for _, typ := range []string{"entity.pointer.move", "graph.pointermove", "shell.mousemove", "ui.pointer-move", "graph.mouse.move"} {
		if a := r.Append(ev(typ, "w1", "")); !a.Dropped || a.Seq != 0 {
			t.Errorf("%s entered: %+v", typ, a)
		}
	}
	for _, typ := range []string{"entity.move", "graph.node.move", "graph.pointer"} {
		if IsPointerMove(typ) {
			t.Errorf("%s is not a pointer move", typ)
		}
	}
	if st := r.Stats(); st.Size != 0 || st.Newest != 0 {
		t.Fatalf("%+v", st)
	}
}

func TestCase037_CursorFromOlderEpochStartsAtOldest(t *testing.T) {
	store := &memStore{saved: Saved{Epoch: "old", Cursors: map[string]uint64{"claude": 500, "hook": 3, "Bad Name": 1}}}
	clk := clock.NewFake(t0)
	r := New(Config{Capacity: 10, Epoch: "new", Clock: clk, Store: store})
	for range 5 {
		r.Append(ev("graph.node.select", "w1", ""))
	}
	res, err := r.Listen(context.Background(), Query{Cursor: "claude"})
	if err != nil || len(res.Events) != 5 || res.Events[0].Seq != 1 || res.Gap != nil || res.Epoch != "new" {
		t.Fatalf("%v %+v", err, res)
	}
	if p, ok := r.Position("hook"); !ok || p != 0 {
		t.Fatalf("hook restored at %d %v", p, ok)
	}
	if _, ok := r.Position("Bad Name"); ok {
		t.Fatal("invalid cursor name restored")
	}
	// The save carries the new epoch.
	if store.last().Epoch != "new" || store.last().Cursors["claude"] != 5 {
		t.Fatalf("saved %+v", store.last())
	}
	// Same epoch: positions are kept.
	r2 := New(Config{Capacity: 10, Epoch: "new", Clock: clk, Store: store})
	if p, _ := r2.Position("claude"); p != 5 {
		t.Fatalf("same epoch position %d", p)
	}
}

type memStore struct {
	mu    sync.Mutex
	saved Saved
	saves []Saved
	fail  error
}

func (m *memStore) Load() (Saved, error) { m.mu.Lock(); defer m.mu.Unlock(); return m.saved, nil }
func (m *memStore) Save(s Saved) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	m.saved = s
	m.saves = append(m.saves, s)
	return nil
}
func (m *memStore) last() Saved { m.mu.Lock(); defer m.mu.Unlock(); return m.saved }

func TestSaveFailureKeepsListening(t *testing.T) {
	store := &memStore{fail: errors.New("disk full")}
	r := New(Config{Epoch: "e", Clock: clock.NewFake(t0), Store: store})
	r.Append(ev("a.b", "w1", ""))
	if res := listenNow(t, r, Query{}); len(res.Events) != 1 {
		t.Fatal(res)
	}
	if res := listenNow(t, r, Query{}); len(res.Events) != 0 || res.Seq != 1 {
		t.Fatal(res)
	}
}

func TestNoSaveWhenNothingMoved(t *testing.T) {
	store := &memStore{}
	r := New(Config{Epoch: "e", Clock: clock.NewFake(t0), Store: store})
	r.Append(ev("a.b", "w1", ""))
	listenNow(t, r, Query{})
	listenNow(t, r, Query{})
	listenNow(t, r, Query{})
	if n := len(store.saves); n != 1 {
		t.Fatalf("%d saves", n)
	}
}

func TestCoalescingDetails(t *testing.T) {
	t.Run("400 ms apart are separate", func(t *testing.T) {
		r, clk := newTestRing(t, 100)
		r.Append(ev("graph.changed", "w1", ""))
		clk.Advance(CoalesceWindow)
		r.Append(ev("graph.changed", "w1", ""))
		if res := listenNow(t, r, Query{}); len(res.Events) != 2 {
			t.Fatal(res.Events)
		}
	})
	t.Run("survivor moves to the end", func(t *testing.T) {
		r, clk := newTestRing(t, 100)
		r.Append(ev("session.focus", "w1", ""))
		clk.Advance(50 * time.Millisecond)
		r.Append(ev("session.blur", "w1", ""))
		clk.Advance(50 * time.Millisecond)
		r.Append(ev("session.focus", "w1", ""))
		res := listenNow(t, r, Query{})
		if len(res.Events) != 2 || res.Events[0].Type != "session.blur" || res.Events[1].Type != "session.focus" || res.Events[1].Seq != 3 {
			t.Fatalf("%+v", res.Events)
		}
		if coalescedN(t, res.Events[1]) != 2 {
			t.Fatalf("%s", res.Events[1].Data)
		}
	})
	t.Run("component change per component id", func(t *testing.T) {
		r, clk := newTestRing(t, 100)
		r.Append(ev("component.action", "w1", `{"id":"s1","action":"change","value":1}`))
		r.Append(ev("component.action", "w1", `{"id":"s2","action":"change","value":1}`))
		clk.Advance(10 * time.Millisecond)
		r.Append(ev("component.action", "w1", `{"id":"s1","action":"change","value":2}`))
		r.Append(ev("component.action", "w1", `{"id":"s1","action":"commit","value":2}`))
		r.Append(ev("component.action", "w1", `{"id":"s1","action":"commit","value":2}`))
		res := listenNow(t, r, Query{})
		if len(res.Events) != 4 {
			t.Fatalf("%d events", len(res.Events))
		}
		if coalescedN(t, res.Events[1]) != 2 || !strings.Contains(string(res.Events[1].Data), `"value":2`) {
			t.Fatalf("%s", res.Events[1].Data)
		}
	})
	t.Run("a sender's _coalesced is replaced", func(t *testing.T) {
		r, clk := newTestRing(t, 100)
		r.Append(ev("graph.changed", "w1", `{"_coalesced":99}`))
		clk.Advance(time.Millisecond)
		r.Append(ev("graph.changed", "w1", `{"_coalesced":99,"v":1}`))
		res := listenNow(t, r, Query{})
		if string(res.Events[0].Data) != `{"_coalesced":2,"v":1}` {
			t.Fatalf("%s", res.Events[0].Data)
		}
	})
	t.Run("filtered-out read counts as read", func(t *testing.T) {
		r, clk := newTestRing(t, 100)
		r.Append(ev("graph.changed", "w1", ""))
		listenNow(t, r, Query{Cursor: "claude", Types: []string{"graph.export"}})
		clk.Advance(time.Millisecond)
		if a := r.Append(ev("graph.changed", "w1", "")); a.Coalesced != 0 {
			t.Fatalf("%+v", a)
		}
	})
}

func TestListenFiltersAndCursorMovement(t *testing.T) {
	r, _ := newTestRing(t, 100)
	// seq: 1 a.x w1, 2 b.y w2, 3 a.x w2, 4 c.z w1, 5 a.x w1, 6 b.y w1
	for _, p := range [][2]string{{"a.x", "w1"}, {"b.y", "w2"}, {"a.x", "w2"}, {"c.z", "w1"}, {"a.x", "w1"}, {"b.y", "w1"}} {
		r.Append(ev(p[0], p[1], ""))
	}
	cases := []struct {
		q       Query
		want    []uint64
		seq     uint64
		pending int
	}{
		{Query{Cursor: "all"}, []uint64{1, 2, 3, 4, 5, 6}, 6, 0},
		{Query{Cursor: "t", Types: []string{"a.x"}}, []uint64{1, 3, 5}, 6, 0},
		{Query{Cursor: "tt", Types: []string{"b.y", "c.z", "b.y", "nope.x"}}, []uint64{2, 4, 6}, 6, 0},
		{Query{Cursor: "w", Window: "w2"}, []uint64{2, 3}, 6, 0},
		{Query{Cursor: "wt", Window: "w1", Types: []string{"a.x", "b.y"}}, []uint64{1, 5, 6}, 6, 0},
		{Query{Cursor: "nowin", Window: "w9"}, []uint64{}, 6, 0},
		{Query{Cursor: "m", Max: 2}, []uint64{1, 2}, 2, 4},
		{Query{Cursor: "mt", Max: 2, Types: []string{"a.x"}}, []uint64{1, 3}, 3, 3},
	}
	for _, c := range cases {
		res := listenNow(t, r, c.q)
		if fmt.Sprint(seqs(res)) != fmt.Sprint(c.want) || res.Seq != c.seq || res.Pending != c.pending {
			t.Errorf("%+v: got %v seq %d pending %d; want %v seq %d pending %d", c.q, seqs(res), res.Seq, res.Pending, c.want, c.seq, c.pending)
		}
	}
	// Continuing a maxed cursor picks up where it stopped.
	if res := listenNow(t, r, Query{Cursor: "mt", Types: []string{"a.x"}}); fmt.Sprint(seqs(res)) != "[5]" {
		t.Errorf("continue: %v", seqs(res))
	}
	// The JSON answer shape.
	r.Append(ev("a.x", "w1", ""))
	b, _ := json.Marshal(listenNow(t, r, Query{Cursor: "all"}))
	if !strings.HasPrefix(string(b), `{"events":[{"lip":1,`) || !strings.Contains(string(b), `"cursor":"all","seq":7,"epoch":"e1","pending":0}`) {
		t.Errorf("%s", b)
	}
	b, _ = json.Marshal(listenNow(t, r, Query{Cursor: "all"}))
	if !strings.HasPrefix(string(b), `{"events":[],`) {
		t.Errorf("empty events must be []: %s", b)
	}
}

func TestBeyondAnotherCursor(t *testing.T) {
	r, _ := newTestRing(t, 100)
	for range 3 {
		r.Append(ev("a.x", "w1", ""))
	}
	listenNow(t, r, Query{Cursor: "claude", Max: 2})
	r.Append(ev("a.x", "w1", ""))
	res := listenNow(t, r, Query{Cursor: "hook", Beyond: "claude"})
	if fmt.Sprint(seqs(res)) != "[3 4]" || res.Seq != 4 {
		t.Fatalf("%v %d", seqs(res), res.Seq)
	}
	if p, _ := r.Position("claude"); p != 2 {
		t.Fatalf("claude moved to %d", p)
	}
	// Beyond an unknown cursor: no floor, and the cursor is not created.
	res = listenNow(t, r, Query{Cursor: "h2", Beyond: "ghost"})
	if len(res.Events) != 4 {
		t.Fatal(seqs(res))
	}
	if _, ok := r.Position("ghost"); ok {
		t.Fatal("beyond created a cursor")
	}
}

func TestListenTimeoutCancelAndClose(t *testing.T) {
	r, clk := newTestRing(t, 10)
	r.Append(ev("a.x", "w1", ""))
	done := make(chan Result, 1)
	go func() {
		res, err := r.Listen(context.Background(), Query{Cursor: "c", Types: []string{"b.y"}, Wait: time.Second})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	waitArmed(t, clk, 1)
	r.Append(ev("a.x", "w1", "")) // does not match: keeps waiting
	clk.Advance(999 * time.Millisecond)
	// The timeout is not due yet on the fake clock, so nothing can have
	// ended the listen.
	if clk.Pending() != 1 {
		t.Fatal("the listen's timer fired before its deadline")
	}
	select {
	case <-done:
		t.Fatal("returned early")
	default:
	}
	clk.Advance(time.Millisecond)
	select {
	case res := <-done:
		if len(res.Events) != 0 || res.Seq != 2 {
			t.Fatalf("%+v", res)
		}
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatal("timeout not honoured")
	}

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := r.Listen(ctx, Query{Cursor: "c", Wait: time.Second})
		errc <- err
	}()
	waitArmed(t, clk, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("%v", err)
	}

	go func() {
		_, err := r.Listen(context.Background(), Query{Cursor: "c", Wait: time.Second})
		errc <- err
	}()
	waitArmed(t, clk, 1)
	r.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("%v", err)
	}
	if _, err := r.Listen(context.Background(), Query{}); !errors.Is(err, ErrClosed) {
		t.Fatal(err)
	}
}

func TestManyListenersWakeAndOneCursorDeliversOnce(t *testing.T) {
	r, clk := newTestRing(t, 100)
	const n = 8
	var wg sync.WaitGroup
	got := make([][]uint64, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("c%d", i%4) // pairs share a cursor
			res, err := r.Listen(context.Background(), Query{Cursor: name, Wait: 300 * time.Millisecond})
			if err != nil {
				t.Error(err)
			}
			got[i] = seqs(res)
		}()
	}
	waitArmed(t, clk, n) // every listener is blocked
	r.Append(ev("a.x", "w1", ""))
	// The listener of each pair that did not get the event waits for its
	// timeout; an event is never lost to a timeout (a woken listener that
	// finds it returns it).
	clk.Advance(300 * time.Millisecond)
	wg.Wait()
	for c := range 4 {
		a, b := got[c], got[c+4]
		if len(a)+len(b) != 1 {
			t.Errorf("cursor c%d: %v and %v (the event must go to exactly one of them)", c, a, b)
		}
	}
}

func TestGapWithFiltersAndCoalescing(t *testing.T) {
	r, clk := newTestRing(t, 4)
	listenNow(t, r, Query{Cursor: "claude"})
	// 6 events, two of them merged by coalescing: 5 live-or-evicted, 4 kept.
	r.Append(ev("a.x", "w1", ""))           // 1 evicted
	r.Append(ev("graph.changed", "w1", "")) // 2 merged away
	clk.Advance(time.Millisecond)
	r.Append(ev("graph.changed", "w1", "")) // 3
	r.Append(ev("a.x", "w1", ""))           // 4
	r.Append(ev("a.x", "w1", ""))           // 5
	r.Append(ev("a.x", "w1", ""))           // 6
	res := listenNow(t, r, Query{Cursor: "claude", Types: []string{"graph.changed"}})
	if res.Gap == nil || res.Gap.Lost != 1 || res.Gap.From != 1 || res.Gap.To != 1 {
		t.Fatalf("gap %+v", res.Gap)
	}
	if fmt.Sprint(seqs(res)) != "[3]" {
		t.Fatal(seqs(res))
	}
	// A cursor positioned on an event that is later evicted counts exactly.
	r2, _ := newTestRing(t, 3)
	for range 3 {
		r2.Append(ev("a.x", "w1", ""))
	}
	listenNow(t, r2, Query{Cursor: "c", Max: 1}) // at seq 1
	for range 4 {
		r2.Append(ev("a.x", "w1", ""))
	}
	res = listenNow(t, r2, Query{Cursor: "c"})
	if res.Gap == nil || res.Gap.Lost != 3 || res.Gap.From != 2 || res.Gap.To != 4 || fmt.Sprint(seqs(res)) != "[5 6 7]" {
		t.Fatalf("%+v %v", res.Gap, seqs(res))
	}
	// A gap is reported at once even when nothing matches a blocking listen.
	for range 5 {
		r2.Append(ev("a.x", "w1", ""))
	}
	res, err := r2.Listen(context.Background(), Query{Cursor: "c", Types: []string{"zz.z"}, Wait: time.Minute})
	if err != nil || res.Gap == nil || res.Gap.Lost != 2 {
		t.Fatalf("%v %+v", err, res.Gap)
	}
}

func TestCursorLimit(t *testing.T) {
	clk := clock.NewFake(t0)
	r := New(Config{Epoch: "e", Clock: clk, MaxCursors: 3})
	for _, n := range []string{"claude", "hook", "a", "b"} {
		clk.Advance(time.Second)
		listenNow(t, r, Query{Cursor: n})
	}
	if _, ok := r.Position("a"); ok {
		t.Fatal("least recently used cursor kept")
	}
	for _, n := range []string{"claude", "hook", "b"} {
		if _, ok := r.Position(n); !ok {
			t.Fatalf("%s forgotten", n)
		}
	}
}

func TestQueryNormalization(t *testing.T) {
	r, _ := newTestRing(t, 10)
	if _, err := r.Listen(context.Background(), Query{Cursor: "Bad"}); err == nil {
		t.Error("bad cursor name")
	}
	if _, err := r.Listen(context.Background(), Query{Beyond: "Bad"}); err == nil {
		t.Error("bad beyond name")
	}
	many := make([]string, MaxTypes+1)
	for i := range many {
		many[i] = fmt.Sprintf("a.t%d", i)
	}
	if _, err := r.Listen(context.Background(), Query{Types: many}); err == nil {
		t.Error("too many types")
	}
	q, _ := Query{Wait: time.Hour, Max: 1 << 20}.normalize()
	if q.Wait != MaxWait || q.Max != MaxMax || q.Cursor != "claude" {
		t.Errorf("%+v", q)
	}
}

// TestRingMatchesModel drives the ring and a naive reference model with the
// same random operations and compares every listen answer.
func TestRingMatchesModel(t *testing.T) {
	var coalesced, gaps, filtered int
	defer func() {
		if coalesced == 0 || gaps == 0 || filtered == 0 {
			t.Errorf("the model test did not exercise everything: %d coalesced, %d gaps, %d filtered listens", coalesced, gaps, filtered)
		}
	}()
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		capacity := 1 + rng.IntN(9)
		r, clk := newTestRing(t, capacity)
		m := newModel(capacity)
		types := []string{"a.changed", "a.x", "b.y", "session.focus", "session.blur", "component.action", "graph.pointermove"}
		wins := []string{"w1", "w2", ""}
		curs := []string{"claude", "hook", "x"}
		for step := range 300 {
			switch op := rng.IntN(10); {
			case op < 6:
				typ := types[rng.IntN(len(types))]
				data := fmt.Sprintf(`{"step":%d}`, step)
				if typ == "component.action" {
					data = fmt.Sprintf(`{"id":"c%d","action":"%s","step":%d}`, rng.IntN(2), []string{"change", "commit"}[rng.IntN(2)], step)
				}
				e := ev(typ, wins[rng.IntN(len(wins))], data)
				got := r.Append(e)
				want := m.append(e, clk.Now())
				if got.Seq != want.Seq || got.Coalesced != want.Coalesced || got.Dropped != want.Dropped {
					t.Fatalf("seed %d step %d append %s: got %+v want %+v", seed, step, typ, got, want)
				}
				if got.Coalesced > 0 {
					coalesced++
				}
			case op < 8:
				clk.Advance(time.Duration(rng.IntN(300)) * time.Millisecond)
			default:
				q := Query{Cursor: curs[rng.IntN(3)], Max: 1 + rng.IntN(6)}
				if rng.IntN(3) == 0 {
					q.Types = []string{types[rng.IntN(len(types))], types[rng.IntN(len(types))]}
				}
				if rng.IntN(3) == 0 {
					q.Window = wins[rng.IntN(2)]
				}
				if rng.IntN(4) == 0 {
					q.Beyond = curs[rng.IntN(3)]
				}
				got := listenNow(t, r, q)
				want := m.listen(q)
				if fmt.Sprint(seqs(got)) != fmt.Sprint(want.seqs) || got.Seq != want.pos || got.Pending != want.pending ||
					fmt.Sprint(got.Gap) != fmt.Sprint(want.gap) {
					t.Fatalf("seed %d step %d listen %+v:\n got %v pos %d pending %d gap %v\nwant %v pos %d pending %d gap %v",
						seed, step, q, seqs(got), got.Seq, got.Pending, got.Gap, want.seqs, want.pos, want.pending, want.gap)
				}
				if got.Gap != nil {
					gaps++
				}
				if len(q.Types) > 0 || q.Window != "" {
					filtered++
				}
				for i, e := range got.Events {
					if string(e.Data) != string(want.data[i]) {
						t.Fatalf("seed %d step %d: data %s want %s", seed, step, e.Data, want.data[i])
					}
				}
			}
		}
	}
}

type mev struct {
	seq  uint64
	env  lip.Envelope
	key  string
	at   time.Time
	n    int
	data json.RawMessage
}

type model struct {
	capacity    int
	live        []*mev
	lastSeq     uint64
	evicted     []uint64
	cursors     map[string]uint64
	readThrough uint64
}

func newModel(capacity int) *model { return &model{capacity: capacity, cursors: map[string]uint64{}} }

func (m *model) append(e lip.Envelope, now time.Time) Appended {
	if IsPointerMove(e.Type) {
		return Appended{Dropped: true}
	}
	key := CoalesceKey(&e)
	n := 1
	if key != "" {
		for i := len(m.live) - 1; i >= 0; i-- {
			p := m.live[i]
			if p.key != key {
				continue
			}
			if p.seq > m.readThrough && now.Sub(p.at) < CoalesceWindow {
				n = p.n + 1
				m.live = append(m.live[:i], m.live[i+1:]...)
			}
			break
		}
	}
	m.lastSeq++
	data := e.Data
	if n > 1 {
		data, _ = lip.SetDataField(e.Data, "_coalesced", []byte(fmt.Sprint(n)))
	}
	m.live = append(m.live, &mev{seq: m.lastSeq, env: e, key: key, at: now, n: n, data: data})
	for len(m.live) > m.capacity {
		m.evicted = append(m.evicted, m.live[0].seq)
		m.live = m.live[1:]
	}
	out := Appended{Seq: m.lastSeq}
	if n > 1 {
		out.Coalesced = n
	}
	return out
}

type modelResult struct {
	seqs    []uint64
	data    []json.RawMessage
	pos     uint64
	pending int
	gap     *Gap
}

func (m *model) listen(q Query) modelResult {
	q, _ = q.normalize()
	pos, ok := m.cursors[q.Cursor]
	if !ok {
		pos = m.lastSeq
		if len(m.live) > 0 {
			pos = m.live[0].seq - 1
		}
		m.cursors[q.Cursor] = pos
	}
	var res modelResult
	var lost uint64
	var to uint64
	for _, s := range m.evicted {
		if s > pos {
			lost++
			to = s
		}
	}
	if lost > 0 {
		res.gap = &Gap{From: pos + 1, To: to, Lost: lost}
	}
	start := pos
	if b, ok := m.cursors[q.Beyond]; ok && q.Beyond != "" && b > start {
		start = b
	}
	res.seqs = []uint64{}
	for _, e := range m.live {
		if e.seq <= start || len(res.seqs) >= q.Max {
			continue
		}
		if q.Window != "" && e.env.Win != q.Window {
			continue
		}
		if len(q.Types) > 0 && !contains(q.Types, e.env.Type) {
			continue
		}
		res.seqs = append(res.seqs, e.seq)
		res.data = append(res.data, e.data)
	}
	newPos := m.lastSeq
	if len(res.seqs) >= q.Max {
		newPos = res.seqs[len(res.seqs)-1]
	}
	if newPos > pos {
		m.cursors[q.Cursor] = newPos
	} else {
		newPos = pos
	}
	if newPos > m.readThrough {
		m.readThrough = newPos
	}
	res.pos = newPos
	for _, e := range m.live {
		if e.seq > newPos {
			res.pending++
		}
	}
	return res
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
