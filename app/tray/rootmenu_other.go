//go:build !((linux || freebsd || openbsd || netbsd) && !android)

package tray

// declareRootSubmenu does nothing where the tray is not drawn over
// com.canonical.dbusmenu.
func declareRootSubmenu() {}
