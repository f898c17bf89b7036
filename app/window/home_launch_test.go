package window

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestHomeLaunchOnlyOnHostOrigin (#12 home window): the home window's
// launch check takes the host's own home link (its origin, the root path,
// a key in the fragment) and refuses every other page, port, host or
// scheme; a plain window launch still refuses the home page.
func TestHomeLaunchOnlyOnHostOrigin(t *testing.T) {
	const host = "http://127.0.0.1:4710"
	l, err := HomeLaunch(host+"/#k=abc123", host)
	if err != nil {
		t.Fatalf("the host's own home link was refused: %v", err)
	}
	if !l.Home || l.Window != HomeWindow || l.Unique != HomeWindow || l.title() != "Lets" {
		t.Fatalf("home launch = %+v, want the home window titled Lets", l)
	}
	if w, h := l.size(); w != HomeWidth || h != HomeHeight {
		t.Fatalf("home window size %dx%d, want %dx%d", w, h, HomeWidth, HomeHeight)
	}
	// It survives the trip over stdin.
	b, err := l.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadLaunch(bytes.NewReader(b))
	if err != nil || !got.Home || got.URL != l.URL {
		t.Fatalf("ReadLaunch(home) = %+v, %v", got, err)
	}

	for _, link := range []string{
		"http://127.0.0.1:4711/#k=abc123",      // another port
		"http://localhost:4710/#k=abc123",      // another host name
		"https://127.0.0.1:4710/#k=abc123",     // another scheme
		"http://10.0.0.1:4710/#k=abc123",       // not this machine
		"http://127.0.0.1:4710/w/x/#k=abc123",  // not the root path
		"http://127.0.0.1:4710/admin#k=abc123", // not the root path
		"http://127.0.0.1:4710/?x=1#k=abc123",  // a query
		"http://127.0.0.1:4710/",               // no key
		"http://127.0.0.1:4710/#k=",            // empty key
		"http://127.0.0.1:4710/#t=abc",         // not a key
		"http://u:p@127.0.0.1:4710/#k=abc123",  // credentials
		"javascript:alert(1)",
	} {
		if _, err := HomeLaunch(link, host); !errors.Is(err, ErrBadLaunch) {
			t.Errorf("HomeLaunch(%q) = %v, want ErrBadLaunch", link, err)
		}
	}

	// The window process checks again what it reads: a home launch for a
	// foreign page, and a shell launch for the home page, are refused.
	for _, line := range []string{
		`{"window":"_home","url":"http://example.com/#k=abc","home":true}`,
		`{"window":"_home","url":"http://127.0.0.1:4710/w/x/","home":true}`,
		`{"window":"w1","url":"http://127.0.0.1:4710/#k=abc"}`,
	} {
		if _, err := ReadLaunch(strings.NewReader(line + "\n")); !errors.Is(err, ErrBadLaunch) {
			t.Errorf("ReadLaunch(%s) = %v, want ErrBadLaunch", line, err)
		}
	}
}
