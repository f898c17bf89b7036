// Package registrytest is a loopback stand-in for the npm registry that
// serves one fake @anthropic-ai/claude-code, whose claude is a shell script
// printing its version, so installs are tested with the real npm and no
// network.
package registrytest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Registry is the stand-in. Fail makes it answer 500 to everything;
// BadTarball serves bytes that are not a tarball; Hold makes the tarball
// request wait until the test's context ends (to test cancelling).
type Registry struct {
	URL     string
	Version string

	mu         sync.Mutex
	fail       bool
	badTarball bool
	hold       chan struct{}
	held       chan struct{}
	tarball    []byte
}

// Start serves a fake Claude Code of version on 127.0.0.1 until the test
// ends.
func Start(tb testing.TB, version string) *Registry {
	tb.Helper()
	r := &Registry{Version: version, tarball: tarball(tb, version)}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	// The URL is set before the server starts: its handler reads it.
	r.URL = "http://" + l.Addr().String() + "/"
	srv := httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	tb.Cleanup(func() {
		r.mu.Lock()
		if r.hold != nil {
			close(r.hold)
			r.hold = nil
		}
		r.mu.Unlock()
		srv.CloseClientConnections()
		srv.Close()
	})
	return r
}

// Fail makes every answer a 500 from now on.
func (r *Registry) Fail() { r.mu.Lock(); r.fail = true; r.mu.Unlock() }

// BadTarball serves a broken tarball from now on.
func (r *Registry) BadTarball() { r.mu.Lock(); r.badTarball = true; r.mu.Unlock() }

// Hold makes the tarball's answer wait; the returned channel closes when
// npm asked for the tarball.
func (r *Registry) Hold() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hold = make(chan struct{})
	r.held = make(chan struct{})
	return r.held
}

// Env is the environment npm needs to use this registry, with its own
// cache and user config under dir, and PATH.
func (r *Registry) Env(dir, path string) []string {
	return []string{
		"PATH=" + path,
		"HOME=" + dir,
		"npm_config_registry=" + r.URL,
		"npm_config_cache=" + dir + "/npm-cache",
		"npm_config_userconfig=" + dir + "/npmrc-none",
		"npm_config_update_notifier=false",
		"npm_config_fetch_retries=0",
		"npm_config_fetch_timeout=20000",
	}
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	fail, bad, hold, held := r.fail, r.badTarball, r.hold, r.held
	if held != nil && strings.HasSuffix(req.URL.Path, ".tgz") {
		close(held)
		r.held = nil
	}
	r.mu.Unlock()
	if fail {
		http.Error(w, "the stand-in registry is failing on purpose", http.StatusInternalServerError)
		return
	}
	if strings.HasSuffix(req.URL.Path, ".tgz") {
		if hold != nil {
			select {
			case <-hold:
			case <-req.Context().Done():
			}
			return
		}
		b := r.tarball
		if bad {
			b = []byte("this is not a tarball")
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(b)
		return
	}
	// The packument: /@anthropic-ai%2fclaude-code (npm escapes the slash).
	name := strings.ReplaceAll(strings.TrimPrefix(req.URL.EscapedPath(), "/"), "%2f", "/")
	name = strings.ReplaceAll(name, "%2F", "/")
	if name != "@anthropic-ai/claude-code" {
		http.NotFound(w, req)
		return
	}
	sum512 := sha512.Sum512(r.tarball)
	sum1 := sha1.Sum(r.tarball)
	tgz := r.URL + "@anthropic-ai/claude-code/-/claude-code-" + r.Version + ".tgz"
	doc := map[string]any{
		"name":      name,
		"dist-tags": map[string]string{"latest": r.Version},
		"versions": map[string]any{r.Version: map[string]any{
			"name": name, "version": r.Version,
			"bin": map[string]string{"claude": "cli.js"},
			"dist": map[string]string{
				"tarball":   tgz,
				"shasum":    hex.EncodeToString(sum1[:]),
				"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum512[:]),
			},
		}},
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(doc)
}

func tarball(tb testing.TB, version string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	files := []struct {
		name string
		mode int64
		body string
	}{
		{"package/package.json", 0o644, `{"name":"@anthropic-ai/claude-code","version":"` + version + `","bin":{"claude":"cli.js"}}`},
		{"package/cli.js", 0o755, "#!/bin/sh\necho '" + version + " (Claude Code)'\n"},
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			tb.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.body)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}
