package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// BenchmarkServeRSS50Windows runs `lets serve` as its own process, opens 50
// windows with connected, ready shells that each received a command, and
// reports the host's resident memory (target ≤ 60 MB).
func BenchmarkServeRSS50Windows(b *testing.B) {
	home := filepath.Join(b.TempDir(), "home")
	cmd := exec.Command(os.Args[0], "serve", "--port", "0", "--no-pad")
	// No display: every window waits for the person, who opens it from
	// the home page (issue #23), signed in from the link serve prints.
	cmd.Env = append(os.Environ(), "LETS_RUN_AS_CLI=1", "LETS_HOME="+home, "DISPLAY=", "WAYLAND_DISPLAY=")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ready := make(chan struct{})
	links := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Press Ctrl+C") {
				close(ready)
			}
			if _, key, ok := strings.Cut(sc.Text(), "/#k="); ok {
				links <- strings.TrimSpace(key)
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(15 * time.Second):
		b.Fatal("lets serve did not start")
	}
	info, err := config.ReadHostInfo(config.Paths{Home: home})
	if err != nil {
		b.Fatal(err)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(info.Port)
	post := func(path string, body any, out any) {
		data, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", base+path, bytes.NewReader(data))
		req.Header.Set("Authorization", "Bearer "+info.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		if out != nil {
			_ = json.NewDecoder(resp.Body).Decode(out)
		}
	}
	// The person: the home page signed in from the link serve printed.
	post("/lip/home-link", nil, nil)
	var key string
	select {
	case key = <-links:
	case <-time.After(15 * time.Second):
		b.Fatal("lets serve printed no home link")
	}
	var claimed struct{ Token string }
	post("/home/api/claim", map[string]string{"key": key}, &claimed)
	show := func(window string) string {
		req, _ := http.NewRequest("POST", base+"/home/api/windows/"+window+"/show", nil)
		req.Header.Set("Authorization", "Bearer "+claimed.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var ans struct{ URL string }
		_ = json.NewDecoder(resp.Body).Decode(&ans)
		return ans.URL
	}
	var conns []*websocket.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	b.ResetTimer()
	for i := range 50 {
		var win struct{ Window string }
		post("/lip/open", map[string]string{"unique": "hello"}, &win)
		// The window token lives only in the shell page the one-time URL
		// serves, as a window would load it.
		page, err := http.Get(show(win.Window))
		if err != nil {
			b.Fatal(err)
		}
		html, _ := io.ReadAll(page.Body)
		page.Body.Close()
		_, cfgText, _ := strings.Cut(string(html), `id="lets-config">`)
		cfgText, _, _ = strings.Cut(cfgText, "</script>")
		var cfg struct{ Token string }
		if err := json.Unmarshal([]byte(cfgText), &cfg); err != nil {
			b.Fatalf("window %d: the shell page has no config: %v", i, err)
		}
		c, _, err := websocket.DefaultDialer.Dial("ws://127.0.0.1:"+strconv.Itoa(info.Port)+"/lip/ws?t="+cfg.Token, http.Header{"Origin": {base}})
		if err != nil {
			b.Fatalf("window %d: %v", i, err)
		}
		conns = append(conns, c)
		_ = c.WriteJSON(map[string]any{"lip": 1, "id": "h", "type": "lip.hello", "from": "shell", "data": map[string]any{"window": win.Window}})
		_ = c.WriteJSON(map[string]any{"lip": 1, "id": "r", "type": "lip.ready", "from": "shell", "data": map[string]any{}})
		post("/lip/send", map[string]any{"lip": 1, "type": "hello.show", "win": win.Window, "data": map[string]any{"text": "hi"}}, nil)
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		for {
			_, data, err := c.ReadMessage()
			if err != nil {
				b.Fatalf("window %d got no command: %v", i, err)
			}
			if strings.Contains(string(data), "hello.show") {
				break
			}
		}
	}
	b.StopTimer()
	time.Sleep(300 * time.Millisecond)
	status, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status")
	if err != nil {
		testutil.ProcFS(b)
		b.Fatalf("read the host's memory use: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			b.ReportMetric(float64(kb)/1024, "RSS-MB")
		}
	}
}
