package window_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
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
	conn, err := net.DialTimeout("unix", "/tmp/.X11-unix/X"+strings.TrimPrefix(g.display, ":"), 5*time.Second)
	if err != nil {
		g.tb.Fatalf("connect to the X display: %v", err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if err := x11DeleteWindow(conn, uint32(id)); err != nil {
		g.tb.Fatalf("ask window 0x%x to close: %v", id, err)
	}
}

// x11DeleteWindow sends WM_DELETE_WINDOW to window and waits until the
// server has handled the request (a round trip).
func x11DeleteWindow(conn io.ReadWriter, window uint32) error {
	le := binary.LittleEndian
	// Connection setup: little-endian, protocol 11.0, no authorisation
	// (Xvfb without -auth lets local clients in).
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
	intern := func(name string) (uint32, error) {
		pad := (4 - len(name)%4) % 4
		req := make([]byte, 8+len(name)+pad)
		req[0] = 16 // InternAtom
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
	protocols, err := intern("WM_PROTOCOLS")
	if err != nil {
		return err
	}
	deleteWindow, err := intern("WM_DELETE_WINDOW")
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
