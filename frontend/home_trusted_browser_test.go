package frontend_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/trust"
)

// TestBrowserHomeRevokesTrustedFolders (issue #22): the home window lists
// the folders whose own Claude settings the person trusted, each with a
// labelled Revoke button; Enter on one takes the trust back (the list file
// forgets it, the page says so, the keyboard stays in the card); with no
// trusted folder the card is not shown. Light and dark.
func TestBrowserHomeRevokesTrustedFolders(t *testing.T) {
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			data := t.TempDir()
			st := trust.New(trust.Options{File: trust.File(config.Paths{Home: data})})
			root := t.TempDir()
			garden := filepath.Join(root, "garden")
			taxes := filepath.Join(root, "taxes")
			for _, d := range []string{garden, taxes} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if _, err := st.Add(d); err != nil {
					t.Fatal(err)
				}
			}
			h := startHomeHost(t, host.Options{DataDir: data})
			ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 900})
			var label, note, focused string
			var rows int
			err := chromedp.Run(ctx,
				browsertest.Media("prefers-color-scheme", scheme),
				chromedp.Navigate(h.link(t)),
				chromedp.WaitVisible(`#trusted button.revoke`, chromedp.ByQuery),
				chromedp.Evaluate(`document.querySelectorAll('#trusted-list li').length`, &rows),
				chromedp.Evaluate(`document.querySelector('#trusted-list li[data-trusted="`+garden+`"] button.revoke').getAttribute('aria-label')`, &label),
				chromedp.ScrollIntoView(`#trusted`, chromedp.ByQuery),
			)
			if err != nil {
				t.Fatalf("the trusted folders card: %v", err)
			}
			browsertest.Screenshot(t, ctx, "home-trusted-"+scheme+".png")
			if rows != 2 || label != "Stop trusting garden" {
				t.Fatalf("%d rows, Revoke labelled %q", rows, label)
			}
			err = chromedp.Run(ctx,
				chromedp.Focus(`#trusted-list li[data-trusted="`+garden+`"] button.revoke`, chromedp.ByQuery),
				chromedp.KeyEvent("\r"),
				chromedp.Poll(`document.getElementById('trusted-note').textContent.includes('no longer trusted')`, nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout)),
				chromedp.Poll(`document.querySelectorAll('#trusted-list li').length === 1`, nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout)),
				chromedp.Text(`#trusted-note`, &note, chromedp.ByQuery),
				chromedp.Evaluate(`document.activeElement.getAttribute('aria-label') || document.activeElement.id`, &focused),
			)
			if err != nil {
				t.Fatalf("revoke with the keyboard: %v", err)
			}
			if ok, _ := st.Trusted(garden); ok {
				t.Fatal("the page said it revoked garden, yet it is still trusted")
			}
			if ok, _ := st.Trusted(taxes); !ok {
				t.Fatal("revoking garden revoked taxes too")
			}
			if !strings.Contains(note, "garden is no longer trusted") || focused != "Stop trusting taxes" {
				t.Fatalf("after Revoke the note says %q and the focus is on %q", note, focused)
			}
		})
	}

	// Nothing trusted: no card.
	h := startHomeHost(t, host.Options{})
	ctx := browsertest.New(t, browsertest.Options{})
	var shown bool
	if err := chromedp.Run(ctx,
		chromedp.Navigate(h.link(t)),
		chromedp.WaitReady(`#trusted[data-loaded="yes"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('trusted').offsetParent !== null`, &shown),
	); err != nil {
		t.Fatal(err)
	}
	if shown {
		t.Error("the trusted folders card shows with no trusted folder")
	}
}
