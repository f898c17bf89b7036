package app

import (
	"net/http"
	"testing"
	"time"
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
