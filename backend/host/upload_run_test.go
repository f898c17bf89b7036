package host

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func (th *testHost) upload(t testing.TB, tok string, body io.Reader, ctype string, hdr map[string]string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", th.URL()+"/lip/upload", body)
	req.Header.Set("X-Lets-Token", tok)
	req.Header.Set("Content-Type", ctype)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]any{}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func uploadsOf(t testing.TB, th *testHost, unique string) []string {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(th.home, "uploads", unique))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestCase025_UploadOverCapIs413 with nothing left behind, for a declared
// length and for a streamed body that only turns out too large.
func TestCase025_UploadOverCapIs413(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	big := append(pngBytes(t, 4, 4), make([]byte, DefaultUploadMaxBytes)...)[:DefaultUploadMaxBytes+1]
	code, body := th.upload(t, win.Token, bytes.NewReader(big), "image/png", nil)
	if code != 413 {
		t.Fatalf("25 MB + 1: %d %v, want 413", code, body)
	}
	// Chunked: no Content-Length, the cap hits while copying.
	code, _ = th.upload(t, win.Token, io.MultiReader(bytes.NewReader(big)), "image/png", nil)
	if code != 413 {
		t.Fatalf("streamed 25 MB + 1: %d, want 413", code)
	}
	if names := uploadsOf(t, th, "board"); len(names) != 0 {
		t.Fatalf("files left behind: %v", names)
	}
	// Exactly at the cap is accepted.
	exact := append(pngBytes(t, 4, 4), make([]byte, DefaultUploadMaxBytes)...)[:DefaultUploadMaxBytes]
	if code, body := th.upload(t, win.Token, bytes.NewReader(exact), "image/png", nil); code != 200 {
		t.Fatalf("exactly 25 MB: %d %v", code, body)
	}
}

// TestCase026_PNGLabelledJPEGIsStoredAsPNG and announced as media.image.
func TestCase026_PNGLabelledJPEGIsStoredAsPNG(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	code, body := th.upload(t, win.Token, bytes.NewReader(pngBytes(t, 7, 5)), "image/jpeg", map[string]string{"X-Lets-Source": "paste"})
	if code != 200 {
		t.Fatalf("upload: %d %v", code, body)
	}
	path := body["path"].(string)
	if body["mime"] != "image/png" || !strings.HasSuffix(path, ".png") || body["w"] != 7.0 || body["h"] != 5.0 {
		t.Fatalf("answer %v", body)
	}
	if !filepath.IsAbs(path) || filepath.Dir(path) != filepath.Join(th.home, "uploads", "board") {
		t.Fatalf("stored at %s", path)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stored file: %v %v", fi, err)
	}
	ev := th.waitEvent(t, "up", "media.image", ioTimeout)
	d := dataOf(t, ev)
	if d["path"] != path || d["mime"] != "image/png" || d["source"] != "paste" || ev.From != "shell:board#w1" {
		t.Fatalf("media.image %v from %s", d, ev.From)
	}
	// Through the SDK the upload is the unique's act.
	_, _ = th.upload(t, win.Token, bytes.NewReader(pngBytes(t, 2, 2)), "image/png", map[string]string{"X-Lets-Via": "unique", "X-Lets-Component": "drop1"})
	ev = th.waitEvent(t, "up", "media.image", ioTimeout)
	if ev.From != "unique:board#w1" || dataOf(t, ev)["componentId"] != "drop1" {
		t.Fatalf("unique upload event %+v", ev)
	}
}

// TestCase027_HTMLLabelledPNGIs415.
func TestCase027_HTMLLabelledPNGIs415(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	for name, data := range map[string]string{
		"html":      "<!doctype html><script>alert(1)</script>",
		"svg":       `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`,
		"truncated": "\x89PNG\r\n\x1a\n",
	} {
		code, body := th.upload(t, win.Token, strings.NewReader(data), "image/png", nil)
		if code != 415 {
			t.Errorf("%s: %d %v, want 415", name, code, body)
		}
	}
	if names := uploadsOf(t, th, "board"); len(names) != 0 {
		t.Fatalf("files left behind: %v", names)
	}
}

func TestSniffRecognisesTheFourKinds(t *testing.T) {
	gif := []byte("GIF89a\x03\x00\x02\x00\x00\x00\x00;")
	webpLossless := append([]byte("RIFF\x00\x00\x00\x00WEBPVP8L\x00\x00\x00\x00\x2f"), 0x09, 0x40, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	for name, tc := range map[string]struct {
		data []byte
		mime string
		w, h int
	}{
		"png":  {pngBytes(t, 3, 2), "image/png", 3, 2},
		"gif":  {gif, "image/gif", 3, 2},
		"webp": {webpLossless, "image/webp", 10, 2},
	} {
		k, w, h, ok := sniffImage(tc.data[:min(len(tc.data), 512)], bytes.NewReader(tc.data))
		if !ok || k.Mime != tc.mime || w != tc.w || h != tc.h {
			t.Errorf("%s: %v %d×%d %v", name, k, w, h, ok)
		}
	}
}

func TestPruneUploadsKeepsNewest(t *testing.T) {
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	for i := range uploadKeepFiles + 3 {
		p := filepath.Join(dir, fmt.Sprintf("%04d.png", i))
		_ = os.WriteFile(p, []byte("x"), 0o600)
		_ = os.Chtimes(p, base.Add(time.Duration(i)*time.Second), base.Add(time.Duration(i)*time.Second))
	}
	entries, _ := os.ReadDir(dir)
	newest := ""
	var newestT time.Time
	for _, e := range entries {
		fi, _ := e.Info()
		if fi.ModTime().After(newestT) {
			newestT, newest = fi.ModTime(), filepath.Join(dir, e.Name())
		}
	}
	pruneUploads(dir, newest)
	entries, _ = os.ReadDir(dir)
	if len(entries) != uploadKeepFiles {
		t.Fatalf("%d files after pruning, want %d", len(entries), uploadKeepFiles)
	}
}

func (th *testHost) run(t testing.TB, tok string, req map[string]any) (int, map[string]any) {
	t.Helper()
	data, _ := json.Marshal(req)
	r, _ := http.NewRequest("POST", th.URL()+"/lip/run", bytes.NewReader(data))
	r.Header.Set("X-Lets-Token", tok)
	r.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]any{}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func errCode(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

// TestCase019_RunWithoutExecPermissionIsDenied: board declares no exec.
func TestCase019_RunWithoutExecPermissionIsDenied(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	code, body := th.run(t, win.Token, map[string]any{"language": "python", "code": "print(1)"})
	if code != 403 || errCode(body) != "exec_denied" {
		t.Fatalf("%d %v, want 403 exec_denied", code, body)
	}
	// coder declares python and shell, not javascript.
	win2 := th.open(t, "coder", "")
	code, body = th.run(t, win2.Token, map[string]any{"language": "javascript", "code": "1"})
	if code != 403 || errCode(body) != "exec_denied" {
		t.Fatalf("undeclared language: %d %v", code, body)
	}
	if _, err := os.Stat(filepath.Join(th.home, "run")); err == nil {
		t.Fatal("a run folder was made for a refused run")
	}
}

// answerPrompts acts as the shell page: it shows (here: reads) shell.ask
// and answers choice over the real WebSocket, exactly as the page does.
func answerPrompts(t *testing.T, sc *shellClient, choice string, n int) <-chan string {
	asked := make(chan string, n)
	go func() {
		for range n {
			e, ok := sc.nextOfType("shell.ask", ioTimeout)
			if !ok {
				close(asked)
				return
			}
			d := map[string]any{}
			_ = json.Unmarshal(e.Data, &d)
			asked <- d["question"].(string)
			sc.ack(e)
			sc.sendEnv("shell.answer", map[string]any{"id": d["id"], "choice": choice}, "shell")
		}
	}()
	return asked
}

// TestCase020_RunNotAllowedByTheHumanIsDenied: declared, but the human
// says no (or nobody can be asked): 403 and no process.
func TestCase020_RunNotAllowedByTheHumanIsDenied(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "coder", "")
	// Nobody connected to ask.
	code, body := th.run(t, win.Token, map[string]any{"language": "shell", "code": "touch " + filepath.Join(th.home, "ran")})
	if code != 403 || errCode(body) != "exec_denied" {
		t.Fatalf("no shell: %d %v", code, body)
	}
	sc := th.dialShell(t, win, nil)
	sc.sendEnv("lip.ready", map[string]any{}, "shell")
	asked := answerPrompts(t, sc, "deny", 1)
	code, body = th.run(t, win.Token, map[string]any{"language": "shell", "code": "touch " + filepath.Join(th.home, "ran")})
	if code != 403 || errCode(body) != "exec_denied" {
		t.Fatalf("denied: %d %v", code, body)
	}
	if q := <-asked; q != "Allow Board coder to run shell on this computer?" {
		t.Fatalf("prompt %q", q)
	}
	if _, err := os.Stat(filepath.Join(th.home, "ran")); err == nil {
		t.Fatal("the code ran although the human denied it")
	}
	// The unique cannot answer for the human: an answer relayed from the
	// unique is refused.
	go func() {
		e, ok := sc.nextOfType("shell.ask", ioTimeout)
		if !ok {
			return
		}
		d := map[string]any{}
		_ = json.Unmarshal(e.Data, &d)
		sc.sendEnv("shell.answer", map[string]any{"id": d["id"], "choice": "always"}, "unique")
		sc.sendEnv("shell.answer", map[string]any{"id": d["id"], "choice": "deny"}, "shell")
	}()
	code, _ = th.run(t, win.Token, map[string]any{"language": "shell", "code": "touch " + filepath.Join(th.home, "ran")})
	if code != 403 {
		t.Fatalf("a unique's answer must not allow a run: %d", code)
	}
	if _, err := os.Stat(filepath.Join(th.home, "ran")); err == nil {
		t.Fatal("the code ran on the unique's say-so")
	}
}

// TestRunAllowedOnceAndAlways: "once" runs without remembering; "always"
// is stored keyed by unique and commit, and later runs need no prompt.
func TestRunAllowedOnceAndAlways(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "coder", "")
	sc := th.dialShell(t, win, nil)
	sc.sendEnv("lip.ready", map[string]any{}, "shell")
	answerPrompts(t, sc, "once", 1)
	code, body := th.run(t, win.Token, map[string]any{"language": "shell", "code": "echo \"$0\" hi; echo oops >&2; exit 3", "stdin": ""})
	if code != 200 || body["exitCode"] != 3.0 || !strings.Contains(body["stdout"].(string), "hi") || body["stderr"] != "oops\n" {
		t.Fatalf("once: %d %v", code, body)
	}
	if _, err := os.Stat(filepath.Join(th.home, "permissions.json")); err == nil {
		t.Fatal(`"once" must not be remembered`)
	}
	answerPrompts(t, sc, "always", 1)
	code, body = th.run(t, win.Token, map[string]any{"language": "shell", "code": "read x; echo got $x; env | sort", "stdin": "42\n"})
	if code != 200 || !strings.Contains(body["stdout"].(string), "got 42") {
		t.Fatalf("always: %d %v", code, body)
	}
	for _, line := range strings.Split(body["stdout"].(string), "\n") {
		k, _, _ := strings.Cut(line, "=")
		switch k {
		case "", "got 42", "PATH", "HOME", "LANG", "PWD", "SHLVL", "_":
		default:
			t.Errorf("the child inherited %s", k)
		}
	}
	fi, err := os.Stat(filepath.Join(th.home, "permissions.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("permissions.json: %v %v", fi, err)
	}
	// No prompt now: nobody answers, yet it runs.
	code, body = th.run(t, win.Token, map[string]any{"language": "shell", "code": "sleep 5", "timeoutMs": 200})
	if code != 200 || body["timedOut"] != true {
		t.Fatalf("timeout: %d %v", code, body)
	}
}

// pngDeclaring is a tiny PNG whose header claims w×h pixels (valid
// signature, IHDR with its CRC, no image data): a decompression bomb's
// calling card.
func pngDeclaring(w, h uint32) []byte {
	ihdr := make([]byte, 0, 17)
	ihdr = append(ihdr, "IHDR"...)
	ihdr = binary.BigEndian.AppendUint32(ihdr, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0) // 8-bit RGBA, deflate, no filter, no interlace
	out := []byte("\x89PNG\r\n\x1a\n")
	out = binary.BigEndian.AppendUint32(out, 13)
	out = append(out, ihdr...)
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(ihdr))
	return out
}

// TestUploadRefusesDecompressionBombs (issue #10, uploads): an image whose
// header declares more pixels than the limits is refused with too_large
// and a message that names the size and the limits; nothing is stored.
// Images at the limits still pass.
func TestUploadRefusesDecompressionBombs(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	for _, tc := range []struct {
		name string
		w, h uint32
		want int
	}{
		{"100000×100000", 100000, 100000, 413},
		{"one side too long", maxUploadSide + 1, 10, 413},
		{"too many pixels", 10000, 5001, 413},
		{"at the side limit", maxUploadSide, 100, 200},
		{"at the pixel limit", 10000, 5000, 200},
	} {
		code, body := th.upload(t, win.Token, bytes.NewReader(pngDeclaring(tc.w, tc.h)), "image/png", nil)
		if code != tc.want {
			t.Errorf("%s: %d %v, want %d", tc.name, code, body, tc.want)
			continue
		}
		if code != 413 {
			continue
		}
		e, _ := body["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if e["code"] != "too_large" || !strings.Contains(msg, fmt.Sprintf("%d×%d pixels", tc.w, tc.h)) || !strings.Contains(msg, "50 megapixels") {
			t.Errorf("%s: error %v", tc.name, e)
		}
	}
	if files := uploadsOf(t, th, "board"); len(files) != 2 {
		t.Fatalf("uploads folder holds %v, want only the two images at the limits", files)
	}
}
