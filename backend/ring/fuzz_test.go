package ring

import (
	"net/url"
	"testing"
)

// FuzzParseListenQuery feeds URL query strings and JSON bodies to the listen
// parsers: they never panic, and an accepted query is within bounds.
func FuzzParseListenQuery(f *testing.F) {
	f.Add("cursor=claude&wait_ms=25000&max=100", []byte(`{"cursor":"claude","wait_ms":25000,"max":100}`))
	f.Add("types=graph.changed,chat.message&window=w1", []byte(`{"types":["graph.changed"],"window":"w1"}`))
	f.Add("cursor=Bad&wait_ms=-1", []byte(`{"types":"a.b, c.d","beyond":"hook"}`))
	f.Add("max=1e9&types=%00", []byte(`{"wait_ms":"5"}`))
	f.Add("", []byte(``))
	f.Fuzz(func(t *testing.T, raw string, body []byte) {
		check := func(q Query) {
			if !ValidCursorName(q.Cursor) || (q.Beyond != "" && !ValidCursorName(q.Beyond)) {
				t.Fatalf("cursor %q beyond %q", q.Cursor, q.Beyond)
			}
			if q.Wait < 0 || q.Wait > MaxWait || q.Max < 1 || q.Max > MaxMax || len(q.Types) > MaxTypes {
				t.Fatalf("out of bounds: %+v", q)
			}
			if _, err := q.normalize(); err != nil {
				t.Fatalf("accepted query does not normalize: %v", err)
			}
		}
		if v, err := url.ParseQuery(raw); err == nil {
			if q, err := ParseListenQuery(v); err == nil {
				check(q)
			} else if err.Error() == "" {
				t.Fatal("empty error")
			}
		}
		if q, err := ParseListenJSON(body); err == nil {
			check(q)
		} else if err.Error() == "" {
			t.Fatal("empty error")
		}
	})
}
