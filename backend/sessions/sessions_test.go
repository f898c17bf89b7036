package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// counterIDs gives predictable ids.
func counterIDs() func(time.Time) string {
	var mu sync.Mutex
	n := 0
	return func(time.Time) string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("ss_%03d", n)
	}
}

func newStore(t *testing.T) (*Store, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	s := NewStore(filepath.Join(t.TempDir(), "sessions"), Options{
		Log:   slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil)),
		NewID: counterIDs(),
	})
	return s, &logs
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func envelope(typ string, ts int64, data string) []byte {
	return []byte(fmt.Sprintf(`{"lip":1,"id":"ev_%d","ts":%d,"dir":"up","from":"unique:graph#w1","type":%q,"win":"w1","data":%s}`, ts, ts, typ, data))
}

// keysOf lists an object's keys in document order.
func keysOf(t *testing.T, raw []byte) []string {
	t.Helper()
	obj, err := parseObject(raw)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range obj {
		keys = append(keys, m.Key)
	}
	return keys
}

func TestCase028_ExportSavedWithSessionFirst(t *testing.T) {
	s, _ := newStore(t)
	env := envelope("graph.export", 1000, `{"nodes":[{"id":"n1"}],"summary":"A plan with one node","zeta":1,"alpha":2}`)
	info, err := s.Save("graph", "", Export, env, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := Info{ID: "ss_001", Unique: "graph", Handoff: true, Summary: "A plan with one node", Type: "graph.export", Window: "w1", TS: 1000}
	if info != want {
		t.Fatalf("info %+v\nwant %+v", info, want)
	}
	p := filepath.Join(s.Dir(), "graph", "ss_001.json")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %o", fi.Mode().Perm())
	}
	// The envelope keeps its key order; data gains session as its FIRST
	// key and keeps the rest in order.
	if got := strings.Join(keysOf(t, raw), ","); got != "lip,id,ts,dir,from,type,win,data" {
		t.Fatalf("envelope keys %s", got)
	}
	var env2 struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &env2); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(keysOf(t, env2.Data), ","); got != "session,nodes,summary,zeta,alpha" {
		t.Fatalf("data keys %s", got)
	}
	var data struct {
		Session map[string]any `json:"session"`
	}
	_ = json.Unmarshal(env2.Data, &data)
	if fmt.Sprint(data.Session) != "map[handoff:true id:ss_001 saved:true summary:A plan with one node]" {
		t.Fatalf("session %v", data.Session)
	}
	sessionKeys := keysOf(t, mustGet(t, env2.Data, "session"))
	if strings.Join(sessionKeys, ",") != "id,handoff,saved,summary" {
		t.Fatalf("session keys %v", sessionKeys)
	}
	// Read back: the payload is the unique's data as sent.
	got, err := s.Get("graph", "ss_001")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Payload) != `{"nodes":[{"id":"n1"}],"summary":"A plan with one node","zeta":1,"alpha":2}` {
		t.Fatalf("payload %s", got.Payload)
	}
	if got.Info != want {
		t.Fatalf("read back %+v", got.Info)
	}
}

func mustGet(t *testing.T, raw []byte, key string) []byte {
	t.Helper()
	obj, err := parseObject(raw)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := obj.Get(key)
	if !ok {
		t.Fatalf("no %s", key)
	}
	return v
}

func TestCase030_SnapshotUpdatesSilently(t *testing.T) {
	s, _ := newStore(t)
	// No current session: a snapshot creates one, without the handoff flag.
	info, err := s.Save("graph", "", Snapshot, envelope("graph.snapshot", 1000, `{"n":1}`), t0)
	if err != nil {
		t.Fatal(err)
	}
	if info.ID != "ss_001" || info.Handoff {
		t.Fatalf("created %+v", info)
	}
	// The next snapshot of the same window updates that file.
	info, err = s.Save("graph", info.ID, Snapshot, envelope("graph.snapshot", 2000, `{"n":2}`), t0)
	if err != nil || info.ID != "ss_001" || info.Handoff {
		t.Fatalf("updated %+v %v", info, err)
	}
	list, _ := s.List("graph")
	if len(list) != 1 {
		t.Fatalf("snapshots must not pile up: %v", list)
	}
	got, _ := s.Get("graph", "ss_001")
	if string(got.Payload) != `{"n":2}` || got.TS != 2000 {
		t.Fatalf("got %s at %d", got.Payload, got.TS)
	}
	// An export of the same window marks it handed off; a later snapshot
	// (handoff "stay") keeps that mark and does not set one itself.
	if info, _ := s.Save("graph", "ss_001", Export, envelope("graph.export", 3000, `{"n":3}`), t0); !info.Handoff {
		t.Fatal("export must set handoff")
	}
	if info, _ := s.Save("graph", "ss_001", Snapshot, envelope("graph.snapshot", 4000, `{"n":4}`), t0); !info.Handoff {
		t.Fatal("a snapshot keeps the flag of the session it updates")
	}
}

func TestCase031_ResumeLastIsNewest(t *testing.T) {
	s, _ := newStore(t)
	if _, err := s.Get("graph", Last); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty: %v", err)
	}
	for i, ts := range []int64{3000, 1000, 2000} {
		if _, err := s.Save("graph", "", Export, envelope("graph.export", ts, fmt.Sprintf(`{"i":%d}`, i)), t0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Save("notes", "", Export, envelope("notes.export", 9000, `{}`), t0); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{Last, ""} {
		got, err := s.Get("graph", ref)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != "ss_001" || string(got.Payload) != `{"i":0}` {
			t.Fatalf("%q → %s %s", ref, got.ID, got.Payload)
		}
	}
	got, err := s.Get("graph", "ss_002")
	if err != nil || string(got.Payload) != `{"i":1}` {
		t.Fatalf("by id: %v %s", err, got.Payload)
	}
	if _, err := s.Get("graph", "ss_999"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing id: %v", err)
	}
	list, err := s.List("graph")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, i := range list {
		ids = append(ids, i.ID)
	}
	if strings.Join(ids, ",") != "ss_001,ss_003,ss_002" {
		t.Fatalf("newest first: %v", ids)
	}
	all, _ := s.List("")
	if len(all) != 4 || all[0].Unique != "notes" {
		t.Fatalf("all: %+v", all)
	}
}

func TestTornAndForeignFilesAreSkippedWithAWarning(t *testing.T) {
	s, logs := newStore(t)
	if _, err := s.Save("graph", "", Export, envelope("graph.export", 1000, `{"ok":true}`), t0); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.Dir(), "graph")
	bad := map[string]string{
		"torn.json":               `{"lip":1,"data":{"session":{"id":"torn"`,
		"nosession.json":          `{"lip":1,"data":{"a":1,"session":{"id":"nosession"}}}`,
		"notobject.json":          `[1,2]`,
		"mismatch.json":           `{"data":{"session":{"id":"other"}}}`,
		"empty.json":              ``,
		"trailing.json":           `{"data":{"session":{"id":"trailing"}}} {}`,
		".hidden.json":            `{}`,
		"notes.txt":               `x`,
		"bad name!.json":          `{"data":{"session":{"id":"bad name!"}}}`,
		".ss_9.json.lets-tmp-abc": `{"da`,
	}
	for name, text := range bad {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.List("graph")
	if err != nil || len(list) != 1 || list[0].ID != "ss_001" {
		t.Fatalf("list %+v %v", list, err)
	}
	for _, name := range []string{"torn.json", "nosession.json", "notobject.json", "mismatch.json", "empty.json", "trailing.json"} {
		if !strings.Contains(logs.String(), name) {
			t.Errorf("no warning about %s in\n%s", name, logs)
		}
	}
	if strings.Contains(logs.String(), "hidden") || strings.Contains(logs.String(), "notes.txt") {
		t.Errorf("files that are not sessions should be ignored silently:\n%s", logs)
	}
	if got, err := s.Get("graph", Last); err != nil || got.ID != "ss_001" {
		t.Fatalf("last: %v %v", got.ID, err)
	}
	if _, err := s.Get("graph", "torn"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "unreadable") {
		t.Fatalf("torn by id: %v", err)
	}
	// A snapshot whose current file is torn starts over cleanly.
	info, err := s.Save("graph", "torn", Snapshot, envelope("graph.snapshot", 5000, `{"x":1}`), t0)
	if err != nil || info.ID != "torn" || info.Handoff {
		t.Fatalf("snapshot over torn: %+v %v", info, err)
	}
	if _, err := s.Get("graph", "torn"); err != nil {
		t.Fatal(err)
	}
}

func TestNamesAreChecked(t *testing.T) {
	s, _ := newStore(t)
	env := envelope("graph.export", 1, `{}`)
	for _, c := range []struct{ unique, current string }{
		{"../etc", ""}, {"Graph", ""}, {"", ""}, {"graph", "../x"}, {"graph", ".hidden"}, {"graph", "a/b"}, {"graph", ".."},
	} {
		if _, err := s.Save(c.unique, c.current, Export, env, t0); err == nil {
			t.Errorf("Save(%q, %q) accepted", c.unique, c.current)
		}
	}
	if _, err := s.Get("graph", "../../x"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if _, err := s.List("../x"); err == nil {
		t.Fatal("list accepted a bad name")
	}
	if _, err := s.Save("graph", "", Kind(9), env, t0); err == nil {
		t.Fatal("unknown kind")
	}
	bad := NewStore(t.TempDir(), Options{NewID: func(time.Time) string { return "../up" }})
	if _, err := bad.Save("graph", "", Export, env, t0); err == nil {
		t.Fatal("bad id from the id maker accepted")
	}
}

func TestBadEnvelopes(t *testing.T) {
	s, _ := newStore(t)
	for _, env := range []string{``, `[]`, `{"data":[1]}`, `{"data":"x"}`, `{"a":1}{}`, `{"data":{"a":}}`, `{` + strings.Repeat(`"a":[`, 1) + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `]}`} {
		if _, err := s.Save("graph", "", Export, []byte(env), t0); !errors.Is(err, ErrBadEnvelope) {
			t.Errorf("%.40q: %v", env, err)
		}
	}
	// No data, or null data, is an empty payload.
	for _, env := range []string{`{"type":"graph.export"}`, `{"type":"graph.export","data":null}`} {
		info, err := s.Save("graph", "", Export, []byte(env), t0)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := s.Get("graph", info.ID)
		if string(got.Payload) != `{}` || info.TS != t0.UnixMilli() {
			t.Fatalf("%s → %s ts %d", env, got.Payload, info.TS)
		}
	}
	// A unique's own "session" key is replaced, not duplicated.
	info, _ := s.Save("graph", "", Export, envelope("graph.export", 1, `{"a":1,"session":{"id":"forged","handoff":false}}`), t0)
	got, _ := s.Get("graph", info.ID)
	if string(got.Payload) != `{"a":1}` || got.ID != info.ID || !got.Handoff {
		t.Fatalf("forged session key: %+v %s", got.Info, got.Payload)
	}
}

func TestSummary(t *testing.T) {
	long := strings.Repeat("é", 200)
	cases := []struct{ data, want string }{
		{`{"summary":"  Two nodes,\n one edge  ","x":1}`, "Two nodes, one edge"},
		{`{"summary":"","title":"Plan"}`, "summary: , title: Plan"},
		{`{"summary":42}`, "summary: 42"},
		{`{"title":"Plan","nodes":[{"id":"n1","label":"Start"},{"id":"n2"}],"done":false,"n":null}`, "title: Plan, nodes: [(id: n1, label: Start), (id: n2)], done: false, n: null"},
		{`{"session":{"id":"x"},"a":"b"}`, "a: b"},
		{`{}`, ""},
		{`{"text":"` + long + `"}`, "text: " + strings.Repeat("é", SummaryMax-len("text: "))},
		{`{"summary":"` + strings.Repeat("a", 600) + `"}`, strings.Repeat("a", 500)},
	}
	for _, c := range cases {
		if got := Summary(json.RawMessage(c.data)); got != c.want {
			t.Errorf("Summary(%.60s) = %q, want %q", c.data, got, c.want)
		}
	}
	if got := Summary(json.RawMessage(`{"x":"` + strings.Repeat("word ", 100000) + `"}`)); utf8.RuneCountInString(got) != SummaryMax {
		t.Errorf("long data: %d chars", utf8.RuneCountInString(got))
	}
}

func TestNewIDSortsByTime(t *testing.T) {
	a := NewID(t0)
	b := NewID(t0.Add(time.Millisecond))
	if !idRE().MatchString(a) || len(a) != 29 || !strings.HasPrefix(a, "ss_") || a >= b {
		t.Fatalf("%s %s", a, b)
	}
	// Within one millisecond the random part tells ids apart, and the time
	// part stays the same.
	seen := map[string]bool{}
	for range 1000 {
		id := NewID(t0)
		if seen[id] || id[:13] != a[:13] {
			t.Fatalf("id %s within the millisecond of %s: repeated, or another time part", id, a)
		}
		seen[id] = true
	}
	// The time part is the standard ULID encoding of the milliseconds.
	if got := NewID(time.UnixMilli(0))[3:13]; got != "0000000000" {
		t.Fatalf("epoch time part %s", got)
	}
	if got := NewID(time.UnixMilli(1<<48 - 1))[3:13]; got != "7ZZZZZZZZZ" {
		t.Fatalf("max time part %s", got)
	}
}

func TestConcurrentSaves(t *testing.T) {
	s, _ := newStore(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				kind := Snapshot
				if j%5 == 0 {
					kind = Export
				}
				if _, err := s.Save("graph", "shared", kind, envelope("graph.x", int64(i*100+j), fmt.Sprintf(`{"i":%d,"j":%d}`, i, j)), t0); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	list, err := s.List("graph")
	if err != nil || len(list) != 1 {
		t.Fatalf("%v %v", list, err)
	}
}

func BenchmarkSave(b *testing.B) {
	s := NewStore(b.TempDir(), Options{})
	env := envelope("graph.export", 1, `{"nodes":[{"id":"n1","label":"Start"},{"id":"n2","label":"End"}],"edges":[["n1","n2"]]}`)
	for b.Loop() {
		if _, err := s.Save("graph", "ss_bench", Snapshot, env, t0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkList100(b *testing.B) {
	s := NewStore(b.TempDir(), Options{})
	for i := range 100 {
		if _, err := s.Save("graph", "", Export, envelope("graph.export", int64(i), `{"n":1}`), t0); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if l, _ := s.List("graph"); len(l) != 100 {
			b.Fatal(len(l))
		}
	}
}
