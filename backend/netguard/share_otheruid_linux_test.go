package netguard

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/otheruser"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// startHeld starts accepting on ln and holds every accepted connection.
func startHeld(t *testing.T, ln *LimitListener) <-chan net.Conn {
	held := make(chan net.Conn, 64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(held)
				return
			}
			held <- c
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for c := range held {
			c.Close()
		}
	})
	return held
}

// refused reports whether the server closed c at once.
func refused(t *testing.T, c net.Conn) bool {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(testutil.EventuallyTimeout))
	_, err := c.Read(make([]byte, 1))
	return errors.Is(err, io.EOF) || isReset(err)
}

// #23 (medium): another local user who opens connections as fast as it can
// fills only its own small share; the person's connections still get all of
// theirs. Without SeparateOtherUsers the same flood takes the person's
// slots and their next connection is closed at once.
func TestOtherUsersCannotFillThePersonsConnections(t *testing.T) {
	otheruser.RequireRoot(t)
	for _, separate := range []bool{false, true} {
		raw, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln := Limit(raw, 4, "test", nil)
		if separate {
			ln.SeparateOtherUsers(2, os.Getuid(), nil)
		}
		held := startHeld(t, ln)
		addr := raw.Addr().String()

		// The flood: more connections than the whole cap, as uid 65534.
		var flood []net.Conn
		for range 6 {
			c, err := otheruser.DialAs(t, "tcp", addr, otheruser.Nobody)
			if err != nil {
				t.Fatal(err)
			}
			flood = append(flood, c)
		}
		if !separate {
			testutil.Eventually(t, "the flood to take the person's slots", func() bool { return ln.Open() == 4 })
			c, err := net.DialTimeout("tcp", addr, testutil.EventuallyTimeout)
			if err != nil {
				t.Fatal(err)
			}
			if !refused(t, c) {
				t.Fatal("without a separate share, the person was not starved: the test proves nothing")
			}
			c.Close()
			continue
		}
		testutil.Eventually(t, "the flood to fill its share and the rest to be closed", func() bool {
			return ln.OtherUsersOpen() == 2 && ln.Refused() == 4
		})
		// The server closed four already (counted above), so their EOF is
		// waiting; the two held ones just reach the short deadline.
		refusedFlood := 0
		for _, c := range flood {
			_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			if _, err := c.Read(make([]byte, 1)); errors.Is(err, io.EOF) || isReset(err) {
				refusedFlood++
			}
		}
		if refusedFlood != 4 {
			t.Fatalf("%d of the flood's 6 connections were closed, want 4 (a share of 2)", refusedFlood)
		}
		// The person: all 4 of their slots.
		for i := range 4 {
			c, err := net.DialTimeout("tcp", addr, testutil.EventuallyTimeout)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			testutil.Eventually(t, "the person's connection to be held", func() bool { return ln.Open() == i+1 })
		}
		if ln.Open() != 4 || ln.OtherUsersOpen() != 2 {
			t.Fatalf("open %d, other users %d", ln.Open(), ln.OtherUsersOpen())
		}
		_ = held
	}
}

// Connections whose owner cannot be told count as the person's, and a
// connection of the person's own uid never lands in the other users'
// share (the owner lookup is the seam).
func TestSeparateOtherUsersTellsOwners(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := Limit(raw, 2, "test", nil)
	owner := func(uid int, err error) func(client, server netip.AddrPort) (int, error) {
		return func(netip.AddrPort, netip.AddrPort) (int, error) { return uid, err }
	}
	ln.SeparateOtherUsers(1, 1000, owner(-1, ErrSocketOwnerUnknown))
	startHeld(t, ln)
	c, err := net.DialTimeout("tcp", raw.Addr().String(), testutil.EventuallyTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	testutil.Eventually(t, "an unknown owner counts as the person", func() bool { return ln.Open() == 1 && ln.OtherUsersOpen() == 0 })
}
