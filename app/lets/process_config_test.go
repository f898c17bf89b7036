package lets

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/config"
)

// Issue #10: a change of config.json while serve runs is announced: what
// applies at once, what needs a restart, and new unknown keys.
func TestConfigChangesAreAnnounced(t *testing.T) {
	var buf strings.Builder
	log := slog.New(slog.NewTextHandler(&buf, nil))
	prev := config.Defaults()
	next := config.Defaults()
	next.Handoff = "stay"
	next.Wire.Unknown = map[string]json.RawMessage{"midi_profil": json.RawMessage(`"x"`)}
	noteConfigChange(log, "/home/ada/.lets/config.json", prev, next)
	out := buf.String()
	for _, want := range []string{"handoff=stay", "restart Lets", "wire.midi_profil", "wire.midi_profile", "/home/ada/.lets/config.json"} {
		if !strings.Contains(out, want) {
			t.Errorf("change notes should contain %q:\n%s", want, out)
		}
	}
	buf.Reset()
	same := config.Defaults()
	same.Handoff = "stay"
	noteConfigChange(log, "config.json", next, same)
	if strings.Contains(buf.String(), "handoff") {
		t.Errorf("an unchanged handoff was announced:\n%s", buf.String())
	}
	// #21: phone access (web.lan) is switched live from the pad page,
	// which writes it to config.json; no "restart" for that one.
	buf.Reset()
	lan := same
	lan.Web.LAN = true
	noteConfigChange(log, "config.json", same, lan)
	if strings.Contains(buf.String(), "restart") {
		t.Errorf("switching phone access live asked for a restart:\n%s", buf.String())
	}
}
