package identitystore

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func clockAt(secs ...float64) func() time.Time {
	i := 0
	return func() time.Time {
		v := secs[len(secs)-1]
		if i < len(secs) {
			v = secs[i]
			i++
		}
		return time.Unix(0, int64(v*1e9))
	}
}

// Case 71: remember, reopen, lookup; the raw session id never reaches the file; mode 0600.
func TestCase071_RememberPersistsHashedWithMode0600(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", FileName)
	s := Open(path, Options{})
	if err := s.Remember("codex", "private-session-id", "magenta"); err != nil {
		t.Fatalf("Remember: %v", err)
	}
	fresh := Open(path, Options{})
	if got := fresh.Lookup("codex", "private-session-id"); got != "magenta" {
		t.Fatalf("fresh lookup = %q, want magenta", got)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("private-session-id")) || bytes.Contains(data, []byte("codex")) {
		t.Fatalf("file contains the raw identity:\n%s", data)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode = %o, want 600", fi.Mode().Perm())
	}
}

// Case 72: capacity 2, three identities remembered at times 1, 2, 3.
func TestCase072_CapacityForgetsLeastRecentlyUsed(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s := Open(path, Options{Capacity: 2, Now: clockAt(1, 2, 3)})
	for _, id := range []string{"one", "two", "three"} {
		if err := s.Remember("codex", id, "cyan"); err != nil {
			t.Fatal(err)
		}
	}
	fresh := Open(path, Options{Capacity: 2})
	if got := fresh.Lookup("codex", "one"); got != "" {
		t.Fatalf("first identity should be forgotten, got %q", got)
	}
	for _, id := range []string{"two", "three"} {
		if got := fresh.Lookup("codex", id); got != "cyan" {
			t.Fatalf("lookup %s = %q, want cyan", id, got)
		}
	}
	var doc struct {
		Identities map[string]json.RawMessage `json:"identities"`
	}
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Identities) != 2 {
		t.Fatalf("file holds %d identities, want 2", len(doc.Identities))
	}
}

func TestCapacityTiesBrokenByInsertionOrder(t *testing.T) {
	s := NewMemory(Options{Capacity: 2, Now: clockAt(5, 5, 5)})
	for _, id := range []string{"a", "b", "c"} {
		_ = s.Remember("x", id, "lime")
	}
	if s.Lookup("x", "a") != "" || s.Lookup("x", "b") != "lime" || s.Lookup("x", "c") != "lime" {
		t.Fatalf("tie should drop the earliest inserted entry")
	}
}

// Case 73: a corrupt file means every lookup returns none.
func TestCase073_CorruptFileLooksUpNothing(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"not-json":          "not-json",
		"array":             "[1,2]",
		"wrong version":     `{"version":2,"identities":{"` + Key("codex", "a") + `":{"accent":"cyan","last_used":1}}}`,
		"version as string": `{"version":"1","identities":{"` + Key("codex", "a") + `":{"accent":"cyan","last_used":1}}}`,
		"identities list":   `{"version":1,"identities":[]}`,
		"bad entry":         `{"version":1,"identities":{"` + Key("codex", "a") + `":{"accent":5,"last_used":1}}}`,
		"bad last_used":     `{"version":1,"identities":{"` + Key("codex", "a") + `":{"accent":"cyan","last_used":"1"}}}`,
		"missing last_used": `{"version":1,"identities":{"` + Key("codex", "a") + `":{"accent":"cyan"}}}`,
		"empty accent":      `{"version":1,"identities":{"` + Key("codex", "a") + `":{"accent":"","last_used":1}}}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := Open(path, Options{}).Lookup("codex", "a"); got != "" {
				t.Fatalf("lookup = %q, want none", got)
			}
		})
	}
	// A well-formed sibling entry survives a malformed one.
	path := filepath.Join(dir, "mixed.json")
	body := `{"version":1.0,"identities":{"` + Key("codex", "a") + `":{"accent":"teal","last_used":2.5},"` + Key("codex", "b") + `":"x"}}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(path, Options{})
	if s.Lookup("codex", "a") != "teal" || s.Lookup("codex", "b") != "" || s.Len() != 1 {
		t.Fatalf("mixed file: a=%q b=%q len=%d", s.Lookup("codex", "a"), s.Lookup("codex", "b"), s.Len())
	}
}

// Case 74: key derivation and the 0700 parent folder.
func TestCase074_KeyAndParentMode(t *testing.T) {
	const want = "0500ad38d366d7c1f7bc8f7e7e1b03a54410aa6385e15f10d1077c0038867dc2"
	if got := Key("codex", "abc"); got != want {
		t.Fatalf("Key = %s, want %s", got, want)
	}
	parent := filepath.Join(t.TempDir(), "deep", "pad-lattice")
	s := Open(filepath.Join(parent, FileName), Options{})
	if err := s.Remember("codex", "abc", "cyan"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(parent)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("parent mode = %o, want 700", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(filepath.Join(parent, FileName))
	if !bytes.Contains(data, []byte(want)) {
		t.Fatalf("file lacks the hashed key:\n%s", data)
	}
}

func TestFileFormatGolden(t *testing.T) {
	s := NewMemory(Options{Now: clockAt(1753038287.123, 1753038288)})
	_ = s.Remember("codex", "abc", "magenta")
	_ = s.Remember("codex", "zzz", "cyan")
	k1, k2 := Key("codex", "abc"), Key("codex", "zzz")
	if k2 < k1 {
		t.Fatalf("test assumes key order")
	}
	want := "{\n  \"identities\": {\n    \"" + k1 + "\": {\n      \"accent\": \"magenta\",\n      \"last_used\": 1753038287.123\n    },\n    \"" +
		k2 + "\": {\n      \"accent\": \"cyan\",\n      \"last_used\": 1753038288.0\n    }\n  },\n  \"version\": 1\n}\n"
	if got := string(s.Encode()); got != want {
		t.Fatalf("encoded:\n%s\nwant:\n%s", got, want)
	}
	empty := NewMemory(Options{})
	if got := string(empty.Encode()); got != "{\n  \"identities\": {},\n  \"version\": 1\n}\n" {
		t.Fatalf("empty encoded: %q", got)
	}
}

func TestRememberOverwritesAndSurvivesWriteFailure(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(filepath.Join(blocker, "sub", FileName), Options{})
	if err := s.Remember("codex", "a", "cyan"); err == nil {
		t.Fatalf("expected an error writing under a regular file")
	}
	if s.Lookup("codex", "a") != "cyan" {
		t.Fatalf("in-memory entry lost after a failed write")
	}
	_ = s.Remember("codex", "a", "lime")
	if s.Lookup("codex", "a") != "lime" || s.Len() != 1 {
		t.Fatalf("overwrite failed")
	}
}

func TestPyFloat(t *testing.T) {
	for in, want := range map[float64]string{
		1: "1.0", 1.5: "1.5", 1753038287.123: "1753038287.123", 0: "0.0",
		1e16: "1e+16", 1.5e-5: "1.5e-05", 0.0001: "0.0001", -2: "-2.0",
	} {
		if got := pyFloat(in); got != want {
			t.Errorf("pyFloat(%v) = %q, want %q", in, got, want)
		}
	}
}

// FuzzLoad feeds arbitrary bytes to the loader: it must never panic, and a
// loaded store must re-encode to a file that loads back to the same entries.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"version":1,"identities":{"k":{"accent":"cyan","last_used":1}}}`))
	f.Add([]byte(`not-json`))
	f.Add([]byte(`{"version":1,"identities":{"k":{"accent":"","last_used":-1e300}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		s := NewMemory(Options{})
		s.load(data)
		again := NewMemory(Options{})
		again.load(s.Encode())
		if again.Len() != s.Len() {
			t.Fatalf("round trip lost entries: %d → %d", s.Len(), again.Len())
		}
		for k, e := range s.entries {
			g, ok := again.entries[k]
			if !ok || g.accent != e.accent {
				t.Fatalf("entry %q changed on round trip", k)
			}
		}
	})
}
