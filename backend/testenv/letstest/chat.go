package letstest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/chatdriver"
	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/conversations"
)

// FakeAgent is a Claude Code stand-in that only records how it was
// started and ends when closed.
type FakeAgent struct {
	// Opts is how the chat started it.
	Opts   chatdriver.AgentOptions
	events chan chatdriver.Event
	done   chan struct{}
	once   sync.Once
}

func (a *FakeAgent) Send(context.Context, []chatdriver.Block) error { return nil }

func (a *FakeAgent) Interrupt(context.Context) error { return nil }

func (a *FakeAgent) AnswerPermission(string, bool, json.RawMessage, string) error {
	return nil
}

func (a *FakeAgent) Events() <-chan chatdriver.Event { return a.events }

func (a *FakeAgent) PID() int { return 0 }

func (a *FakeAgent) SessionID() string { return a.Opts.SessionID }

func (a *FakeAgent) Done() <-chan struct{} { return a.done }

func (a *FakeAgent) Close() error {
	a.once.Do(func() { close(a.done) })
	return nil
}

// ChatAgents hands every started fake agent to the test.
type ChatAgents struct{ Started chan *FakeAgent }

// Start is an Env.ChatStart.
func (c *ChatAgents) Start(ctx context.Context, o chatdriver.AgentOptions) (chatdriver.Agent, error) {
	a := &FakeAgent{Opts: o, events: make(chan chatdriver.Event), done: make(chan struct{})}
	c.Started <- a
	return a, nil
}

// SeedChats writes conversations into the data folder home the way the
// chat manager does, and returns their ids.
func SeedChats(t *testing.T, home string, titles ...string) []string {
	t.Helper()
	at := time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)
	var ids []string
	for i, title := range titles {
		now := at.Add(time.Duration(i) * time.Hour)
		s := conversations.New(conversations.Options{Root: filepath.Join(home, "conversations"), DefaultDir: "/home/ada/Lets", Clock: clock.NewFake(now)})
		c, err := s.Create(conversations.CreateOptions{Title: title})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(c.ID, conversations.Turn{Role: conversations.RoleHuman, Text: "hello", At: now}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	return ids
}
