package host

import (
	"context"
	"time"

	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/ring"
)

// eventRing is the host's handle on the up-event ring.
type eventRing struct {
	r *ring.Ring
}

// append stores an accepted, stamped up-event; e.Seq is set to its ring
// position (0 when it never enters the ring, e.g. a pointer move).
func (er *eventRing) append(e *lip.Envelope, _ time.Time) {
	res := er.r.Append(*e)
	e.Seq = res.Seq
}

func (er *eventRing) listen(ctx context.Context, q ring.Query) (ring.Result, error) {
	return er.r.Listen(ctx, q)
}
