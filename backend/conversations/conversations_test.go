package conversations

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/clock"
)

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	return newStoreOn(t, clock.NewFake(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)))
}

// newStoreOn is a store in a temporary folder dated by clk.
func newStoreOn(t *testing.T, clk clock.Clock) (*Store, string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "conversations")
	return New(Options{Root: root, DefaultDir: filepath.Join(t.TempDir(), "Lets"), Clock: clk}), root
}

func TestCreateGetAppendList(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clk := clock.NewFake(t0)
	s, root := newStoreOn(t, clk)
	a, err := s.Create(CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !ValidID(a.ID) || !validUUID(a.ClaudeSessionID) || a.Title != "New conversation" || !filepath.IsAbs(a.Dir) {
		t.Fatalf("created %+v", a)
	}
	fi, err := os.Stat(filepath.Join(root, a.ID+".json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode: %v %v", fi, err)
	}
	clk.Advance(time.Second)
	b, err := s.Create(CreateOptions{Title: "Trip", Dir: "/tmp/trip", PermissionMode: "acceptEdits"})
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	if _, err := s.Append(a.ID, Turn{Role: RoleHuman, Text: "Help me plan\nmy week please"}, Turn{Role: RoleClaude, Text: "Sure!"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Transcript) != 2 || got.Transcript[0].Text != "Help me plan\nmy week please" || !got.Transcript[0].At.Equal(t0.Add(2*time.Second)) || !got.Updated.Equal(t0.Add(2*time.Second)) || !got.Created.Equal(t0) || got.Title != "Help me plan my week please" {
		t.Fatalf("after append: %+v", got)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID || list[0].Turns != 2 {
		t.Fatalf("list (newest first): %+v", list)
	}
	if g, _ := s.Get(b.ID); g.PermissionMode != "acceptEdits" || g.Dir != "/tmp/trip" || g.Title != "Trip" {
		t.Fatalf("b: %+v", g)
	}
	if _, err := s.Append(a.ID, Turn{Role: "system", Text: "x"}); err == nil {
		t.Fatal("a turn with role system was accepted")
	}
}

func TestDeleteAndNotFound(t *testing.T) {
	s, _ := newStore(t)
	a, _ := s.Create(CreateOptions{})
	if err := s.Delete(a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(a.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
	if err := s.Delete(a.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if list, _ := s.List(); len(list) != 0 {
		t.Fatalf("list: %+v", list)
	}
}

func TestPathTraversalRefused(t *testing.T) {
	s, _ := newStore(t)
	for _, id := range []string{"../x", "conv_../../../../etc/passwd", "", "conv_", "/etc/passwd", "conv_01JXXXXXXXXXXXXXXXXXXXXXXX", "conv_01jxxxxxxxxxxxxxxxxxxxx/"} {
		var bad *BadIDError
		if _, err := s.Get(id); !errors.As(err, &bad) {
			t.Errorf("Get(%q) = %v, want *BadIDError", id, err)
		}
		if err := s.Delete(id); !errors.As(err, &bad) {
			t.Errorf("Delete(%q) = %v, want *BadIDError", id, err)
		}
	}
}

func TestListSkipsDamagedAndSymlinks(t *testing.T) {
	s, root := newStore(t)
	a, _ := s.Create(CreateOptions{})
	bad := "conv_01jzzzzzzzzzzzzzzzzzzzzzzz"
	if !ValidID(bad) {
		t.Fatal("test id invalid")
	}
	if err := os.WriteFile(filepath.Join(root, bad+".json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := "conv_01jyyyyyyyyyyyyyyyyyyyyyyy"
	if err := os.Symlink(filepath.Join(root, a.ID+".json"), filepath.Join(root, link+".json")); err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err != nil || len(list) != 1 || list[0].ID != a.ID {
		t.Fatalf("list = %+v, %v", list, err)
	}
	var de *DecodeError
	if _, err := s.Get(bad); !errors.As(err, &de) || !strings.Contains(err.Error(), "delete") {
		t.Fatalf("damaged: %v", err)
	}
	if _, err := s.Get(link); err == nil {
		t.Fatal("a symlinked file was read")
	}
}

func TestTranscriptTrimmed(t *testing.T) {
	s, _ := newStore(t)
	a, _ := s.Create(CreateOptions{})
	turns := make([]Turn, MaxTurns+5)
	for i := range turns {
		turns[i] = Turn{Role: RoleHuman, Text: "t"}
	}
	turns[len(turns)-1].Text = strings.Repeat("é", MaxTurnText)
	got, err := s.Append(a.ID, turns...)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Transcript) != MaxTurns || len(got.Transcript[MaxTurns-1].Text) > MaxTurnText {
		t.Fatalf("turns %d, last %d bytes", len(got.Transcript), len(got.Transcript[MaxTurns-1].Text))
	}
	if _, err := s.Get(a.ID); err != nil {
		t.Fatalf("the trimmed file does not read back: %v", err)
	}
}

func TestEnsureDir(t *testing.T) {
	s, _ := newStore(t)
	a, _ := s.Create(CreateOptions{})
	dir, err := EnsureDir(a)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("dir %v %v", fi, err)
	}
	if _, err := s.Create(CreateOptions{Dir: "relative/x"}); err == nil {
		t.Fatal("a relative working folder was accepted")
	}
}

func TestDecodeRefuses(t *testing.T) {
	good := `{"id":"conv_01jabcdefghjkmnpqrstvwxyz0","claude_session_id":"0b9f2a34-5d6e-4f70-8a9b-0c1d2e3f4a5b","title":"x","dir":"/home/a/Lets","created":"2026-12-01T12:00:00Z","updated":"2026-12-01T12:00:00Z","transcript":[{"role":"human","text":"hi","at":"2026-12-01T12:00:00Z"}]}`
	if _, err := Decode([]byte(good)); err != nil {
		t.Fatalf("good: %v", err)
	}
	for name, b := range map[string]string{
		"role":    strings.Replace(good, `"human"`, `"system"`, 1),
		"uuid":    strings.Replace(good, `0b9f2a34-5d6e`, `0b9f2a34x5d6e`, 1),
		"dir":     strings.Replace(good, `/home/a/Lets`, `home/a/Lets`, 1),
		"id":      strings.Replace(good, `conv_01j`, `conv_../`, 1),
		"notjson": `[]`,
	} {
		if _, err := Decode([]byte(b)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestSubscribeHearsCreateAppendDelete: the tray's chat list is told when a
// conversation is made, grows or goes (instead of polling the folder).
func TestSubscribeHearsCreateAppendDelete(t *testing.T) {
	s := New(Options{Root: t.TempDir()})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := s.Subscribe(ctx)
	heard := func(what string) {
		t.Helper()
		select {
		case <-ch:
		default:
			t.Fatalf("no change signal after %s", what)
		}
	}
	c, err := s.Create(CreateOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	heard("Create")
	if _, err := s.Append(c.ID, Turn{Role: "human", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	heard("Append")
	if err := s.Delete(c.ID); err != nil {
		t.Fatal(err)
	}
	heard("Delete")
	if err := s.Delete(c.ID); err == nil {
		t.Fatal("deleted twice")
	}
	select {
	case <-ch:
		t.Error("a failed Delete signalled a change")
	default:
	}
}
