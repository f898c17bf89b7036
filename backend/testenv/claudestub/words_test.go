package claudestub

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Point: with WordDelay the text streams one word per text_delta, spaced
// by the delay, and joins back to the whole text.
func TestWordDelayStreamsWordByWord(t *testing.T) {
	s := Start(t, Fixed(Turn{Text: "one two three four", WordDelay: 40 * time.Millisecond}))
	start := time.Now()
	evs := readSSE(t, post(t, s.URL()+"/v1/messages", mainRequest(true)).Body)
	took := time.Since(start)
	var words []string
	for _, e := range evs {
		if e.name != "content_block_delta" {
			continue
		}
		if d := e.data["delta"].(map[string]any); d["type"] == "text_delta" {
			words = append(words, d["text"].(string))
		}
	}
	if strings.Join(words, "|") != "one |two |three |four" {
		t.Errorf("deltas %q", words)
	}
	if took < 4*40*time.Millisecond {
		t.Errorf("the answer took %v, want at least 4 × 40 ms", took)
	}
}

// Point: a slow answer stops when the client goes away (as claude does on
// an interrupt), without waiting for the remaining words.
func TestWordDelayStopsWhenTheClientLeaves(t *testing.T) {
	logs := &syncLog{}
	gate := NewGate()
	s, err := Listen(slog.New(slog.NewTextHandler(logs, nil)), Fixed(Turn{Text: strings.Repeat("word ", 200), Gate: gate}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	body, _ := json.Marshal(mainRequest(true))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	deltas := 0
	gate.Release()
	for deltas < 3 && sc.Scan() {
		if strings.Contains(sc.Text(), `"text_delta"`) {
			deltas++
			// Word i arrived while word i+1 was held: streamed, not
			// buffered.
			gate.Release()
		}
	}
	cancel()
	// The handler, held at the gate for word 5, notices the client left:
	// it does not wait for the remaining words.
	testutil.Eventually(t, "the stub logs that the client left", func() bool { return strings.Contains(logs.String(), "the client left") })
	if deltas != 3 {
		t.Errorf("read %d deltas", deltas)
	}
}

type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
