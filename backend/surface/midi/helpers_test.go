package midi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/lets-app/lets/backend/testenv/conformance"
)

var profileIDs = []string{"novation/launchpad/mini-mk3", "novation/launchpad/pro-mk1", "novation/launchpad/pro-mk3"}

func builtin(t testing.TB, id string) *Profile {
	t.Helper()
	ps, err := BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("no built-in profile %s", id)
	return nil
}

func builtinRaw(t testing.TB, id string) []byte {
	t.Helper()
	data, err := builtinFS.ReadFile("profiles/" + id + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// reference loads the reference copy of a bundled profile (test data only).
func reference(t testing.TB, id string) *Profile {
	t.Helper()
	path := conformance.File(t, "device_profiles/"+id+".json")
	p, err := LoadProfileFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// mutate decodes profile JSON, applies f and re-encodes it.
func mutate(t testing.TB, data []byte, f func(m map[string]any)) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sub(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m = m[k].(map[string]any)
	}
	return m
}

// recorder is a Sender that records every message.
type recorder struct {
	mu   sync.Mutex
	msgs [][]byte
	fail error
}

func (r *recorder) Send(b []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.msgs = append(r.msgs, append([]byte(nil), b...))
	return nil
}

func (r *recorder) take() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.msgs
	r.msgs = nil
	return m
}

func hexAll(msgs [][]byte) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = hexMsg(m)
	}
	return out
}

func hexMsg(m []byte) string {
	parts := make([]string, len(m))
	for i, b := range m {
		parts[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(parts, " ")
}

// parseHexList parses "90 51 00, 90 52 03, …".
func parseHexList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.Join(strings.Fields(p), " ")
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sortedCopy(a []string) []string {
	b := append([]string(nil), a...)
	sort.Strings(b)
	return b
}

func writeTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := t.TempDir() + "/" + name
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
