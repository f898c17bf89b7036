package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strconv"
	"syscall"

	"github.com/lets-app/lets/app/notify"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/surface/web"
)

// Start failures of the desktop app. Plain `lets` is started from a menu
// or at login, where nobody reads stderr: whatever stops it from starting
// is written to lets.log (when the log can be opened at all) and shown as
// a desktop notification that says what to do, besides stderr (the CLI's
// report). Headless `lets serve` keeps to stderr and its log.

// startFailureMessage words a start failure for the person: what went
// wrong and what to do, in plain words.
func startFailureMessage(err error, paths config.Paths) notify.Message {
	m := notify.Message{Summary: "Lets could not start", Urgency: notify.Critical}
	settings := "your settings file"
	if paths.Home != "" {
		settings += " (" + paths.ConfigFile() + ")"
	}
	var le *web.ListenError
	var ve *config.VersionError
	var addr *net.OpError
	switch {
	case errors.As(err, &le) && errors.Is(err, web.ErrPortInUse):
		m.Body = fmt.Sprintf("Another program is using port %d, the port your settings give the phone pad. Close that program, or change \"port\" under \"web\" in %s (0 lets Lets pick a free one), then start Lets again.", le.Port, settings)
	case errors.As(err, &ve):
		m.Body = fmt.Sprintf("Your settings file (%s) comes from a newer version of Lets. Update Lets, or move that file somewhere else to start with the usual settings, then start Lets again.", ve.Path)
	case errors.Is(err, daemon.ErrAlreadyRunning):
		m.Body = "Another program is already running the pad service Lets uses. Stop it (or turn off \"wire\" in " + settings + "), then start Lets again."
	case errors.Is(err, syscall.EADDRINUSE) && errors.As(err, &addr):
		m.Body = fmt.Sprintf("Another program is using the port Lets wants (%s). Close that program, or set \"host_port\" to 0 in %s, then start Lets again.", portOf(addr), settings)
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ENOSPC):
		where := "its data folder"
		if paths.Home != "" {
			where += " (" + paths.Home + ")"
		}
		m.Body = fmt.Sprintf("Lets cannot save into %s: %s. Make sure the folder is yours and the disk has room, then start Lets again.", where, plainCause(err))
	default:
		m.Body = fmt.Sprintf("Something stopped it: %v. Start Lets again; if this keeps happening, the details are in %s.", err, logHint(paths))
		return m
	}
	if paths.Home != "" {
		m.Body += " Details are in " + paths.LogFile() + "."
	}
	return m
}

// portOf names the port of a failed listen.
func portOf(e *net.OpError) string {
	if a, ok := e.Addr.(*net.TCPAddr); ok {
		return "port " + strconv.Itoa(a.Port)
	}
	if e.Addr != nil {
		return e.Addr.String()
	}
	return "its port"
}

// plainCause is the system's own short reason, without the paths and
// operations around it ("permission denied", "not a directory").
func plainCause(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

func logHint(paths config.Paths) string {
	if paths.Home == "" {
		return "the terminal output of `lets`"
	}
	return paths.LogFile()
}
