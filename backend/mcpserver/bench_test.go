package mcpserver

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkListenOverhead compares the listen tool (wait_ms 0, over the
// in-memory MCP transport, through hostclient) with a raw GET /lip/listen
// against the same real host. The difference is what lets mcp adds per
// listen (target: at most 3 ms).
func BenchmarkListenOverhead(b *testing.B) {
	h := startRealHost(b, b.TempDir(), testToken)
	b.Run("raw", func(b *testing.B) {
		client := &http.Client{Timeout: 5 * time.Second}
		url := "http://127.0.0.1:" + strconv.Itoa(h.srv.Port()) + "/lip/listen?cursor=raw&wait_ms=0"
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			req.Header.Set("Authorization", "Bearer "+testToken)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("HTTP %d", resp.StatusCode)
			}
		}
	})
	b.Run("tool", func(b *testing.B) {
		s := connect(b, Options{}, h.paths)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		params := &mcp.CallToolParams{Name: "listen", Arguments: map[string]any{"cursor": "tool", "wait_ms": 0}}
		b.ReportAllocs()
		for b.Loop() {
			res, err := s.cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				b.Fatalf("listen: %v %v", err, res)
			}
		}
	})
}
