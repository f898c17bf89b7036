package lets

import (
	"testing"

	"github.com/lets-app/lets/backend/testenv/letstest"
)

// The home page lists paired phones only when the browser pad runs in this
// process; otherwise it gets nil and says how to pair one.
func TestHomeGetsPairedDevicesFromTheBrowserPad(t *testing.T) {
	var none *PadParts
	if none.pairedDevices() != nil {
		t.Fatal("no pad parts: want no device lister")
	}
	if (&PadParts{}).pairedDevices() != nil {
		t.Fatal("no browser pad: want no device lister")
	}
	p := &PadParts{web: letstest.StartWebSurface(t, false)}
	list := p.pairedDevices()
	if list == nil {
		t.Fatal("a running browser pad gave no device lister")
	}
	if got := list(); got == nil || len(got) != 0 {
		t.Fatalf("a pad nobody paired with: %#v, want an empty list", got)
	}
}
