package web

// Command rate limit (§9): at most RateLimit accepted messages per
// authenticated connection within any RateWindow seconds.
const (
	RateLimit  = 20
	RateWindow = 1.0
)

// rateWindow keeps the times of the accepted messages of one connection,
// pruned on each message. Times are seconds on a monotonic scale.
type rateWindow struct {
	times []float64
}

// allow reports whether one more message at now is within the limit and,
// if so, records it. A timestamp at least RateWindow old no longer counts.
func (w *rateWindow) allow(now float64) bool {
	keep := w.times[:0]
	for _, t := range w.times {
		if now-t < RateWindow {
			keep = append(keep, t)
		}
	}
	w.times = keep
	if len(w.times) >= RateLimit {
		return false
	}
	w.times = append(w.times, now)
	return true
}
