package host

import (
	"bytes"
	"testing"

	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/ring"
)

// FuzzSniffImage: upload bytes are untrusted; sniffing never panics and
// accepts only the four image kinds with positive sizes.
func FuzzSniffImage(f *testing.F) {
	f.Add(pngBytes(f, 2, 2))
	f.Add([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x01\x00\x00"))
	f.Add([]byte("\xff\xd8\xff\xe0garbage"))
	f.Add([]byte("<html>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		k, w, h, ok := sniffImage(data[:min(len(data), 512)], bytes.NewReader(data))
		if ok && (w <= 0 || h <= 0 || k.Ext == "") {
			t.Fatalf("accepted %v with size %d×%d", k, w, h)
		}
		// Whatever size the header declares, the limit check answers
		// without overflowing (issue #10: decompression bombs).
		if ok && (w > maxUploadSide || h > maxUploadSide) && checkImageSize(w, h) == nil {
			t.Fatalf("%d×%d passed the size limits", w, h)
		}
	})
}

// FuzzInjectSDK: a unique's HTML is untrusted; the SDK tag is always
// present exactly once more than before, and nothing of the page is lost.
func FuzzInjectSDK(f *testing.F) {
	f.Add([]byte("<!doctype html><html><head><title>x</title></head><body></body></html>"))
	f.Add([]byte("<HEAD data-x='>'>"))
	f.Add([]byte("<!DOCTYPE html"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, html []byte) {
		out := injectSDK(html)
		if len(out) != len(html)+len(sdkTag) {
			t.Fatalf("length %d, want %d", len(out), len(html)+len(sdkTag))
		}
		if bytes.Count(out, []byte(sdkTag)) < bytes.Count(html, []byte(sdkTag))+1 {
			t.Fatal("the SDK tag was not added")
		}
	})
}

// FuzzShellFrame feeds arbitrary frames to a window's shell channel as if
// the shell page (or the unique through it) sent them: nothing panics, and
// nothing enters the ring stamped as anything but this window's shell or
// unique, or the host.
func FuzzShellFrame(f *testing.F) {
	f.Add([]byte(`{"lip":1,"id":"a","type":"board.note","data":{},"from":"claude"}`))
	f.Add([]byte(`[{"lip":1,"id":"a","type":"lip.ack","data":{"ids":["x"]}},{"lip":1,"id":"b","type":"board.export","data":{"summary":"s"}}]`))
	f.Add([]byte(`{"lip":1,"id":"s","type":"shell.answer","data":{"id":"ask_1","choice":"always"},"from":"shell"}`))
	f.Add([]byte(`{"lip":2,"id":"v","type":"board.note"}`))
	f.Add([]byte(`{"lip":1,"id":"m","type":"media.image","data":{"path":"/etc/passwd"},"from":"shell"}`))
	f.Add([]byte(`[1,2,3]`))
	th := startLIPHost(f, func(o *Options) { o.Handoff = "stay" })
	win := th.open(f, "board", "")
	w, _ := th.core.window(win.Window)
	c := &shellConn{w: w, wakeC: make(chan struct{}, 1), ctrl: make(chan []byte, 64), done: make(chan struct{}), timing: th.timing}
	w.mu.Lock()
	w.conn, w.gen, c.gen = c, w.gen+1, w.gen+1
	w.mu.Unlock()
	f.Cleanup(func() {
		w.mu.Lock()
		w.conn = nil
		w.mu.Unlock()
	})
	f.Fuzz(func(t *testing.T, frame []byte) {
		for len(c.ctrl) > 0 {
			<-c.ctrl
		}
		w.mu.Lock()
		w.bucket = tokenBucket{}
		w.mu.Unlock()
		th.core.ingest(c, frame)
		res, _ := th.rng.Listen(t.Context(), ringQuery("fuzz"))
		for _, e := range res.Events {
			switch e.From {
			case "unique:board#" + win.Window, "shell:board#" + win.Window, "host":
			default:
				t.Fatalf("ring holds %s from %q", e.Type, e.From)
			}
			if e.Type == lip.TypeMediaImage {
				t.Fatal("a media.image frame reached the ring")
			}
		}
	})
}

func ringQuery(cursor string) ringQ { return ringQ{Cursor: cursor, Max: 2000} }

type ringQ = ring.Query
