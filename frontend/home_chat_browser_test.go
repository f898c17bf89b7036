package frontend_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lets-app/lets/backend/conversations"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// pageChats is the app's conversations as the home page's host sees them.
type pageChats struct {
	mu      sync.Mutex
	list    []hostapi.ChatInfo
	opened  []string
	deleted []string
	folders []string // of each new conversation
}

func (p *pageChats) List() []hostapi.ChatInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]hostapi.ChatInfo(nil), p.list...)
}

func (p *pageChats) OpenNew(ctx context.Context, folder string) (hostapi.ChatOpened, error) {
	p.mu.Lock()
	p.folders = append(p.folders, folder)
	p.mu.Unlock()
	return p.Open(ctx, "")
}

func (p *pageChats) Open(ctx context.Context, id string) (hostapi.ChatOpened, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opened = append(p.opened, id)
	w := fmt.Sprintf("w%d", len(p.opened))
	if id == "" {
		id = fmt.Sprintf("conv_01kbe000000000000000000%03d", len(p.opened))
		p.list = append([]hostapi.ChatInfo{{ID: id, Title: "New conversation", Dir: "/home/ada/Lets", Updated: time.Now()}}, p.list...)
	}
	for i := range p.list {
		if p.list[i].ID == id {
			p.list[i].Window = w
			return hostapi.ChatOpened{Window: w}, nil
		}
	}
	return hostapi.ChatOpened{}, conversations.ErrNotFound
}

func (p *pageChats) Delete(id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, c := range p.list {
		if c.ID == id {
			p.list = append(p.list[:i], p.list[i+1:]...)
			p.deleted = append(p.deleted, id)
			return nil
		}
	}
	return conversations.ErrNotFound
}

func (p *pageChats) calls() (opened, deleted []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.opened...), append([]string(nil), p.deleted...)
}

const (
	gardenChat  = "conv_01kbd000000000000000garden"
	lettersChat = "conv_01kbd00000000000000letters"
)

func seededChats() *pageChats {
	now := time.Now()
	return &pageChats{list: []hostapi.ChatInfo{
		{ID: gardenChat, Title: "Plan the vegetable garden", Dir: "/home/ada/Lets", Updated: now.Add(-5 * time.Minute), Turns: 6},
		{ID: lettersChat, Title: "Letter to the council about the bus stop", Dir: "/home/ada/Letters", Updated: now.Add(-26 * time.Hour), Turns: 1},
	}}
}

// Point (issue #15): the home page's "Chat with Claude" card lists the
// conversations (title, last used, folder) and, from the keyboard, starts
// a new chat, continues one and deletes one after asking on the page;
// light and dark, reduced motion, every control named.
func TestBrowserHomeChatCard(t *testing.T) {
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			pc := seededChats()
			h := startHomeHost(t, host.Options{Chats: pc})
			ctx := browsertest.New(t, browsertest.Options{Width: 1000, Height: 900})
			var titles []string
			var meta, lead, bg string
			var unnamed []string
			err := chromedp.Run(ctx,
				emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{
					{Name: "prefers-color-scheme", Value: scheme}, {Name: "prefers-reduced-motion", Value: "reduce"}}),
				chromedp.Navigate(h.link(t)),
				chromedp.WaitVisible(`#chats li[data-chat="`+gardenChat+`"]`, chromedp.ByQuery),
				chromedp.Evaluate(`Array.from(document.querySelectorAll('#chats li strong')).map(s => s.textContent)`, &titles),
				chromedp.Text(`#chats li[data-chat="`+gardenChat+`"] .when`, &meta, chromedp.ByQuery),
				chromedp.Text(`#chat-lead`, &lead, chromedp.ByQuery),
				chromedp.Evaluate(`getComputedStyle(document.querySelector('#chat')).backgroundColor`, &bg),
				chromedp.Evaluate(`Array.from(document.querySelectorAll('#chat button')).filter(b => !(b.getAttribute('aria-label') || b.textContent).trim()).map(b => b.outerHTML)`, &unnamed),
			)
			if err != nil {
				t.Fatalf("home chat card: %v", err)
			}
			if strings.Join(titles, "|") != "Plan the vegetable garden|Letter to the council about the bus stop" {
				t.Errorf("conversations listed: %q", titles)
			}
			if meta != "last used 5 min ago · folder Lets · 6 messages" || !strings.Contains(lead, "asks you before") {
				t.Errorf("meta %q, lead %q", meta, lead)
			}
			if want := map[string]string{"light": "rgb(255, 255, 255)", "dark": "rgb(28, 29, 34)"}[scheme]; bg != want {
				t.Errorf("%s card background %s, want %s", scheme, bg, want)
			}
			if len(unnamed) > 0 {
				t.Errorf("chat controls without a name: %v", unnamed)
			}
			browsertest.Screenshot(t, ctx, "home-chat-"+scheme+".png")

			// A new chat, from the keyboard.
			var note string
			err = chromedp.Run(ctx,
				chromedp.Focus(`#chat-new`, chromedp.ByQuery),
				chromedp.KeyEvent("\r"),
				chromedp.WaitVisible(`#chat-note[data-state="ok"]`, chromedp.ByQuery),
				chromedp.Text(`#chat-note`, &note, chromedp.ByQuery),
				chromedp.WaitVisible(`#chats li:nth-child(3)`, chromedp.ByQuery),
			)
			if err != nil {
				t.Fatalf("new chat: %v", err)
			}
			if opened, _ := pc.calls(); len(opened) != 1 || opened[0] != "" || !strings.Contains(note, "own window") {
				t.Fatalf("new chat: Open calls %q, note %q", opened, note)
			}

			// Continue one, from the keyboard; the list then says it is open.
			var open string
			err = chromedp.Run(ctx,
				chromedp.Focus(`#chats li[data-chat="`+lettersChat+`"] button.continue`, chromedp.ByQuery),
				chromedp.KeyEvent("\r"),
				chromedp.WaitVisible(`#c-`+lettersChat+`-note[data-state="ok"]`, chromedp.ByQuery),
				chromedp.Poll(`document.querySelector('#chats li[data-chat="`+lettersChat+`"] .when').textContent.includes('open now')`, nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout)),
				chromedp.Text(`#chats li[data-chat="`+lettersChat+`"] .when`, &open, chromedp.ByQuery),
			)
			if err != nil {
				t.Fatalf("continue: %v", err)
			}
			if opened, _ := pc.calls(); len(opened) != 2 || opened[1] != lettersChat || !strings.Contains(open, "1 message") {
				t.Fatalf("continue: Open calls %q, meta %q", opened, open)
			}

			// Delete asks first, on the page; the second press deletes.
			var ask, focused string
			sel := `#chats li[data-chat="` + gardenChat + `"] button.delete`
			err = chromedp.Run(ctx,
				chromedp.Focus(sel, chromedp.ByQuery),
				chromedp.KeyEvent("\r"),
				chromedp.WaitVisible(`#c-`+gardenChat+`-note[data-state="ask"]`, chromedp.ByQuery),
				chromedp.Text(`#c-`+gardenChat+`-note`, &ask, chromedp.ByQuery),
			)
			if err != nil {
				t.Fatalf("delete (ask): %v", err)
			}
			if _, deleted := pc.calls(); len(deleted) != 0 || !strings.Contains(ask, "Delete “Plan the vegetable garden”?") || !strings.Contains(ask, "the folder Lets stay") {
				t.Fatalf("the first press deleted %v; the question reads %q", deleted, ask)
			}
			if scheme == "dark" {
				browsertest.Screenshot(t, ctx, "home-chat-delete-dark.png")
			}
			err = chromedp.Run(ctx,
				chromedp.Focus(sel, chromedp.ByQuery),
				chromedp.KeyEvent("\r"),
				chromedp.WaitNotPresent(`#chats li[data-chat="`+gardenChat+`"]`, chromedp.ByQuery),
				chromedp.Evaluate(`document.activeElement && (document.activeElement.dataset.focusKey || document.activeElement.tagName) || ""`, &focused),
			)
			if err != nil {
				t.Fatalf("delete: %v", err)
			}
			// The keyboard goes to the next chat's Continue (#26), never the body.
			if _, deleted := pc.calls(); len(deleted) != 1 || deleted[0] != gardenChat || focused != "chat-continue:"+lettersChat {
				t.Fatalf("deleted %v, focus on %q (want the next chat's Continue)", deleted, focused)
			}
		})
	}
}

// Point: a Lets without chat (nil Chats) shows the card saying so, with
// no button to press.
func TestBrowserHomeChatCardWhenChatIsNotAvailable(t *testing.T) {
	h := startHomeHost(t, host.Options{})
	ctx := browsertest.New(t, browsertest.Options{})
	var lead string
	var buttonShown bool
	err := chromedp.Run(ctx,
		chromedp.Navigate(h.link(t)),
		chromedp.WaitVisible(`#chat[data-available="no"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`li.unique[data-unique="hello"]`, chromedp.ByQuery),
		chromedp.Text(`#chat-lead`, &lead, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('chat-new').offsetParent !== null`, &buttonShown),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(lead, "not available") || buttonShown {
		t.Errorf("lead %q, new chat button shown %v", lead, buttonShown)
	}
}

// TestBrowserHomeNewChatInAFolder: "New chat in a folder…" shows the
// folders of the person's home, opens one and then another from the
// keyboard, goes up again, and starts the chat in the folder it shows; the
// chat gets that folder. Hidden folders are not offered; Escape closes the
// chooser and gives focus back to its button.
func TestBrowserHomeNewChatInAFolder(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{"Documents/Taxes 2026", "Pictures", ".secret"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pc := seededChats()
	h := startHomeHost(t, host.Options{Chats: pc, Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return os.Getenv(k)
	}})
	ctx := browsertest.New(t, browsertest.Options{Width: 1000, Height: 900})
	var offered []string
	var expanded string
	err := chromedp.Run(ctx,
		emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}),
		chromedp.Navigate(h.link(t)),
		chromedp.WaitVisible(`#chat-folder`, chromedp.ByQuery),
		chromedp.Focus(`#chat-folder`, chromedp.ByQuery),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`#folders button[data-path]`, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#folders button')).map(b => b.textContent)`, &offered),
		chromedp.AttributeValue(`#chat-folder`, "aria-expanded", &expanded, nil, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("the chooser: %v", err)
	}
	if strings.Join(offered, "|") != "Documents|Pictures" || expanded != "true" {
		t.Fatalf("offered %q (expanded %q), want Documents|Pictures", offered, expanded)
	}
	var active, shown string
	err = chromedp.Run(ctx,
		chromedp.Evaluate(`document.activeElement.id`, &active),
		// Into Documents (the first folder), from the keyboard.
		chromedp.Focus(`#folders button[aria-label="Open Documents"]`, chromedp.ByQuery),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`#folders button[aria-label="Open Taxes 2026"]`, chromedp.ByQuery),
		chromedp.ActionFunc(func(ctx context.Context) error {
			browsertest.Screenshot(t, ctx, "home-chat-folder-light.png")
			return nil
		}),
		emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}, {Name: "prefers-reduced-motion", Value: "reduce"}}),
		chromedp.ActionFunc(func(ctx context.Context) error {
			browsertest.Screenshot(t, ctx, "home-chat-folder-dark.png")
			return nil
		}),
		// Into Taxes 2026, which holds no folders.
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`#folders li.empty`, chromedp.ByQuery),
		chromedp.Text(`#folder-path`, &shown, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("opening folders: %v", err)
	}
	if active != "folder-title" {
		t.Errorf("focus went to %q on opening, want the chooser's heading", active)
	}
	want := filepath.Join(home, "Documents", "Taxes 2026")
	if real, err := filepath.EvalSymlinks(want); err == nil {
		want = real
	}
	// The place in words, not a full path (#26).
	if shown != "your home folder › Documents › Taxes 2026" {
		t.Fatalf("the chooser shows %q, want your home folder › Documents › Taxes 2026", shown)
	}
	// Up one folder and back in, then start there.
	var note string
	err = chromedp.Run(ctx,
		chromedp.Click(`#folder-up`, chromedp.ByQuery),
		chromedp.WaitVisible(`#folders button[aria-label="Open Taxes 2026"]`, chromedp.ByQuery),
		chromedp.Click(`#folders button[aria-label="Open Taxes 2026"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#folders li.empty`, chromedp.ByQuery),
		chromedp.Click(`#folder-start`, chromedp.ByQuery),
		chromedp.WaitVisible(`#chat-note[data-state="ok"]`, chromedp.ByQuery),
		chromedp.Text(`#chat-note`, &note, chromedp.ByQuery),
		chromedp.WaitNotVisible(`#folder-picker`, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("starting in the folder: %v", err)
	}
	pc.mu.Lock()
	folders := append([]string(nil), pc.folders...)
	pc.mu.Unlock()
	if len(folders) != 1 || folders[0] != want || !strings.Contains(note, "own window") {
		t.Fatalf("new chat folders %q (note %q), want [%s]", folders, note, want)
	}

	// Escape closes the chooser and focus goes back to its button.
	err = chromedp.Run(ctx,
		chromedp.Click(`#chat-folder`, chromedp.ByQuery),
		chromedp.WaitVisible(`#folders button`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Escape),
		chromedp.WaitNotVisible(`#folder-picker`, chromedp.ByQuery),
		chromedp.Evaluate(`document.activeElement.id`, &active),
	)
	if err != nil || active != "chat-folder" {
		t.Fatalf("Escape: %v, focus on %q", err, active)
	}
}
