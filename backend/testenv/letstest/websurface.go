package letstest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/surface/web"
)

// PairTestToken is the admin token of StartWebSurface's surface.
const PairTestToken = "pad-pair-test-admin-token"

// StartWebSurface runs a real browser surface on a free loopback port;
// lan registers a LAN base URL (as the reference e2e harness does) so that
// pairing works without touching a real network.
func StartWebSurface(t *testing.T, lan bool) *web.Server {
	t.Helper()
	srv, err := web.New(web.Options{App: os.DirFS(t.TempDir()), AdminToken: PairTestToken})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if err := srv.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if lan {
		if err := srv.ConfigureLAN(fmt.Sprintf("http://192.168.1.10:%d", srv.Port())); err != nil {
			t.Fatal(err)
		}
	}
	return srv
}
