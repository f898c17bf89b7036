package cli

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// checkOneTimeAdminLink visits the link the desktop opener got, as a
// browser would: the first visit redirects to the admin page with the
// token in the fragment (which never goes over HTTP), the second is
// refused with a page.
func checkOneTimeAdminLink(t *testing.T, link, adminToken string) {
	t.Helper()
	client := &http.Client{
		Timeout:       5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/#admin="+adminToken {
		t.Fatalf("first visit of the one-time link: %s, Location %q; want 303 to /#admin=<token>", resp.Status, resp.Header.Get("Location"))
	}
	resp, err = client.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGone || resp.Header.Get("Location") != "" {
		t.Fatalf("second visit of the one-time link: %s; want 410 with a page", resp.Status)
	}
}

// Issue #10, the same for `lets pad demo --surface web`: the opener gets a
// one-time link, never the admin token printed in the terminal.
func TestPadDemoOpensOneTimeAdminLink(t *testing.T) {
	e := newPadDaemonEnv(t)
	var mu sync.Mutex
	var opened []string
	e.env.OpenURL = func(u string) error {
		mu.Lock()
		defer mu.Unlock()
		opened = append(opened, u)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- runPadExperience(ctx, e.env, "demo", []string{"--surface", "web", "--port", "0"}) }()
	waitOutput(t, e, done, "Press ")
	m := regexp.MustCompile(`Local admin: http://127\.0\.0\.1:(\d+)/#admin=([A-Za-z0-9_-]{43})\n`).FindStringSubmatch(e.stdout.String())
	if m == nil {
		t.Fatalf("no admin line:\n%s", e.stdout.String())
	}
	mu.Lock()
	got := slices.Clone(opened)
	mu.Unlock()
	if len(got) != 1 || strings.Contains(got[0], m[2]) || !strings.HasPrefix(got[0], "http://127.0.0.1:"+m[1]+"/admin/open/") {
		t.Fatalf("opened %v: want one one-time link on port %s without the admin token", got, m[1])
	}
	checkOneTimeAdminLink(t, got[0], m[2])
	cancel()
	testutil.Wait(t, "pad demo stops", done)
}
