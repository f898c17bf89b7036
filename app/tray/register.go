package tray

import (
	"context"
	"log/slog"

	"github.com/godbus/dbus/v5"
)

// The StatusNotifierItem names fyne.io/systray uses.
const (
	watcherName = "org.kde.StatusNotifierWatcher"
	watcherPath = "/StatusNotifierWatcher"
	itemPath    = "/StatusNotifierItem"
)

// stayRegistered registers the tray's item with every tray host
// (StatusNotifierWatcher) that runs now or starts later, until ctx ends or
// the bus connection closes.
//
// fyne.io/systray does this too, but it tries to register before it listens
// for a host starting: a host that starts in between (a panel starting at
// login beside Lets' autostart) is never told about the icon, and the
// person never sees it. Here the listening comes first, then the look at
// whether a host already runs. A host told twice keeps one icon: watchers
// key items by their bus name.
//
// conn must be the connection the item is exported on (systray's shared
// session bus connection): a watcher takes the caller's bus name as the
// item's.
func stayRegistered(ctx context.Context, conn *dbus.Conn, log *slog.Logger) {
	match := []dbus.MatchOption{
		dbus.WithMatchObjectPath("/org/freedesktop/DBus"),
		dbus.WithMatchInterface("org.freedesktop.DBus"),
		dbus.WithMatchSender("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, watcherName),
	}
	if err := conn.AddMatchSignal(match...); err != nil {
		log.Warn("the tray cannot follow tray hosts starting; the icon shows only if one runs now", "err", err)
		return
	}
	signals := make(chan *dbus.Signal, 8)
	conn.Signal(signals)
	defer conn.RemoveSignal(signals)

	register := func(why string) {
		call := conn.Object(watcherName, watcherPath).CallWithContext(ctx, watcherName+".RegisterStatusNotifierItem", 0, itemPath)
		if call.Err != nil {
			log.Debug("the tray host did not take the icon", "why", why, "err", call.Err)
			return
		}
		log.Debug("the tray icon is registered with the tray host", "why", why)
	}
	var running bool
	if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, watcherName).Store(&running); err == nil && running {
		register("a tray host runs")
	}
	for {
		select {
		case <-ctx.Done():
			return
		case sig, ok := <-signals:
			if !ok || sig == nil {
				return // the connection closed
			}
			if sig.Name != "org.freedesktop.DBus.NameOwnerChanged" || len(sig.Body) < 3 {
				continue
			}
			if name, _ := sig.Body[0].(string); name != watcherName {
				continue
			}
			if owner, _ := sig.Body[2].(string); owner != "" {
				register("a tray host started")
			}
		}
	}
}
