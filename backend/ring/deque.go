package ring

// deque is a seq-ordered list of entries: append at the back, pop at the
// front, binary search by seq, and removal in the middle (coalescing, near
// the back in practice). Backed by a slice with a moving head that is
// compacted when half of it is dead, so every operation is amortised O(1)
// except search (O(log n)) and remove (O(log n) + entries after it).
type deque struct {
	buf  []*entry
	head int
}

func (d *deque) len() int { return len(d.buf) - d.head }

func (d *deque) at(i int) *entry { return d.buf[d.head+i] }

func (d *deque) front() *entry {
	if d.len() == 0 {
		return nil
	}
	return d.buf[d.head]
}

func (d *deque) push(e *entry) {
	if d.head > 0 && d.head >= len(d.buf)/2 && len(d.buf) == cap(d.buf) {
		n := copy(d.buf, d.buf[d.head:])
		clear(d.buf[n:])
		d.buf = d.buf[:n]
		d.head = 0
	}
	d.buf = append(d.buf, e)
}

func (d *deque) popFront() *entry {
	if d.len() == 0 {
		return nil
	}
	e := d.buf[d.head]
	d.buf[d.head] = nil
	d.head++
	if d.head == len(d.buf) {
		d.buf = d.buf[:0]
		d.head = 0
	}
	return e
}

// search returns the index of the first entry with seq > after.
func (d *deque) search(after uint64) int {
	lo, hi := 0, d.len()
	// Fast path: listeners are usually near the back.
	if hi > 0 && d.at(hi-1).seq <= after {
		return hi
	}
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if d.at(mid).seq <= after {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// remove deletes e (found by its seq) and reports whether it was there.
func (d *deque) remove(e *entry) bool {
	i := d.search(e.seq - 1)
	if i >= d.len() || d.at(i) != e {
		return false
	}
	j := d.head + i
	copy(d.buf[j:], d.buf[j+1:])
	d.buf[len(d.buf)-1] = nil
	d.buf = d.buf[:len(d.buf)-1]
	return true
}
