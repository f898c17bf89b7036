package app

import (
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/otheruser"
)

// #23: `lets doctor` pinged the pad socket with a raw connection, so a
// socket another user squats received the ping. Now it asks through
// wireclient: the squatter gets nothing and doctor says who holds it.
func TestDoctorSendsNothingToAnotherUsersSocket(t *testing.T) {
	otheruser.RequireRoot(t)
	dir := otheruser.SharedDir(t)
	path := filepath.Join(dir, "pad.sock")
	ln := otheruser.ListenAs(t, otheruser.Nobody, otheruser.Nobody, path)
	var got atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 512)
				for {
					n, err := c.Read(buf)
					got.Add(int64(n))
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	e := newTestEnv(t)
	d := &doctor{env: e.Env, timeout: 2 * time.Second}
	r := d.checkSocket(path)
	if r.level != checkFail || !strings.Contains(r.detail, "another user") {
		t.Fatalf("doctor on a squatted socket: %v %q", r.level, r.detail)
	}
	if n := got.Load(); n != 0 {
		t.Fatalf("the other user's socket received %d bytes", n)
	}
}
