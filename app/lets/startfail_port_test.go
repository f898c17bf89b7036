package lets

import (
	"net"
	"os"
	"syscall"
	"testing"
)

// choosePadPort's rules with a fake binder.
func TestChoosePadPort(t *testing.T) {
	taken := map[int]bool{}
	next := 40000
	bind := func(port int) (int, error) {
		if port == 0 {
			next++
			return next, nil
		}
		if taken[port] {
			return 0, &net.OpError{Op: "listen", Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}
		}
		return port, nil
	}
	check := func(configured, remembered int, want padPortChoice) {
		t.Helper()
		got, err := choosePadPort(configured, 8765, remembered, bind)
		if err != nil || got != want {
			t.Errorf("choosePadPort(%d, %d) = %+v, %v; want %+v", configured, remembered, got, err, want)
		}
	}
	check(8765, 0, padPortChoice{Port: 8765})
	check(8765, 41000, padPortChoice{Port: 8765}) // the usual port when free
	taken[8765] = true
	check(8765, 0, padPortChoice{Port: 40001, Moved: true, New: true})
	check(8765, 41000, padPortChoice{Port: 41000, Moved: true})
	taken[41000] = true
	check(8765, 41000, padPortChoice{Port: 40002, Moved: true, New: true})
	// A port the person chose stays, taken or not: opening it says why.
	check(9000, 41000, padPortChoice{Port: 9000})
	taken[9000] = true
	check(9000, 0, padPortChoice{Port: 9000})
	check(0, 41000, padPortChoice{Port: 0})
}
