package claudehook_test

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

// BenchmarkQuestionAnsweredElsewhereCleared: from the later hook starting
// (the person answered in Claude's terminal, PostToolUse runs) to the
// waiting PermissionRequest hook gone and the pads no longer offering
// Approve/Reject, against the real daemon in this process.
func BenchmarkQuestionAnsweredElsewhereCleared(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		td := startDaemon(b)
		o := options(td, nil, nil)
		o.ApprovalTimeout = time.Hour
		o.Seq = int64(2*i + 1)
		r := startApprovalTB(b, o)
		waitAvailableTB(b, td, wire.ActionApprove, wire.ActionReject)
		later := options(td, nil, nil)
		later.Seq = int64(2*i + 2)
		b.StartTimer()
		if err := claudehook.Run(b.Context(), later, claudehook.EventPostToolUse, bytes.NewReader(stdinOf(b, claudehook.EventPostToolUse)), &bytes.Buffer{}); err != nil {
			b.Fatal(err)
		}
		<-r.done
		waitAvailableTB(b, td)
		b.StopTimer()
		td.stop()
		b.StartTimer()
	}
}

func startApprovalTB(tb testing.TB, o claudehook.Options) *running {
	r := &running{out: &bytes.Buffer{}, done: make(chan error, 1)}
	stdin := stdinOf(tb, claudehook.EventPermissionRequest)
	ctx := testCtx(tb)
	go func() {
		r.done <- claudehook.Run(ctx, o, claudehook.EventPermissionRequest, bytes.NewReader(stdin), r.out)
	}()
	return r
}

func waitAvailableTB(tb testing.TB, td *testDaemon, want ...wire.Action) {
	tb.Helper()
	if _, err := td.surface.WaitView(testutil.EventuallyTimeout, func(v control.View) bool { return slices.Equal(v.Available, want) }); err != nil {
		tb.Fatal(err)
	}
}
