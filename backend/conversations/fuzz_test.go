package conversations

import (
	"encoding/json"
	"testing"
)

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"id":"conv_01jabcdefghjkmnpqrstvwxyz0","claude_session_id":"0b9f2a34-5d6e-4f70-8a9b-0c1d2e3f4a5b","title":"x","dir":"/home/a/Lets","created":"2026-12-01T12:00:00Z","updated":"2026-12-01T12:00:00Z","transcript":[]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Decode(b)
		if err != nil {
			return
		}
		if !ValidID(c.ID) || c.Transcript == nil {
			t.Fatalf("decoded an invalid conversation: %+v", c)
		}
		// What decodes must encode and decode again to the same id.
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		c2, err := Decode(out)
		if err != nil || c2.ID != c.ID {
			t.Fatalf("round trip: %v", err)
		}
	})
}
