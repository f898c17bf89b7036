package midi

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/visual"
)

// FuzzParseInput: any byte stream (garbage SysEx, clock, running status,
// short messages) parses without panicking, in bounded memory, and the
// chunking of a stream never changes its messages.
func FuzzParseInput(f *testing.F) {
	f.Add([]byte{0xB0, 91, 127, 79, 127, 69, 0})
	f.Add([]byte{0xF0, 1, 2, 0xF8, 3, 0xF7, 0x90, 81, 100})
	f.Add([]byte{0x90, 0xF8, 81, 0xFE, 100, 82})
	f.Add([]byte{0x90})
	f.Add([]byte{0xC0, 5, 6, 0xF1, 3, 0xB0, 91})
	f.Add([]byte{0xF0, 0xF0, 0xF7, 0xF7, 127, 0x80})
	p := builtin(f, "novation/launchpad/pro-mk1")
	f.Fuzz(func(t *testing.T, data []byte) {
		whole := ParseInput(data)
		var ip InputParser
		var split []Message
		for i := 0; i < len(data); i += 3 {
			split = append(split, ip.Feed(data[i:min(i+3, len(data))])...)
		}
		if len(whole) != len(split) {
			t.Fatalf("chunking changed the message count: %d vs %d", len(whole), len(split))
		}
		g := NewGrid(p, &recorder{})
		for i, m := range whole {
			if m != split[i] {
				t.Fatalf("message %d differs", i)
			}
			if m.Status < 0x80 || m.Status >= 0xF0 || m.Data1 > 127 || m.Data2 > 127 {
				t.Fatalf("bad message %+v", m)
			}
			if e, ok := g.EventFor(m); ok && e.Action == "" && (e.Slot < 0 || e.Slot >= 8) {
				t.Fatalf("slot %d", e.Slot)
			}
		}
	})
}

// FuzzParseProfile: any document parses or fails with a ProfileError; a
// profile that parses renders a frame and a Show frame without error.
// Inputs are kept small so the fuzzer's minimizer stays fast: field is a
// dotted path into the Pro Mk1 profile whose value is replaced by the
// JSON in value ("" = value is the whole document).
func FuzzParseProfile(f *testing.F) {
	base := builtinRaw(f, "novation/launchpad/pro-mk1")
	f.Add("", []byte(`{"schema_version":1,"visual_protocol":1,"id":"a/b/c"}`))
	f.Add("", []byte(`{"schema_version":1.0}`))
	f.Add("", []byte(`[]`))
	f.Add("driver", []byte(`"third-party"`))
	f.Add("ports.input", []byte(`["(?:A|B).*MIDI(?!.*(?:DAW|DIN))", "x{2,3}?\\d"]`))
	f.Add("grid.rows.0", []byte(`[81,81,83,84,85,86,87,88]`))
	f.Add("surface.actions.approve", []byte(`{"kind":"note","number":71}`))
	f.Add("capabilities.show_rgb", []byte(`{"sysex_prefix":[0],"channel_max":127,"batch_size":1}`))
	f.Add("messages.startup", []byte(`[{"type":"cc","number":1,"value":2,"channel":15}]`))
	f.Add("accents", []byte(`[{"name":"cyan","selected":1,"unselected":2}]`))
	f.Fuzz(func(t *testing.T, field string, value []byte) {
		if len(value) > 4096 || len(field) > 64 {
			return
		}
		data := value
		if field != "" {
			var v any
			if json.Unmarshal(value, &v) != nil {
				return
			}
			data = mutate(t, base, func(m map[string]any) { setPath(m, strings.Split(field, "."), v) })
		}
		p, err := ParseProfile(data, "fuzz.json")
		if err != nil {
			if !IsProfileError(err) {
				t.Fatalf("not a ProfileError: %v", err)
			}
			return
		}
		for _, m := range p.InputMatchers() {
			m.MatchString("Launchpad Pro Standalone Port 20:1")
		}
		g := NewGrid(p, &recorder{})
		v := visual.View{Selected: "running", Sessions: []visual.Indicator{{Slot: 0, State: "running", Selected: true, Accent: "cyan"}}}
		if err := g.RenderView(v); err != nil {
			t.Fatalf("a valid profile cannot render: %v", err)
		}
		o, _ := visual.NewShowColor("off", 1, 2, 3)
		if err := g.RenderShowFrame(showFrame(o, o, o)); err != nil {
			t.Fatalf("a valid profile cannot show: %v", err)
		}
	})
}

// setPath sets m[a][b]… (numeric parts index arrays); missing parents are
// left alone.
func setPath(cur any, path []string, v any) {
	for i, k := range path {
		last := i == len(path)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[k] = v
				return
			}
			cur = c[k]
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil || n < 0 || n >= len(c) {
				return
			}
			if last {
				c[n] = v
				return
			}
			cur = c[n]
		default:
			return
		}
	}
}
