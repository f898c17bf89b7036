package cli

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/config"
)

// #21 pair a phone: the pad page can switch phone access from the start
// of `lets serve`, however its admin page was opened (the terminal's
// link, `lets pad pair`), not only after a tray click installed the
// switch.
func TestServeLetsThePadPageSwitchPhoneAccessFromTheStart(t *testing.T) {
	e := newTestEnv(t)
	startServe(t, e)
	info, err := lets.ReadWebSurfaceInfo(config.Paths{Home: e.home})
	if err != nil {
		t.Fatalf("web-surface.json: %v", err)
	}
	u, err := url.Parse(info.AdminURL)
	if err != nil {
		t.Fatalf("admin URL %q: %v", info.AdminURL, err)
	}
	token := strings.TrimPrefix(u.Fragment, "admin=")
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+u.Host+"/ws", http.Header{"Origin": {"http://" + u.Host}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := ws.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{
		`{"protocol":1,"type":"authenticate","credential":"` + token + `"}`,
		`{"protocol":1,"type":"get_lan"}`,
	} {
		if err := ws.WriteMessage(websocket.TextMessage, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("no lan message from the pad page's server: %v", err)
		}
		var m struct {
			Type       string `json:"type"`
			Switchable bool   `json:"switchable"`
		}
		if json.Unmarshal(data, &m) != nil || m.Type != "lan" {
			continue
		}
		if !m.Switchable {
			t.Fatalf("the pad page cannot switch phone access at start: %s", data)
		}
		return
	}
}
