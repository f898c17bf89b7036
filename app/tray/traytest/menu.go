package traytest

import (
	"fmt"
	"strings"

	"github.com/godbus/dbus/v5"
)

// MenuNode is one entry of a com.canonical.dbusmenu layout, as a tray host
// reads it with GetLayout.
type MenuNode struct {
	ID      int32
	Label   string
	Type    string
	Enabled bool
	// Visible is false for the places a menu keeps hidden for lists that
	// may grow.
	Visible bool
	// ChildrenDisplay is the node's "children-display" ("submenu" on a
	// node with entries).
	ChildrenDisplay string
	Children        []MenuNode
}

// ParseLayout reads one (ia{sv}av) layout node and its children. Missing
// "enabled" and "visible" properties mean true, as the dbusmenu spec says.
func ParseLayout(v any) (MenuNode, error) {
	fields, ok := v.([]any)
	if !ok || len(fields) != 3 {
		return MenuNode{}, fmt.Errorf("layout node is %T %v, want (ia{sv}av)", v, v)
	}
	n := MenuNode{Enabled: true, Visible: true}
	n.ID, _ = fields[0].(int32)
	props, _ := fields[1].(map[string]dbus.Variant)
	if p, ok := props["label"]; ok {
		n.Label, _ = p.Value().(string)
	}
	if p, ok := props["type"]; ok {
		n.Type, _ = p.Value().(string)
	}
	if p, ok := props["enabled"]; ok {
		n.Enabled, _ = p.Value().(bool)
	}
	if p, ok := props["visible"]; ok {
		n.Visible, _ = p.Value().(bool)
	}
	if p, ok := props["children-display"]; ok {
		n.ChildrenDisplay, _ = p.Value().(string)
	}
	children, _ := fields[2].([]dbus.Variant)
	for _, c := range children {
		child, err := ParseLayout(c.Value())
		if err != nil {
			return n, err
		}
		n.Children = append(n.Children, child)
	}
	return n, nil
}

// GetLayout calls com.canonical.dbusmenu.GetLayout on the menu object at
// path of dest, the whole tree, and parses the answer.
func GetLayout(conn *dbus.Conn, dest string, path dbus.ObjectPath) (MenuNode, error) {
	call := conn.Object(dest, path).Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{})
	if call.Err != nil {
		return MenuNode{}, fmt.Errorf("GetLayout on %s: %w", path, call.Err)
	}
	if len(call.Body) != 2 {
		return MenuNode{}, fmt.Errorf("GetLayout on %s answered %v", path, call.Body)
	}
	return ParseLayout(call.Body[1])
}

// Shown are the visible entries as "label" lines (children indented by
// two more spaces, separators "---").
func (n MenuNode) Shown(indent string) []string {
	var out []string
	for _, c := range n.Children {
		if !c.Visible {
			continue
		}
		l := c.Label
		if c.Type == "separator" {
			l = "---"
		}
		out = append(out, indent+l)
		out = append(out, c.Shown(indent+"  ")...)
	}
	return out
}

// Find is the first visible entry, depth first, whose label starts with
// prefix; separators never match.
func (n MenuNode) Find(prefix string) (MenuNode, bool) {
	for _, c := range n.Children {
		if !c.Visible {
			continue
		}
		if c.Type != "separator" && strings.HasPrefix(c.Label, prefix) {
			return c, true
		}
		if f, ok := c.Find(prefix); ok {
			return f, true
		}
	}
	return MenuNode{}, false
}
