package chatdriver

import (
	"testing"
)

// TestSetupStepsCannotBeClosedAway (issue #26: "pressing × on the three
// setup cards removes the install steps and Check again for good; writing
// again then says follow the steps below with nothing below"): every card
// of the install screen is drawn with dismissible: false, so the shell
// draws no × on it and the steps stay until Claude is ready.
func TestSetupStepsCannotBeClosedAway(t *testing.T) {
	sa := &scriptedAuth{state: NotInstalled}
	inst := newFakeInstaller()
	r := newRig(t, func(o *Options) {
		o.Auth = sa.auth
		o.InstallClaude = inst.install
	})
	win := r.open(t, "")
	sh := dialShell(t, r.h, win)
	cs := componentIDs(t, sh, 2)
	for _, id := range []string{idSetupNote, idSetupCheck} {
		c := cs[id]
		if c == nil {
			t.Fatalf("the install screen has no %s: %v", id, cs)
		}
		props, _ := c["props"].(map[string]any)
		if props["dismissible"] != false {
			t.Errorf("%s can be closed away (props %v)", id, props)
		}
	}
}
