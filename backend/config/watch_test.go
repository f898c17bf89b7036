package config

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// writeConfig replaces the file and moves its modification time forward,
// so a change is visible even on file systems with coarse timestamps.
func writeConfig(t *testing.T, p, text string, step int) {
	t.Helper()
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(time.Duration(step) * time.Second)
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
}

// Issue #10: config is loaded once and consumers are told when it changes.
func TestWatcherLoadsOnceAndNotifiesOnChange(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.json")
	writeConfig(t, p, `{"handoff":"close"}`, 0)
	w := Watch(p, WatchOptions{})
	if w.Err() != nil || w.Config().Handoff != "close" {
		t.Fatalf("first load: %+v %v", w.Config(), w.Err())
	}
	var got []string
	cancel := w.OnChange(func(c Config) { got = append(got, c.Handoff) })

	// The settings come from memory: changing the file changes nothing
	// until the watcher looks.
	writeConfig(t, p, `{"handoff":"stay"}`, 1)
	if w.Config().Handoff != "close" {
		t.Fatal("Config must not read the file")
	}
	w.Poll()
	if w.Config().Handoff != "stay" || len(got) != 1 || got[0] != "stay" {
		t.Fatalf("after a change: %q, notified %v", w.Config().Handoff, got)
	}
	w.Poll() // nothing changed: no notification
	if len(got) != 1 {
		t.Fatalf("notified without a change: %v", got)
	}

	// A broken file keeps the last good settings.
	writeConfig(t, p, `{"handoff":`, 2)
	if changed, err := w.Reload(); changed || err == nil {
		t.Fatalf("broken file: changed %v err %v", changed, err)
	}
	if w.Config().Handoff != "stay" {
		t.Fatal("a broken file must keep the settings in use")
	}
	// Rewriting the same settings is no change.
	writeConfig(t, p, `{"handoff": "stay"}`, 3)
	w.Poll()
	if len(got) != 1 {
		t.Fatalf("same settings notified: %v", got)
	}
	cancel()
	writeConfig(t, p, `{"handoff":"close"}`, 4)
	w.Poll()
	if len(got) != 1 || w.Config().Handoff != "close" {
		t.Fatalf("after cancel: %v, %q", got, w.Config().Handoff)
	}
	// A removed file means the defaults again.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, p+".x", "", 0)
	w.Poll()
	if w.Config().Handoff != "close" || w.Config().Web.Port != DefaultWebPort {
		t.Fatalf("removed file: %+v", w.Config())
	}
}

// The watcher's own loop picks up a change without being asked, at its
// next look on its clock.
func TestWatcherRunPollsTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.json")
	writeConfig(t, p, `{"wire":{"midi":true}}`, 0)
	clk := clock.NewFake(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	w := Watch(p, WatchOptions{Interval: 10 * time.Millisecond, Clock: clk})
	changed := make(chan Config, 4)
	w.OnChange(func(c Config) { changed <- c })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	wait, stop := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
	defer stop()
	if err := clk.BlockUntil(wait, 1); err != nil {
		t.Fatalf("Run armed no ticker: %v", err)
	}
	writeConfig(t, p, `{"wire":{"midi":false}}`, 1)
	select {
	case c := <-changed:
		t.Fatalf("reloaded (%+v) before its next look", c.Wire)
	default:
	}
	clk.Advance(10 * time.Millisecond)
	if c := testutil.Wait(t, "the watcher to notice the change", changed); c.Wire.MIDI {
		t.Fatalf("got %+v", c.Wire)
	}
	cancel()
	if err := testutil.Wait(t, "Run to stop", done); err != nil {
		t.Fatal(err)
	}
}
