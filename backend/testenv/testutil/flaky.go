package testutil

import (
	"strings"
	"testing"
)

// MarkFlaky marks a test known to fail now and then for a reason not yet
// mended. The test still runs and still fails when it fails: the mark only
// makes the reason travel with the failure, so a red CI names the known
// cause at once. Marks are tracked: TestFlakyMarksAreListed in this package
// finds every call in the tree and fails on one without a reason, and
// `make flaky` prints them. Modelled on Tailscale's flakytest.Mark.
func MarkFlaky(tb testing.TB, reason string) {
	tb.Helper()
	if strings.TrimSpace(reason) == "" {
		tb.Fatal("MarkFlaky needs a reason: say what fails and why")
	}
	tb.Logf("known flaky: %s", reason)
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("this failure may be the known flaky one: %s", reason)
		}
	})
}
