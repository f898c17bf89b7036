package window_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// closeLikeAPerson asks the X window with the given title to close the way
// a window manager's close button does: a WM_DELETE_WINDOW client message
// (ICCCM). It speaks the X11 protocol directly on the display's socket, so
// the test needs no window manager and no extra tool.
func (g *guiRig) closeLikeAPerson(title string) {
	g.tb.Helper()
	out, err := g.x("xwininfo", "-root", "-tree")
	if err != nil {
		g.tb.Fatalf("xwininfo: %v\n%s", err, out)
	}
	var id uint64
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && strings.HasPrefix(f[0], "0x") && strings.Contains(line, `"`+title+`"`) {
			id, err = strconv.ParseUint(strings.TrimPrefix(f[0], "0x"), 16, 32)
			if err != nil {
				g.tb.Fatalf("window id %q: %v", f[0], err)
			}
		}
	}
	if id == 0 {
		g.tb.Fatalf("no window titled %q on screen:\n%s", title, out)
	}
	conn := dialX(g.tb, g.display)
	defer conn.Close()
	if err := x11DeleteWindow(conn, uint32(id)); err != nil {
		g.tb.Fatalf("ask window 0x%x to close: %v", id, err)
	}
}

// dialX connects to the X display's socket (":N"), with a deadline for
// everything said on it.
func dialX(tb testing.TB, display string) net.Conn {
	tb.Helper()
	conn, err := net.DialTimeout("unix", "/tmp/.X11-unix/X"+strings.TrimPrefix(display, ":"), 5*time.Second)
	if err != nil {
		tb.Fatalf("connect to the X display %s: %v", display, err)
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	return conn
}

// x11Setup does the connection setup: little-endian, protocol 11.0, no
// authorisation (Xvfb without -auth lets local clients in).
func x11Setup(conn io.ReadWriter) error {
	le := binary.LittleEndian
	setup := make([]byte, 12)
	setup[0] = 'l'
	le.PutUint16(setup[2:], 11)
	if _, err := conn.Write(setup); err != nil {
		return err
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(conn, head); err != nil {
		return fmt.Errorf("setup reply: %w", err)
	}
	rest := make([]byte, int(le.Uint16(head[6:]))*4)
	if _, err := io.ReadFull(conn, rest); err != nil {
		return fmt.Errorf("setup reply body: %w", err)
	}
	if head[0] != 1 {
		return fmt.Errorf("the X server refused the connection (status %d): %s", head[0], rest)
	}
	return nil
}

// x11InternAtom is InternAtom: the atom named name, made if it does not
// exist unless onlyIfExists (then 0 says it does not).
func x11InternAtom(conn io.ReadWriter, name string, onlyIfExists bool) (uint32, error) {
	le := binary.LittleEndian
	pad := (4 - len(name)%4) % 4
	req := make([]byte, 8+len(name)+pad)
	req[0] = 16 // InternAtom
	if onlyIfExists {
		req[1] = 1
	}
	le.PutUint16(req[2:], uint16(len(req)/4))
	le.PutUint16(req[4:], uint16(len(name)))
	copy(req[8:], name)
	if _, err := conn.Write(req); err != nil {
		return 0, err
	}
	reply := make([]byte, 32)
	if _, err := io.ReadFull(conn, reply); err != nil {
		return 0, err
	}
	if reply[0] != 1 {
		return 0, fmt.Errorf("InternAtom %s: X error %d", name, reply[1])
	}
	return le.Uint32(reply[8:]), nil
}

// x11DeleteWindow sends WM_DELETE_WINDOW to window and waits until the
// server has handled the request (a round trip).
func x11DeleteWindow(conn io.ReadWriter, window uint32) error {
	le := binary.LittleEndian
	if err := x11Setup(conn); err != nil {
		return err
	}
	protocols, err := x11InternAtom(conn, "WM_PROTOCOLS", false)
	if err != nil {
		return err
	}
	deleteWindow, err := x11InternAtom(conn, "WM_DELETE_WINDOW", false)
	if err != nil {
		return err
	}
	// SendEvent of a ClientMessage to the window's owner (event mask 0).
	req := make([]byte, 44)
	req[0] = 25 // SendEvent
	le.PutUint16(req[2:], 11)
	le.PutUint32(req[4:], window)
	ev := req[12:]
	ev[0] = 33 // ClientMessage
	ev[1] = 32 // format: 32-bit data
	le.PutUint32(ev[4:], window)
	le.PutUint32(ev[8:], protocols)
	le.PutUint32(ev[12:], deleteWindow)
	// ev[16:20] is the timestamp, CurrentTime (0).
	if _, err := conn.Write(req); err != nil {
		return err
	}
	// GetInputFocus as a round trip: its reply comes after SendEvent ran,
	// or an error for SendEvent comes first.
	if _, err := conn.Write([]byte{43, 0, 1, 0}); err != nil {
		return err
	}
	reply := make([]byte, 32)
	if _, err := io.ReadFull(conn, reply); err != nil {
		return err
	}
	if reply[0] != 1 {
		return fmt.Errorf("SendEvent: X error %d", reply[1])
	}
	return nil
}

// TestSharedDisplayDoesNotReset: the package's Xvfb keeps its state when
// its last client goes. An X server that resets then (Xvfb without
// -noreset) refuses a client that connects during the reset, and a window
// process starting at that moment could not start GTK; the tests poll the
// screen with short-lived clients while windows start, so that moment
// came, more often the busier the machine. An atom made by one client is
// still there for the next one only if no reset came between them.
func TestSharedDisplayDoesNotReset(t *testing.T) {
	d := display.Name(t)
	name := fmt.Sprintf("LETS_NORESET_PROBE_%d", time.Now().UnixNano())
	conn := dialX(t, d)
	if err := x11Setup(conn); err != nil {
		t.Fatal(err)
	}
	if _, err := x11InternAtom(conn, name, false); err != nil {
		t.Fatal(err)
	}
	// The last client goes, and waits until the server has closed its
	// side: a resetting server resets right then, before it takes the
	// next client.
	if err := conn.(*net.UnixConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, conn); err != nil {
		t.Fatalf("the server did not close the connection: %v", err)
	}
	conn.Close()
	conn = dialX(t, d)
	defer conn.Close()
	if err := x11Setup(conn); err != nil {
		t.Fatal(err)
	}
	atom, err := x11InternAtom(conn, name, true)
	if err != nil {
		t.Fatal(err)
	}
	if atom == 0 {
		t.Fatal("the display reset when its last client disconnected (Xvfb without -noreset): a window starting then could not open it")
	}
}
