package wireclient

import (
	"context"
	"fmt"
	"time"

	"github.com/lets-app/lets/backend/wire"
)

// Preview is a diagnostic preview connection (spec §6.7, §9.14): the
// preview belongs to this connection and disappears when it closes.
type Preview struct {
	cn *conn
	id string
}

// OpenPreview connects for previews with a fresh random id.
func (c *Client) OpenPreview(ctx context.Context) (*Preview, error) {
	cn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	return &Preview{cn: cn, id: NewID()}, nil
}

// ID is the preview id used by Show and End.
func (p *Preview) ID() string { return p.id }

// Show sets or refreshes the preview to state for ttl seconds
// (0 < ttl ≤ 30) and waits for preview_ack.
func (p *Preview) Show(ctx context.Context, st wire.State, ttl float64) error {
	r, err := p.cn.request(ctx, wire.PreviewCommand{PreviewID: p.id, State: st, TTL: ttl}, wire.TypePreviewAck)
	if err != nil {
		return err
	}
	if ack := r.(wire.PreviewAck); ack.PreviewID != p.id {
		return &wire.ProtocolError{Code: wire.CodeUnexpectedMessageType, Text: fmt.Sprintf("preview_ack for %q, expected %q", ack.PreviewID, p.id)}
	}
	return nil
}

// End ends the preview and waits for preview_end_ack.
func (p *Preview) End(ctx context.Context) error {
	_, err := p.cn.request(ctx, wire.PreviewEndCommand{PreviewID: p.id}, wire.TypePreviewEndAck)
	return err
}

// Close closes the connection (the daemon then clears the preview).
func (p *Preview) Close() error { return p.cn.Close() }

// Symbols shows the seven states in spec order on one connection with one
// preview id, each for hold (ttl = hold + 1 s), then ends the preview — the
// reference `symbols` command (case 124). each, if not nil, is called after
// each state is acknowledged. When ctx is cancelled the preview is ended
// best-effort and ctx's error returned.
func (c *Client) Symbols(ctx context.Context, hold time.Duration, each func(wire.State)) error {
	if hold <= 0 || hold.Seconds() >= wire.MaxPreviewTTL {
		return fmt.Errorf("hold must be more than 0 and less than %g seconds, got %v", wire.MaxPreviewTTL, hold)
	}
	// The reference sends hold+1, which the daemon refuses for holds past
	// 29 s; cap it at the longest preview instead.
	ttl := min(hold.Seconds()+1.0, wire.MaxPreviewTTL)
	p, err := c.OpenPreview(ctx)
	if err != nil {
		return err
	}
	defer p.Close()
	for _, st := range wire.States() {
		if err := p.Show(ctx, st, ttl); err != nil {
			return err
		}
		if each != nil {
			each(st)
		}
		t := time.NewTimer(hold)
		select {
		case <-ctx.Done():
			t.Stop()
			endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout())
			_ = p.End(endCtx)
			cancel()
			return ctx.Err()
		case <-t.C:
		}
	}
	return p.End(ctx)
}
