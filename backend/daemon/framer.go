package daemon

import "bytes"

// Framing limits of Wire Protocol 1 (§1, §3.1).
const (
	// ReadChunk is how many bytes one read takes from a connection; the
	// overflow check below runs after every read, so this size decides the
	// exact point at which an unterminated frame is refused.
	ReadChunk = 4096
	// MaxFrame is the largest accepted line content, newline not counted.
	MaxFrame = 65536
)

// framer cuts one connection's byte stream into lines exactly like the
// reference daemon (§3.1): after each read, more than MaxFrame buffered bytes
// with no newline among them is an overflow; otherwise every complete line is
// cut off, and blank lines are dropped. Lines longer than MaxFrame that did
// arrive complete are returned as they are: the decoder refuses them with
// frame_too_large and the connection stays open.
type framer struct {
	buf []byte
}

// feed appends one read's bytes. It returns the complete non-blank lines
// (copies, owned by the caller) and whether the connection overflowed, in
// which case lines is nil and the framer must not be fed again.
func (f *framer) feed(chunk []byte) (lines [][]byte, overflow bool) {
	// Everything before this read was cut at its last newline, so the
	// buffer holds a newline only if this chunk brought one.
	hasNewline := bytes.IndexByte(chunk, '\n') >= 0
	f.buf = append(f.buf, chunk...)
	if len(f.buf) > MaxFrame && !hasNewline {
		f.buf = nil
		return nil, true
	}
	if !hasNewline {
		return nil, false
	}
	rest := f.buf
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		line := rest[:i]
		rest = rest[i+1:]
		if isBlank(line) {
			continue
		}
		lines = append(lines, bytes.Clone(line))
	}
	// Keep the unterminated tail; reuse the buffer's storage when the tail
	// is small so a busy connection does not allocate per read.
	n := copy(f.buf, rest)
	f.buf = f.buf[:n]
	if cap(f.buf) > 4*MaxFrame && n < ReadChunk {
		f.buf = append([]byte(nil), f.buf...)
	}
	return lines, false
}

// pending reports how many unterminated bytes are held.
func (f *framer) pending() int { return len(f.buf) }

// isBlank reports whether a line holds only ASCII whitespace as Python's
// bytes.strip() sees it: space, \t, \n, \r, \v, \f.
func isBlank(line []byte) bool {
	for _, b := range line {
		switch b {
		case ' ', '\t', '\n', '\r', '\v', '\f':
		default:
			return false
		}
	}
	return true
}
