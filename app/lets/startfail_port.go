package lets

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/lets-app/lets/app/notify"
	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/config"
)

// A taken default port is not a start failure: when the browser pad's
// port is the usual one (config.DefaultWebPort, 8765) and another program
// holds it, Lets takes another loopback port, remembers it in the state
// folder and reuses it at the next start while the usual port stays taken. A port the
// person chose stays theirs: when it is taken, Lets does not start and
// says why.

// padPortFile holds the browser pad's last fallback port (state folder,
// 0600).
const padPortFile = "pad-port"

func padPortPath(p config.Paths) string { return filepath.Join(p.StateDir(), padPortFile) }

// portBinder binds a loopback port briefly and returns the port it got
// (port 0 picks a free one); it fails with EADDRINUSE when the port is
// taken.
type portBinder func(port int) (int, error)

// bindLoopback is the real portBinder: it listens on 127.0.0.1:port and
// closes again at once.
func bindLoopback(port int) (int, error) {
	ln, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return 0, err
	}
	got := ln.Addr().(*net.TCPAddr).Port
	return got, ln.Close()
}

// padPortChoice is where the browser pad listens.
type padPortChoice struct {
	Port int
	// Moved is true when the usual port was taken and Port is another.
	Moved bool
	// New is true when Moved picked a port other than the remembered one.
	New bool
}

// choosePadPort decides the browser pad's port. Only the usual port
// (usual; config.DefaultWebPort outside tests) moves:
// when it is taken, the remembered port is reused if it is free, else a
// free one is picked. A port that is not the usual one is returned as it
// is (opening it reports whatever is wrong), and so is the usual port when
// probing it failed for another reason than being taken.
func choosePadPort(configured, usual, remembered int, bind portBinder) (padPortChoice, error) {
	if configured != usual {
		return padPortChoice{Port: configured}, nil
	}
	if _, err := bind(configured); !errors.Is(err, syscall.EADDRINUSE) {
		return padPortChoice{Port: configured}, nil
	}
	if remembered > 0 && remembered != configured {
		if _, err := bind(remembered); err == nil {
			return padPortChoice{Port: remembered, Moved: true}, nil
		}
	}
	port, err := bind(0)
	if err != nil {
		return padPortChoice{}, fmt.Errorf("the browser pad's usual port %d is taken and no free port was found: %w", configured, err)
	}
	return padPortChoice{Port: port, Moved: true, New: port != remembered}, nil
}

// readPadPort reads the remembered fallback port; 0 when there is none or
// the file is not a port.
func readPadPort(p config.Paths) int {
	b, err := os.ReadFile(padPortPath(p))
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n <= 0 || n > 65535 {
		return 0
	}
	return n
}

// writePadPort remembers the fallback port.
func writePadPort(p config.Paths, port int) error {
	return atomicfile.Write(padPortPath(p), []byte(strconv.Itoa(port)+"\n"), 0o600)
}

// resolvePadPort applies choosePadPort to the configured port, remembers
// a moved port and says so in the log; the returned message, when not
// nil, tells the person (the desktop shows it once Lets runs).
func resolvePadPort(paths config.Paths, configured, usual int, bind portBinder, log *slog.Logger) (int, *notify.Message, error) {
	c, err := choosePadPort(configured, usual, readPadPort(paths), bind)
	if err != nil || !c.Moved {
		return configured, nil, err
	}
	if err := writePadPort(paths, c.Port); err != nil {
		log.Warn("could not remember the browser pad's port for the next start", "err", err)
	}
	log.Warn("the browser pad's usual port is busy (another program uses it), so it uses another one", "usual_port", configured, "port", c.Port, "remembered_in", padPortPath(paths))
	if !c.New {
		// Said at the start that picked it; the log line is enough now.
		return c.Port, nil, nil
	}
	return c.Port, &notify.Message{
		Summary: "Lets uses another port for the phone pad",
		Body:    fmt.Sprintf("The phone pad's usual port was busy, so Lets uses port %d. Lets keeps using it while the usual port (%d) is taken.", c.Port, configured),
		Urgency: notify.Normal,
	}, nil
}
