package cursorfile

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/ring"
)

func TestRoundTripWithRing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s := New(dir)
	saved, err := s.Load()
	if err != nil || saved.Epoch != "" || len(saved.Cursors) != 0 {
		t.Fatalf("missing file: %+v %v", saved, err)
	}
	r := ring.New(ring.Config{Epoch: "e1", Store: s})
	r.Append(ringEvent())
	if _, err := r.Listen(context.Background(), ring.Query{Cursor: "claude"}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(s.Path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("%v %v", st, err)
	}
	saved, err = s.Load()
	if err != nil || saved.Epoch != "e1" || saved.Cursors["claude"] != 1 {
		t.Fatalf("%+v %v", saved, err)
	}
	r2 := ring.New(ring.Config{Epoch: "e1", Store: s})
	if p, ok := r2.Position("claude"); !ok || p != 1 {
		t.Fatalf("restored %d %v", p, ok)
	}
}

func TestTornFileIsAnErrorNotFatal(t *testing.T) {
	s := New(t.TempDir())
	if err := os.WriteFile(s.Path, []byte(`{"epoch":"e1","cur`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(); err == nil {
		t.Fatal("torn file loaded")
	}
	r := ring.New(ring.Config{Epoch: "e1", Store: s}) // warns, starts fresh
	if _, ok := r.Position("claude"); ok {
		t.Fatal("cursor from a torn file")
	}
}

func ringEvent() lip.Envelope {
	return lip.Envelope{LIP: 1, ID: "ev_1", Type: "graph.changed", Win: "w1"}
}
