package host

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/conversations"
	"github.com/lets-app/lets/backend/hostapi"
)

// fakeChats is an in-memory Chats.
type fakeChats struct {
	mu      sync.Mutex
	list    []hostapi.ChatInfo
	opened  []string
	deleted []string
	folders []string
	openErr error
}

const (
	chatA = "conv_01kbd2x3y4z5a6b7c8d9e0f1g2"
	chatB = "conv_01kbd2x3y4z5a6b7c8d9e0f1g3"
)

func (f *fakeChats) List() []hostapi.ChatInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]hostapi.ChatInfo(nil), f.list...)
}

func (f *fakeChats) OpenNew(ctx context.Context, folder string) (hostapi.ChatOpened, error) {
	f.mu.Lock()
	f.folders = append(f.folders, folder)
	f.mu.Unlock()
	return f.Open(ctx, "")
}

func (f *fakeChats) Open(ctx context.Context, id string) (hostapi.ChatOpened, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opened = append(f.opened, id)
	if f.openErr != nil {
		return hostapi.ChatOpened{}, f.openErr
	}
	if id != "" && id != chatA && id != chatB {
		return hostapi.ChatOpened{}, conversations.ErrNotFound
	}
	return hostapi.ChatOpened{Window: fmt.Sprintf("w%d", len(f.opened))}, nil
}

func (f *fakeChats) Delete(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id != chatA && id != chatB {
		return conversations.ErrNotFound
	}
	f.deleted = append(f.deleted, id)
	return nil
}

func (f *fakeChats) calls() (opened, deleted []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.opened...), append([]string(nil), f.deleted...)
}

func chatErr(body map[string]any) (string, string) {
	e, _ := body["error"].(map[string]any)
	code, _ := e["code"].(string)
	msg, _ := e["message"].(string)
	return code, msg
}

// Point (issue #15): POST /app/chat with the host token opens a new
// conversation (empty body or {}) or a given one and answers its window;
// without the token it is 401 and nothing opens; a home token or a window
// token is not enough for this route.
func TestChatRouteOpensWithTheHostTokenOnly(t *testing.T) {
	fc := &fakeChats{}
	th := startLIPHost(t, func(o *Options) { o.Chats = fc })
	if code, _ := th.call(t, "POST", "/app/chat", "{}", ""); code != 401 {
		t.Fatalf("without a token: %d, want 401", code)
	}
	_, home := claimHome(t, th, homeKey(t, th))
	if code, _ := th.call(t, "POST", "/app/chat", "{}", home); code != 401 {
		t.Fatalf("with a home token: %d, want 401", code)
	}
	if opened, _ := fc.calls(); len(opened) != 0 {
		t.Fatalf("opened without the host token: %v", opened)
	}
	code, body := th.call(t, "POST", "/app/chat", nil, testHostToken)
	if code != 200 || body["window"] != "w1" {
		t.Fatalf("new chat (empty body): %d %v", code, body)
	}
	code, body = th.call(t, "POST", "/app/chat", map[string]string{"conversation": chatA}, testHostToken)
	if code != 200 || body["window"] != "w2" {
		t.Fatalf("continue %s: %d %v", chatA, code, body)
	}
	if opened, _ := fc.calls(); strings.Join(opened, ",") != ","+chatA {
		t.Fatalf("Open calls = %q, want new then %s", opened, chatA)
	}
}

// Point: a bad body or an id that is not a conversation id is 400 before
// the app is asked; an unknown conversation is 404; a failing open is 500
// with its words.
func TestChatRouteValidates(t *testing.T) {
	fc := &fakeChats{}
	th := startLIPHost(t, func(o *Options) { o.Chats = fc })
	for _, c := range []struct {
		body string
		want int
		code string
	}{
		{`[1]`, 400, "bad_envelope"},
		{`{"conversation": 5}`, 400, "bad_envelope"},
		{`{"conversation": "../../etc/passwd"}`, 400, "bad_conversation"},
		{`{"conversation": "conv_SHOUTING0000000000000000000"}`, 400, "bad_conversation"},
		{`{"conversation": "conv_01kbd2x3y4z5a6b7c8d9e0f1g9"}`, 404, "unknown_conversation"},
		{strings.Repeat(" ", 5000), 413, "too_large"},
		{`{"folder": "relative/dir"}`, 400, "bad_folder"},
		{`{"folder": "/tmp/x", "conversation": "conv_01kbd2x3y4z5a6b7c8d9e0f1g9"}`, 400, "bad_folder"},
	} {
		code, body := th.call(t, "POST", "/app/chat", c.body, testHostToken)
		if got, _ := chatErr(body); code != c.want || got != c.code {
			t.Errorf("%.40q: %d %v, want %d %s", c.body, code, body, c.want, c.code)
		}
	}
	if opened, _ := fc.calls(); len(opened) != 1 || opened[0] != "conv_01kbd2x3y4z5a6b7c8d9e0f1g9" {
		t.Fatalf("only the well-formed id may reach the app: %v", opened)
	}
	// A new conversation may name its working folder.
	if code, body := th.call(t, "POST", "/app/chat", `{"folder": "/home/ada/projects/garden"}`, testHostToken); code != 200 {
		t.Fatalf("open with a folder: %d %v", code, body)
	}
	fc.mu.Lock()
	if len(fc.folders) != 1 || fc.folders[0] != "/home/ada/projects/garden" {
		t.Errorf("folders reaching the app: %v", fc.folders)
	}
	fc.mu.Unlock()
	fc.mu.Lock()
	fc.openErr = errors.New("claude would not start")
	fc.mu.Unlock()
	code, body := th.call(t, "POST", "/app/chat", "{}", testHostToken)
	if c, msg := chatErr(body); code != 500 || c != "chat_failed" || !strings.Contains(msg, "claude would not start") {
		t.Fatalf("failing open: %d %v", code, body)
	}
}

// Point: a Lets without chat (nil Chats) answers 501 on every chat route
// and its overview says chat is not available with an empty list.
func TestChatRoutesWithoutChatsSayItIsNotAvailable(t *testing.T) {
	th := startLIPHost(t)
	_, home := claimHome(t, th, homeKey(t, th))
	for _, r := range []struct{ method, path, tok string }{
		{"POST", "/app/chat", testHostToken},
		{"POST", "/home/api/chat", home},
		{"DELETE", "/home/api/chat/" + chatA, home},
	} {
		code, body := th.call(t, r.method, r.path, "{}", r.tok)
		if c, msg := chatErr(body); code != 501 || c != "no_chat" || !strings.Contains(msg, "not available") {
			t.Errorf("%s %s: %d %v, want 501 no_chat", r.method, r.path, code, body)
		}
	}
	code, body := th.call(t, "GET", "/home/api/overview", nil, home)
	chat, _ := body["chat"].(map[string]any)
	list, isList := chat["list"].([]any)
	if code != 200 || chat["available"] != false || !isList || len(list) != 0 {
		t.Fatalf("overview chat without Chats: %d %v", code, body["chat"])
	}
}

// Point: the home API lists the conversations in the overview, opens one
// (or a new one) and deletes one, with the home token; no token is 401, a
// window token 403; a bad id is 400 and an unknown one 404.
func TestHomeChatListOpenDelete(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	fc := &fakeChats{list: []hostapi.ChatInfo{
		{ID: chatB, Title: "Plan the garden", Dir: "/home/ada/Lets", Updated: at, Turns: 4, Window: "w9"},
		{ID: chatA, Title: "Letters", Dir: "/home/ada/Letters", Updated: at.Add(-time.Hour), Turns: 2},
	}}
	th := startLIPHost(t, func(o *Options) { o.Chats = fc })
	_, home := claimHome(t, th, homeKey(t, th))

	code, body := th.call(t, "GET", "/home/api/overview", nil, home)
	chat, _ := body["chat"].(map[string]any)
	list, _ := chat["list"].([]any)
	if code != 200 || chat["available"] != true || len(list) != 2 {
		t.Fatalf("overview chat: %d %v", code, body["chat"])
	}
	first, _ := list[0].(map[string]any)
	if first["id"] != chatB || first["title"] != "Plan the garden" || first["dir"] != "/home/ada/Lets" ||
		first["updated"] != "2026-12-01T09:30:00Z" || first["turns"] != float64(4) || first["window"] != "w9" {
		t.Fatalf("first conversation: %v", first)
	}
	if second, _ := list[1].(map[string]any); second["window"] != nil {
		t.Fatalf("a closed conversation has no window field: %v", second)
	}

	if code, _ := th.call(t, "POST", "/home/api/chat", "{}", ""); code != 401 {
		t.Fatalf("open without a token: %d", code)
	}
	if code, _ := th.call(t, "DELETE", "/home/api/chat/"+chatA, nil, ""); code != 401 {
		t.Fatalf("delete without a token: %d", code)
	}
	code, body = th.call(t, "POST", "/home/api/chat", "", home)
	if code != 200 || body["window"] != "w1" {
		t.Fatalf("new chat from home: %d %v", code, body)
	}
	code, body = th.call(t, "POST", "/home/api/chat", map[string]string{"conversation": chatB}, home)
	if code != 200 || body["window"] != "w2" {
		t.Fatalf("continue from home: %d %v", code, body)
	}
	if code, body := th.call(t, "DELETE", "/home/api/chat/not-an-id", nil, home); code != 400 {
		t.Fatalf("delete a bad id: %d %v", code, body)
	}
	if code, body := th.call(t, "DELETE", "/home/api/chat/conv_01kbd2x3y4z5a6b7c8d9e0f1g9", nil, home); code != 404 {
		t.Fatalf("delete an unknown id: %d %v", code, body)
	}
	code, body = th.call(t, "DELETE", "/home/api/chat/"+chatA, nil, home)
	if code != 200 || body["deleted"] != chatA {
		t.Fatalf("delete: %d %v", code, body)
	}
	if _, deleted := fc.calls(); strings.Join(deleted, ",") != chatA {
		t.Fatalf("Delete calls = %v", deleted)
	}
}

// Point: the overview lists at most maxHomeChats conversations.
func TestHomeChatListIsBounded(t *testing.T) {
	fc := &fakeChats{}
	for i := range maxHomeChats + 7 {
		fc.list = append(fc.list, hostapi.ChatInfo{ID: fmt.Sprintf("conv_%026d", i), Title: "t", Turns: 1})
	}
	th := startLIPHost(t, func(o *Options) { o.Chats = fc })
	_, body := th.call(t, "GET", "/home/api/overview", nil, testHostToken)
	chat, _ := body["chat"].(map[string]any)
	if list, _ := chat["list"].([]any); len(list) != maxHomeChats {
		t.Fatalf("listed %d conversations, want %d", len(list), maxHomeChats)
	}
}

// Point (issue #26): the home page does not pile up empty chats: a
// conversation closed before anything was said is not listed; one that is
// open (the person may be about to write) and every one with messages are.
func TestHomeChatListLeavesOutClosedEmptyChats(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	fc := &fakeChats{list: []hostapi.ChatInfo{
		{ID: "conv_01kbd2x3y4z5a6b7c8d9e0f1g4", Title: "New conversation", Updated: at, Turns: 0, Window: "w3"},
		{ID: "conv_01kbd2x3y4z5a6b7c8d9e0f1g5", Title: "New conversation", Updated: at, Turns: 0},
		{ID: chatB, Title: "Plan the garden", Updated: at, Turns: 4},
		{ID: "conv_01kbd2x3y4z5a6b7c8d9e0f1g6", Title: "New conversation", Updated: at, Turns: 0},
		{ID: chatA, Title: "Letters", Updated: at, Turns: 1},
	}}
	th := startLIPHost(t, func(o *Options) { o.Chats = fc })
	_, body := th.call(t, "GET", "/home/api/overview", nil, testHostToken)
	chat, _ := body["chat"].(map[string]any)
	list, _ := chat["list"].([]any)
	var ids []string
	for _, c := range list {
		m, _ := c.(map[string]any)
		id, _ := m["id"].(string)
		ids = append(ids, id)
	}
	want := "conv_01kbd2x3y4z5a6b7c8d9e0f1g4," + chatB + "," + chatA
	if strings.Join(ids, ",") != want {
		t.Fatalf("listed %v, want %s", ids, want)
	}
}
