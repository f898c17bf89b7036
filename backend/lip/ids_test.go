package lip

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

var idPattern = regexp.MustCompile(`^(ev|cm|ss|up)_[0-9A-HJKMNP-TV-Z]{26}$`)

func TestIDsHavePrefixesAndAreValid(t *testing.T) {
	g := NewIDs(nil)
	now := time.Now()
	for _, id := range []string{g.Event(now), g.Command(now), g.Session(now), g.Upload(now)} {
		if !idPattern.MatchString(id) || !ValidID(id) {
			t.Errorf("%q", id)
		}
	}
	if !strings.HasPrefix(g.Event(now), "ev_") || !strings.HasPrefix(g.Command(now), "cm_") ||
		!strings.HasPrefix(g.Session(now), "ss_") || !strings.HasPrefix(g.Upload(now), "up_") {
		t.Error("prefixes")
	}
}

func TestIDsMonotonicWithinAMillisecondAndWhenTheClockStepsBack(t *testing.T) {
	g := NewIDs(nil)
	t0 := time.UnixMilli(1_760_000_000_000)
	var ids []string
	for i := range 1000 {
		now := t0
		if i%100 == 50 {
			now = t0.Add(-time.Hour) // clock steps back
		}
		if i > 500 {
			now = t0.Add(time.Millisecond)
		}
		ids = append(ids, g.Event(now))
	}
	if !sort.StringsAreSorted(ids) {
		t.Fatal("ids not sorted by creation")
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("duplicate %s", id)
		}
		seen[id] = true
	}
	u := ulid.MustParse(strings.TrimPrefix(ids[0], "ev_"))
	if u.Time() != uint64(t0.UnixMilli()) {
		t.Errorf("time part %d", u.Time())
	}
}

func TestIDsDeterministicWithFixedEntropy(t *testing.T) {
	now := time.UnixMilli(42)
	a := NewIDs(bytes.NewReader(bytes.Repeat([]byte{7}, 64))).Event(now)
	b := NewIDs(bytes.NewReader(bytes.Repeat([]byte{7}, 64))).Event(now)
	if a != b {
		t.Fatalf("%s != %s", a, b)
	}
}

func TestIDsSurviveFailingEntropy(t *testing.T) {
	g := NewIDs(bytes.NewReader(nil)) // EOF at once
	id := g.Event(time.UnixMilli(1))
	if !idPattern.MatchString(id) {
		t.Fatalf("%q", id)
	}
	if id2 := g.Event(time.UnixMilli(1)); id2 <= id {
		t.Fatalf("not monotonic after fallback: %s then %s", id, id2)
	}
}

func TestIDsConcurrent(t *testing.T) {
	g := NewIDs(nil)
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				id := g.Command(time.UnixMilli(5))
				mu.Lock()
				if seen[id] {
					t.Errorf("duplicate %s", id)
				}
				seen[id] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
