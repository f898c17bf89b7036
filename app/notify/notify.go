// Package notify shows desktop notifications through the session bus
// (the org.freedesktop.Notifications service that every desktop runs: a
// panel's notification area, dunst, xfce4-notifyd, GNOME Shell).
//
// It is a best-effort channel: every call is bounded by its context, a
// missing bus or service gives ErrNoDaemon, and nothing here ever blocks
// the caller longer than the context allows.
package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// The notification service's well-known name, object and interface.
const (
	ServiceName = "org.freedesktop.Notifications"
	ObjectPath  = "/org/freedesktop/Notifications"
	Interface   = "org.freedesktop.Notifications"
)

// Urgency is the notification's urgency level (the specification's
// "urgency" hint). The zero value is Normal: some desktops (GNOME Shell)
// show no banner for low urgency, so a Message that says nothing must not
// end up quiet.
type Urgency byte

// The urgency levels.
const (
	Normal Urgency = iota
	Low
	Critical
)

// wire is the level's byte in the specification: 0 low, 1 normal, 2
// critical.
func (u Urgency) wire() byte {
	switch u {
	case Low:
		return 0
	case Critical:
		return 2
	}
	return 1
}

// String names the level.
func (u Urgency) String() string {
	switch u {
	case Low:
		return "low"
	case Normal:
		return "normal"
	case Critical:
		return "critical"
	}
	return fmt.Sprintf("urgency(%d)", byte(u))
}

// Message is one notification.
type Message struct {
	// Summary is the one-line title; Body the longer text, plain words
	// (Send escapes & < > for servers that read the body as markup).
	Summary, Body string
	Urgency       Urgency
	// Replaces is the id of an earlier notification this one updates in
	// place (0: a new notification).
	Replaces uint32
	// Timeout is how long the notification stays; 0 leaves it to the
	// server's default.
	Timeout time.Duration
}

// ErrNoDaemon says there is no notification service to show a message:
// no session bus address, a bus that cannot be reached, or no owner of
// org.freedesktop.Notifications on it.
var ErrNoDaemon = errors.New("no desktop notification service on the session bus")

// Notifier sends notifications over one session bus. Its zero value is
// not usable; make one with New. It is safe for concurrent use.
type Notifier struct {
	busAddr  string
	appName  string
	iconPath string

	mu     sync.Mutex
	conn   *dbus.Conn
	markup *bool // whether the server reads the body as markup (asked once per connection)
}

// New returns a Notifier for the session bus at busAddr (the value of
// DBUS_SESSION_BUS_ADDRESS; "" means there is no bus and every Send gives
// ErrNoDaemon). appName and iconPath are shown with every notification
// (iconPath may be "", a file path, or an icon theme name). New does not
// connect: the first Send does, so making a Notifier never blocks.
func New(busAddr, appName, iconPath string) *Notifier {
	return &Notifier{busAddr: busAddr, appName: appName, iconPath: iconPath}
}

// Send shows m and returns the id the server gave it (pass it as Replaces
// to update the same notification). It returns within ctx's deadline;
// without a bus or a notification service it returns an error wrapping
// ErrNoDaemon.
func (n *Notifier) Send(ctx context.Context, m Message) (uint32, error) {
	if n == nil || n.busAddr == "" {
		return 0, fmt.Errorf("%w (no session bus address)", ErrNoDaemon)
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	conn, err := n.connect(ctx)
	if err != nil {
		return 0, err
	}
	markup := n.bodyMarkup(ctx, conn)
	id, err := notifyCall(ctx, conn, n.appName, n.iconPath, markup, m)
	if err != nil && isConnError(err) {
		// The bus went away under us (the session ended or restarted):
		// drop the connection so the next Send dials again.
		n.drop(conn)
	}
	return id, err
}

// Close closes the bus connection, if one was made.
func (n *Notifier) Close() error {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn == nil {
		return nil
	}
	err := n.conn.Close()
	n.conn = nil
	return err
}

func (n *Notifier) connect(ctx context.Context) (*dbus.Conn, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn != nil && n.conn.Connected() {
		return n.conn, nil
	}
	type result struct {
		conn *dbus.Conn
		err  error
	}
	// Dialing and the Hello call have no context of their own in godbus
	// (the handshake may hang on a stuck bus): run them aside and give up
	// when ctx ends, closing a late connection.
	done := make(chan result, 1)
	go func() {
		c, err := dbus.Connect(n.busAddr, dbus.WithContext(context.Background()))
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, fmt.Errorf("%w (cannot reach the session bus: %v)", ErrNoDaemon, r.err)
		}
		n.conn = r.conn
		return r.conn, nil
	case <-ctx.Done():
		go func() {
			if r := <-done; r.conn != nil {
				_ = r.conn.Close()
			}
		}()
		return nil, fmt.Errorf("%w (the session bus did not answer: %v)", ErrNoDaemon, ctx.Err())
	}
}

func (n *Notifier) drop(c *dbus.Conn) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn == c {
		_ = c.Close()
		n.conn = nil
		n.markup = nil
	}
}

// bodyMarkup asks the server once per connection whether it reads the
// body as markup (the "body-markup" capability). When the question fails
// it assumes markup, so & < > are escaped: an escaped body is never read
// as markup by a server that does, which matters more than an entity
// shown by one that does not.
func (n *Notifier) bodyMarkup(ctx context.Context, conn *dbus.Conn) bool {
	n.mu.Lock()
	if n.conn == conn && n.markup != nil {
		v := *n.markup
		n.mu.Unlock()
		return v
	}
	n.mu.Unlock()
	var caps []string
	err := conn.Object(ServiceName, ObjectPath).CallWithContext(ctx, Interface+".GetCapabilities", 0).Store(&caps)
	if err != nil {
		return true
	}
	v := false
	for _, c := range caps {
		if c == "body-markup" {
			v = true
		}
	}
	n.mu.Lock()
	if n.conn == conn {
		n.markup = &v
	}
	n.mu.Unlock()
	return v
}

// notifyCall makes the Notify call (specification 1.2:
// Notify(app_name s, replaces_id u, app_icon s, summary s, body s,
// actions as, hints a{sv}, expire_timeout i) → id u).
func notifyCall(ctx context.Context, conn *dbus.Conn, appName, icon string, markup bool, m Message) (uint32, error) {
	body := m.Body
	if markup {
		body = EscapeBody(body)
	}
	hints := map[string]dbus.Variant{
		"urgency": dbus.MakeVariant(m.Urgency.wire()),
	}
	if appName != "" {
		// Lets the server group notifications with the app's .desktop file.
		hints["desktop-entry"] = dbus.MakeVariant(desktopEntry(appName))
	}
	timeout := int32(-1)
	if m.Timeout > 0 {
		ms := m.Timeout.Milliseconds()
		if ms > 1<<31-1 {
			ms = 1<<31 - 1
		}
		if ms < 1 {
			ms = 1
		}
		timeout = int32(ms)
	}
	var id uint32
	call := conn.Object(ServiceName, ObjectPath).CallWithContext(ctx, Interface+".Notify", 0,
		appName, m.Replaces, icon, m.Summary, body, []string{}, hints, timeout)
	if call.Err != nil {
		var derr dbus.Error
		if errors.As(call.Err, &derr) && isNoService(derr.Name) {
			return 0, fmt.Errorf("%w (%s)", ErrNoDaemon, derr.Name)
		}
		if ctx.Err() != nil {
			return 0, fmt.Errorf("the notification service did not answer in time: %w", ctx.Err())
		}
		return 0, fmt.Errorf("notification not shown: %w", call.Err)
	}
	if err := call.Store(&id); err != nil {
		return 0, fmt.Errorf("notification service gave an odd reply: %w", err)
	}
	return id, nil
}

// isNoService says whether a D-Bus error name means nobody owns the
// notification service (and the bus could not start one).
func isNoService(name string) bool {
	switch name {
	case "org.freedesktop.DBus.Error.ServiceUnknown",
		"org.freedesktop.DBus.Error.NameHasNoOwner":
		return true
	}
	// The bus tried to start an installed service and could not (it
	// crashed without a display, its file is missing, …).
	return strings.HasPrefix(name, "org.freedesktop.DBus.Error.Spawn.")
}

func isConnError(err error) bool {
	return errors.Is(err, dbus.ErrClosed)
}

// desktopEntry is the desktop-entry hint for an app name: the .desktop
// file's name without its suffix, lower case ("Lets" → "lets").
func desktopEntry(appName string) string {
	b := []byte(appName)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// EscapeBody makes plain text safe for servers that read the body as
// markup (the specification allows a small HTML subset there): &, < and >
// become entities, which such a server shows as the characters again.
// Send escapes only for servers with the "body-markup" capability.
func EscapeBody(s string) string {
	var out []byte
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '&':
			out = append(out, "&amp;"...)
		case '<':
			out = append(out, "&lt;"...)
		case '>':
			out = append(out, "&gt;"...)
		default:
			out = append(out, s[i])
		}
	}
	return string(out)
}
