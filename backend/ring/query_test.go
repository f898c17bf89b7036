package ring

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/lip"
)

func TestParseListenQueryDefaultsAndValues(t *testing.T) {
	q, err := ParseListenQuery(url.Values{})
	if err != nil || q.Cursor != "claude" || q.Wait != DefaultWait || q.Max != DefaultMax || q.Types != nil || q.Window != "" {
		t.Fatalf("%+v %v", q, err)
	}
	v, _ := url.ParseQuery("cursor=hook&wait_ms=0&max=5&types=graph.changed,%20graph.export&types=chat.message&window=w2&beyond=claude&t=secret")
	q, err = ParseListenQuery(v)
	if err != nil {
		t.Fatal(err)
	}
	if q.Cursor != "hook" || q.Wait != 0 || q.Max != 5 || strings.Join(q.Types, "|") != "graph.changed|graph.export|chat.message" || q.Window != "w2" || q.Beyond != "claude" {
		t.Fatalf("%+v", q)
	}
	v, _ = url.ParseQuery("wait_ms=50000&max=2000")
	if q, err := ParseListenQuery(v); err != nil || q.Wait != 50*time.Second || q.Max != 2000 {
		t.Fatalf("%+v %v", q, err)
	}
}

func TestParseListenQueryErrors(t *testing.T) {
	cases := []struct{ in, field string }{
		{"cursor=Claude", "cursor"},
		{"cursor=", "cursor"},
		{"cursor=" + strings.Repeat("a", 33), "cursor"},
		{"wait_ms=-1", "wait_ms"},
		{"wait_ms=50001", "wait_ms"},
		{"wait_ms=soon", "wait_ms"},
		{"wait_ms=1.5", "wait_ms"},
		{"max=0", "max"},
		{"max=2001", "max"},
		{"max=x", "max"},
		{"types=Graph.Changed", "types"},
		{"types=graph", "types"},
		{"window=w%201", "window"},
		{"cursor=a&cursor=b", "cursor"},
		{"beyond=NO", "beyond"},
		{"types=" + strings.Repeat("a.b,", 33), "types"},
	}
	for _, c := range cases {
		v, _ := url.ParseQuery(c.in)
		_, err := ParseListenQuery(v)
		le, ok := err.(*lip.Error)
		if !ok || le.Code != lip.CodeBadEnvelope || !strings.Contains(le.Message, "listen: "+c.field+" ") {
			t.Errorf("%s: %v", c.in, err)
		}
	}
}

func TestParseListenJSON(t *testing.T) {
	q, err := ParseListenJSON([]byte(`{"cursor":"hook","wait_ms":100,"max":3,"types":["a.b","c.d"],"window":"w1","beyond":"claude","extra":1}`))
	if err != nil || q.Cursor != "hook" || q.Wait != 100*time.Millisecond || q.Max != 3 || len(q.Types) != 2 || q.Window != "w1" || q.Beyond != "claude" {
		t.Fatalf("%+v %v", q, err)
	}
	q, err = ParseListenJSON([]byte(`{"types":"a.b, c.d"}`))
	if err != nil || len(q.Types) != 2 {
		t.Fatalf("%+v %v", q, err)
	}
	for _, in := range []string{``, `{}`, `{"types":null,"window":""}`} {
		if q, err := ParseListenJSON([]byte(in)); err != nil || q.Cursor != "claude" || q.Wait != DefaultWait {
			t.Errorf("%q: %+v %v", in, q, err)
		}
	}
	for _, in := range []string{`[]`, `{"wait_ms":"5"}`, `{"wait_ms":1.5}`, `{"wait_ms":60000}`, `{"max":0}`, `{"types":[1]}`,
		`{"types":{"a":1}}`, `{"cursor":5}`, `{"cursor":"X"}`, `{"window":"a b"}`, `{} {}`, `{"max":1e400}`} {
		if _, err := ParseListenJSON([]byte(in)); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
}
