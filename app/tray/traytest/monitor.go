package traytest

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
)

// Monitor watches the bus (org.freedesktop.DBus.Monitoring) for the calls
// the tray host makes to one tray item, so a test can wait until the host
// has read everything the item announced (Settle) and count the host's
// reads (Calls).
type Monitor struct {
	d     *Desktop
	host  string // the watcher's (the panel plugin's) unique bus name
	probe *dbus.Conn

	mu sync.Mutex
	// item is the item's unique bus name, once the test knows it (Item).
	// Calls are recorded by destination from the start, so none made
	// before the test learnt the name is lost: the panel may read a new
	// item's menu before its process has said its name (CI r7).
	item string
	// open are the host's calls to items not answered yet, by caller and
	// serial, with their destination.
	open map[string]string
	// calls counts every call to an item by destination and member
	// ("GetLayout", …); total by destination.
	calls map[string]map[string]int
	total map[string]int
	// probeReplies counts the answers the bus delivered to the probe
	// connection (which makes no call but Settle's).
	probeReplies int
}

// Monitor starts watching the tray host's calls to tray items; Item
// names the one the test counts. Start it before the item's process, so
// no call is missed. It ends with the test.
func (d *Desktop) Monitor(tb testing.TB) *Monitor {
	tb.Helper()
	mon, err := dbus.Connect(d.busAddr)
	if err != nil {
		tb.Fatalf("connect the bus monitor: %v", err)
	}
	done := make(chan struct{})
	tb.Cleanup(func() {
		// godbus's Close closes the eavesdrop channel but keeps sending
		// on it if a message is still read; handing it back first
		// avoids that panic.
		mon.Eavesdrop(nil)
		_ = mon.Close()
		close(done)
	})
	m := &Monitor{d: d, probe: d.Conn(tb), open: map[string]string{}, calls: map[string]map[string]int{}, total: map[string]int{}}
	if err := m.probe.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, WatcherName).Store(&m.host); err != nil {
		tb.Fatalf("find the tray host on the bus: %v", err)
	}
	// A monitor may not send, so godbus must hand every message to us
	// instead of answering calls itself; the channel is large so none is
	// dropped while the drain below runs.
	ch := make(chan *dbus.Message, 1<<14)
	mon.Eavesdrop(ch)
	// Every message, the bus's answer included, now goes to ch: the
	// call expects no answer, and the probe below shows the monitor is on.
	if call := mon.BusObject().Go("org.freedesktop.DBus.Monitoring.BecomeMonitor", dbus.FlagNoReplyExpected, nil, []string{}, uint32(0)); call.Err != nil {
		tb.Fatalf("become a bus monitor: %v", call.Err)
	}
	go m.drain(ch, done)
	d.Eventually(tb, "the bus monitor sees the bus", func() bool {
		var id string
		if err := m.probe.BusObject().Call("org.freedesktop.DBus.GetId", 0).Store(&id); err != nil {
			tb.Fatalf("ask the bus for its id: %v", err)
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.probeReplies > 0
	})
	return m
}

func (m *Monitor) drain(ch <-chan *dbus.Message, done <-chan struct{}) {
	probe := m.probe.Names()[0]
	for {
		var msg *dbus.Message
		select {
		case msg = <-ch:
		case <-done:
			return
		}
		if msg == nil {
			return
		}
		sender, _ := msg.Headers[dbus.FieldSender].Value().(string)
		dest, _ := msg.Headers[dbus.FieldDestination].Value().(string)
		m.mu.Lock()
		switch msg.Type {
		case dbus.TypeMethodCall:
			path, _ := msg.Headers[dbus.FieldPath].Value().(dbus.ObjectPath)
			member, _ := msg.Headers[dbus.FieldMember].Value().(string)
			if sender == m.host && strings.HasPrefix(string(path), "/StatusNotifierItem") {
				m.open[fmt.Sprintf("%s/%d", sender, msg.Serial())] = dest
				if m.calls[dest] == nil {
					m.calls[dest] = map[string]int{}
				}
				m.calls[dest][member]++
				m.total[dest]++
			}
		case dbus.TypeMethodReply, dbus.TypeError:
			// The answer to one of the host's calls, from the item or,
			// when the item is gone, from the bus.
			serial, _ := msg.Headers[dbus.FieldReplySerial].Value().(uint32)
			delete(m.open, fmt.Sprintf("%s/%d", dest, serial))
			if dest == probe {
				m.probeReplies++
			}
		}
		m.mu.Unlock()
	}
}

// Item names the item the monitor counts: the unique bus name its
// process owns.
func (m *Monitor) Item(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.item = name
}

// isItem says whether a destination is the item: its unique name or the
// well-known name fyne.io/systray takes beside it. The caller holds mu.
func (m *Monitor) isItem(dest string) bool {
	return m.item != "" && (dest == m.item || strings.HasPrefix(dest, "org.kde.StatusNotifierItem-"))
}

// openCalls and itemTotal are the item's unanswered calls and all its
// calls so far. The caller holds mu.
func (m *Monitor) openCalls() int {
	n := 0
	for _, dest := range m.open {
		if m.isItem(dest) {
			n++
		}
	}
	return n
}

func (m *Monitor) itemTotal() int {
	n := 0
	for dest, t := range m.total {
		if m.isItem(dest) {
			n += t
		}
	}
	return n
}

// Calls is how many calls of member the tray host made to the item so
// far.
func (m *Monitor) Calls(member string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for dest, c := range m.calls {
		if m.isItem(dest) {
			n += c[member]
		}
	}
	return n
}

// Settle waits until the tray host has no call to the item open and has
// handled everything it received before: it asks the host's watcher for a
// property (answered on the host's main loop, after what the host queued
// before) and looks again, until a round passes in which the host made no
// new call.
func (m *Monitor) Settle(tb testing.TB) {
	tb.Helper()
	for {
		m.d.Eventually(tb, "the tray host has answered or been answered on every call to the item", func() bool {
			m.mu.Lock()
			defer m.mu.Unlock()
			return m.openCalls() == 0
		})
		m.mu.Lock()
		before, answered := m.itemTotal(), m.probeReplies
		m.mu.Unlock()
		call := m.probe.Object(WatcherName, WatcherPath).Call("org.freedesktop.DBus.Properties.Get", 0, WatcherName, "RegisteredStatusNotifierItems")
		if call.Err != nil {
			tb.Fatalf("ask the tray host's watcher: %v", call.Err)
		}
		// The monitor has seen everything before the answer once it has
		// seen the answer.
		m.d.Eventually(tb, "the bus monitor saw the watcher's answer", func() bool {
			m.mu.Lock()
			defer m.mu.Unlock()
			return m.probeReplies > answered
		})
		m.mu.Lock()
		quiet := m.itemTotal() == before && m.openCalls() == 0
		m.mu.Unlock()
		if quiet {
			return
		}
	}
}
