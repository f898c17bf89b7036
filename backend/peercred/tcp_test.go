package peercred

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"runtime"
	"testing"
)

// loopbackPair is a dialled connection and the one the listener accepted.
func loopbackPair(t *testing.T) (dialled, accepted net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(got)
			return
		}
		got <- c
	}()
	dialled, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dialled.Close() })
	accepted, ok := <-got
	if !ok {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { accepted.Close() })
	return dialled, accepted
}

func TestPeerUIDAsksForTheOtherEndsSocket(t *testing.T) {
	dialled, accepted := loopbackPair(t)
	server := netip.MustParseAddrPort(accepted.LocalAddr().String())
	client := netip.MustParseAddrPort(dialled.LocalAddr().String())
	var asked [][2]netip.AddrPort
	fake := TCPLookup(func(c, s netip.AddrPort) (int, error) {
		asked = append(asked, [2]netip.AddrPort{c, s})
		return 7, nil
	})
	for _, c := range []net.Conn{dialled, accepted} {
		own, other, err := ConnEnds(c)
		if err != nil {
			t.Fatal(err)
		}
		if uid, err := fake.PeerUID(own, other); uid != 7 || err != nil {
			t.Fatalf("PeerUID = %d, %v", uid, err)
		}
	}
	// From the client's side the other end is the listener's socket (own
	// end: the server address); from the server's side, the client's.
	want := [][2]netip.AddrPort{{server, client}, {client, server}}
	if len(asked) != 2 || asked[0] != want[0] || asked[1] != want[1] {
		t.Fatalf("lookups %v, want %v", asked, want)
	}
}

func TestSystemTCPLookupFindsThisUser(t *testing.T) {
	lookup := SystemTCPLookup()
	if runtime.GOOS != "linux" {
		if lookup != nil {
			t.Fatal("a lookup outside Linux")
		}
		return
	}
	if lookup == nil {
		t.Fatal("no lookup on Linux")
	}
	dialled, accepted := loopbackPair(t)
	for name, c := range map[string]net.Conn{"listener": dialled, "client": accepted} {
		own, other, err := ConnEnds(c)
		if err != nil {
			t.Fatal(err)
		}
		uid, err := lookup.PeerUID(own, other)
		if err != nil || uid != os.Getuid() {
			t.Fatalf("%s: uid %d, %v; want %d", name, uid, err, os.Getuid())
		}
	}
}

func TestRequestEnds(t *testing.T) {
	type ends struct {
		own, other netip.AddrPort
		err        error
	}
	got := make(chan ends, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		own, other, err := RequestEnds(r)
		got <- ends{own, other, err}
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	e := <-got
	if e.err != nil || e.own.String() != srv.Listener.Addr().String() || !e.other.Addr().IsLoopback() || e.other.Port() == 0 {
		t.Fatalf("RequestEnds = %v %v %v (server %s)", e.own, e.other, e.err, srv.Listener.Addr())
	}

	r := httptest.NewRequest(http.MethodGet, "/", nil) // no connection behind it
	var ae *AddrError
	if _, _, err := RequestEnds(r); !errors.As(err, &ae) {
		t.Fatalf("a request without a local address: %v", err)
	}
}
