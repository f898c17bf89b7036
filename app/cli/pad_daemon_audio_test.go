package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// TestPadDaemonAudioFeedback: --audio-feedback reports audio_feedback in
// status and plays the state earcons through the player (a script here);
// stopping the daemon deletes the sounds folder.
func TestPadDaemonAudioFeedback(t *testing.T) {
	e := newPadDaemonEnv(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	script := filepath.Join(dir, "paplay")
	if err := os.WriteFile(script, []byte(fmt.Sprintf("#!/bin/sh\necho \"$@\" >> %q\n", log)), 0o755); err != nil {
		t.Fatal(err)
	}
	e.env.AudioPlayer = []string{script}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- runPadDaemon(ctx, e.env, []string{"--audio-feedback"}) }()
	nc := e.dial(t, done)
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(nc)
	nc.Write([]byte(`{"protocol":1,"type":"state","state":"waiting_for_reply","reply":true}` + "\n" + `{"protocol":1,"type":"status"}` + "\n"))
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	status, err := r.ReadString('\n')
	if err != nil || !strings.Contains(status, `"audio_feedback":true`) {
		t.Fatalf("status: %q, %v", status, err)
	}
	// The question earcon of slot 0 plays.
	var wav string
	testutil.Eventually(t, "the player is called", func() bool {
		b, _ := os.ReadFile(log)
		wav = strings.TrimSpace(string(b))
		return wav != ""
	})
	if filepath.Base(wav) != "earcon-question-0.wav" {
		t.Fatalf("played %q, want earcon-question-0.wav", wav)
	}
	cancel()
	if err := testutil.Wait(t, "the daemon stops", done); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(wav)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the sounds folder is still there: %v", err)
	}
}

// TestPadDaemonAudioFeedbackWithoutPlayer: no player on PATH → a usage
// error (exit 2) with the spec's words, before anything listens.
func TestPadDaemonAudioFeedbackWithoutPlayer(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	e := newPadDaemonEnv(t)
	err := runPadDaemon(context.Background(), e.env, []string{"--audio-feedback"})
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "audio requested, but no supported player was found (pw-play, paplay, aplay, afplay, or ffplay)") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Lstat(e.socket); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket exists: %v", err)
	}
}
