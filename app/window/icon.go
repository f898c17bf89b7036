package window

import _ "embed"

// AppIcon is the Lets app icon (build/icons/128x128/lets.png, the same
// picture as the desktop entry's and the tray's family): every window
// carries it, so the taskbar and the window switcher show Lets' icon.
// TestAppIconIsTheBuildIcon keeps the copy fresh.
//
//go:embed appicon.png
var AppIcon []byte

// WMClass is the class part of every window's WM_CLASS; the desktop
// entry's StartupWMClass (build/linux/lets.desktop) names it, so the
// desktop groups the windows under Lets (not "lets-window", the program's
// file name).
const WMClass = "Lets"

// WMName is the name part of WM_CLASS (and GLib's program name).
const WMName = "lets"
