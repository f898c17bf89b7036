package host

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/trust"
)

// withHome makes the host's HOME the given folder.
func withHome(home string) func(o *Options) {
	return func(o *Options) {
		o.Getenv = func(k string) string {
			if k == "HOME" {
				return home
			}
			return os.Getenv(k)
		}
	}
}

// Point (issue #22): POST /home/api/chat accepts only a folder the home
// page's chooser can offer — an existing folder inside the home folder,
// links resolved — and answers 400 bad_folder for /etc, a link out of
// home, a missing folder or a file; the folder reaching the app is the
// resolved one. POST /app/chat (`lets chat --folder`, host token) stays
// free.
func TestHomeChatOnlyInFoldersTheChooserOffers(t *testing.T) {
	home, outside := folderTree(t)
	fc := &fakeChats{}
	th := startLIPHost(t, func(o *Options) { o.Chats = fc; withHome(home)(o) })
	_, tok := claimHome(t, th, homeKey(t, th))
	for _, folder := range []string{
		"/etc",
		outside,
		filepath.Join(home, "escape"), // a link out of home
		filepath.Join(home, "escape", "..", "home"),
		filepath.Join(home, "nope"),
		filepath.Join(home, "notes.txt"),
		"relative",
	} {
		code, body := th.call(t, "POST", "/home/api/chat", map[string]string{"folder": folder}, tok)
		if c, msg := chatErr(body); code != 400 || c != "bad_folder" || msg == "" {
			t.Errorf("%s: %d %v, want 400 bad_folder", folder, code, body)
		}
	}
	if opened, _ := fc.calls(); len(opened) != 0 {
		t.Fatalf("a refused folder reached the app: %v", fc.folders)
	}
	for _, folder := range []string{home, filepath.Join(home, "Projects", "taxes"), filepath.Join(home, "work")} {
		if code, body := th.call(t, "POST", "/home/api/chat", map[string]string{"folder": folder}, tok); code != 200 {
			t.Errorf("%s: %d %v, want 200", folder, code, body)
		}
	}
	// The terminal's route takes any folder.
	if code, body := th.call(t, "POST", "/app/chat", map[string]string{"folder": "/etc"}, testHostToken); code != 200 {
		t.Fatalf("lets chat --folder /etc: %d %v", code, body)
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	want := []string{home, filepath.Join(home, "Projects", "taxes"), filepath.Join(home, "Projects"), "/etc"}
	if len(fc.folders) != len(want) {
		t.Fatalf("folders reaching the app %v, want %v", fc.folders, want)
	}
	for i := range want {
		if fc.folders[i] != want[i] {
			t.Fatalf("folders reaching the app %v, want %v (links resolved)", fc.folders, want)
		}
	}
}

// Point (issue #22): the home window lists the trusted folders and
// revokes one, with the home token (not a window's).
func TestHomeTrustedListAndRevoke(t *testing.T) {
	th := startLIPHost(t)
	st := trust.New(trust.Options{File: trust.File(config.Paths{Home: th.home})})
	a := t.TempDir()
	b := t.TempDir()
	for _, d := range []string{a, b} {
		if _, err := st.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	_, tok := claimHome(t, th, homeKey(t, th))
	if code, _ := th.call(t, "GET", TrustedRoute, nil, ""); code != 401 {
		t.Fatalf("list without a token: %d", code)
	}
	if code, _ := th.call(t, "DELETE", TrustedRoute, map[string]string{"path": a}, ""); code != 401 {
		t.Fatalf("revoke without a token: %d", code)
	}
	win := th.openBound(t, "board", "1")
	if code, _ := th.call(t, "DELETE", TrustedRoute, map[string]string{"path": a}, win.Token); code != 403 {
		t.Fatalf("revoke with a window token: %d", code)
	}
	code, body := th.call(t, "GET", TrustedRoute, nil, tok)
	folders, _ := body["folders"].([]any)
	if code != 200 || len(folders) != 2 {
		t.Fatalf("list: %d %v", code, body)
	}
	if f, _ := folders[0].(map[string]any); f["path"] == "" || f["trusted"] == "" {
		t.Fatalf("a listed folder: %v", f)
	}
	code, body = th.call(t, "DELETE", TrustedRoute, map[string]string{"path": a}, tok)
	if code != 200 || body["revoked"] != a {
		t.Fatalf("revoke: %d %v", code, body)
	}
	if ok, _ := st.Trusted(a); ok {
		t.Fatal("the revoked folder is still trusted")
	}
	if ok, _ := st.Trusted(b); !ok {
		t.Fatal("the other folder was revoked too")
	}
	if code, body := th.call(t, "DELETE", TrustedRoute, map[string]string{"path": a}, tok); code != 404 {
		t.Fatalf("revoke twice: %d %v", code, body)
	}
	for _, bad := range []string{`{}`, `[1]`, `{"path": "relative"}`} {
		if code, body := th.call(t, "DELETE", TrustedRoute, bad, tok); code != 400 {
			t.Errorf("revoke %s: %d %v", bad, code, body)
		}
	}
}
