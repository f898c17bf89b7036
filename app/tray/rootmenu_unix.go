//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	_ "unsafe" // for go:linkname

	_ "fyne.io/systray" // defines findLayout
	"github.com/godbus/dbus/v5"
)

// dbusmenuLayout is fyne.io/systray's menuLayout, an alias of this struct
// (one com.canonical.dbusmenu layout node: id, properties, children).
type dbusmenuLayout = struct {
	V0 int32
	V1 map[string]dbus.Variant
	V2 []dbus.Variant
}

// systrayFindLayout is fyne.io/systray's findLayout (v1.12.2): the layout
// node of a menu id, the root for 0. fyne.io/systray has no API for the
// root's properties.
//
//go:linkname systrayFindLayout fyne.io/systray.findLayout
func systrayFindLayout(id int32) (*dbusmenuLayout, bool)

// declareRootSubmenu gives the menu's root node the property
// "children-display": "submenu", as every node with children should have.
//
// fyne.io/systray gives it to the parents of submenus but never to the
// root. libdbusmenu (the tray host's side, e.g. in xfce4-panel) sets it on
// its copy of the root itself when the root gets its first entries, and on
// the next layout it reads (fyne.io/systray's own second read 150 ms after
// the first, or the first change of the menu) it replaces the root's
// properties with the ones the item sends, so it drops children-display
// from a root that has a menu and warns "The child-display variable is set
// to '(null)' but there's a menu, odd?". With the property sent, nothing is
// dropped.
//
// It must run while the item is not on the bus yet (before systray's
// start), when nothing else reads the menu: the root has no lock of its own
// we could take. systray.ResetMenu replaces the root, so a menu drawn anew
// later goes without it (see Tray.Run).
func declareRootSubmenu() {
	root, ok := systrayFindLayout(0)
	if !ok || root == nil {
		return
	}
	if root.V1 == nil {
		root.V1 = map[string]dbus.Variant{}
	}
	root.V1["children-display"] = dbus.MakeVariant("submenu")
}
