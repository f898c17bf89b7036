package daemon

import (
	"errors"
	"net"
	"sync"
	"syscall"
	"time"
)

// Output limits: the policy for clients that stop reading.
//
// The reference buffers output without bound (§2.5). A Go daemon that does
// the same lets one stuck client grow memory forever, so this one closes a
// connection — exactly as if the peer had disconnected, with the full
// disconnect cleanup of §9.12 — when either
//   - its unsent output exceeds MaxQueuedBytes (checked when a message is
//     queued, on the owner goroutine, which therefore never blocks), or
//   - one write makes no complete progress within WriteTimeout.
//
// No legitimate Pad-Lattice client comes near these bounds: every request
// has one short answer and subscribers read continuously.
const (
	MaxQueuedBytes = 8 << 20
	WriteTimeout   = 10 * time.Second
	// maxBatch bounds one vectored write, so the write deadline measures
	// progress rather than the size of a backlog.
	maxBatch = 256 << 10
)

// readBufs holds read buffers. A connection only borrows one while its
// socket is readable, so idle connections cost no buffer.
var readBufs = sync.Pool{New: func() any { b := make([]byte, ReadChunk); return &b }}

// conn is one accepted client. The owner goroutine queues output; a writer
// goroutine, started only while output is pending, writes it in order.
type conn struct {
	id int64
	nc *net.UnixConn
	rc syscall.RawConn

	mu      sync.Mutex
	queue   [][]byte
	queued  int  // bytes in queue
	writing bool // a writer goroutine is running
	closing bool // no more output is accepted
	flush   bool // when closing: write what is queued first
	closed  bool // the socket has been closed
	wg      *sync.WaitGroup
	// onClose runs once, when the socket is closed (connection counting).
	onClose func()

	// Owned by the owner goroutine.
	cleaned bool // disconnect cleanup has run
}

// errQueueFull means a message was refused because the client is not
// reading; the caller closes the connection.
var errQueueFull = errors.New("client is not reading its output")

// send queues one encoded line (with its newline). It never blocks.
func (c *conn) send(line []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return nil
	}
	if c.queued+len(line) > MaxQueuedBytes {
		return errQueueFull
	}
	c.queue = append(c.queue, line)
	c.queued += len(line)
	c.startWriterLocked()
	return nil
}

func (c *conn) startWriterLocked() {
	if c.writing || c.closed {
		return
	}
	c.writing = true
	c.wg.Add(1)
	go c.writeLoop()
}

// shutdown stops the connection. With flush, queued output is written first
// (bounded by WriteTimeout); without, the socket closes at once.
func (c *conn) shutdown(flush bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		if !flush && !c.closed {
			c.flush = false
			c.closeLocked()
		}
		return
	}
	c.closing = true
	c.flush = flush
	if flush && len(c.queue) > 0 {
		c.startWriterLocked() // it closes the socket when done
		return
	}
	if c.writing && flush {
		return // the running writer sees closing after its batch
	}
	c.closeLocked()
}

// isClosed reports whether the socket has been closed.
func (c *conn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

func (c *conn) closeLocked() {
	if c.closed {
		return
	}
	c.closed = true
	c.queue, c.queued = nil, 0
	c.nc.Close()
	if c.onClose != nil {
		c.onClose()
	}
}

// writeLoop writes queued lines until the queue is empty, then exits.
func (c *conn) writeLoop() {
	defer c.wg.Done()
	var bufs net.Buffers
	for {
		c.mu.Lock()
		if c.closed || len(c.queue) == 0 || (c.closing && !c.flush) {
			c.writing = false
			if c.closing {
				c.closeLocked()
			}
			c.mu.Unlock()
			return
		}
		n, size := 0, 0
		for n < len(c.queue) && (n == 0 || size+len(c.queue[n]) <= maxBatch) {
			size += len(c.queue[n])
			n++
		}
		bufs = append(bufs[:0], c.queue[:n]...)
		clear(c.queue[:n])
		c.queue = c.queue[n:]
		if len(c.queue) == 0 {
			c.queue = nil
		}
		c.queued -= size
		c.mu.Unlock()

		c.nc.SetWriteDeadline(time.Now().Add(WriteTimeout))
		if _, err := bufs.WriteTo(c.nc); err != nil {
			// Broken pipe, timeout or closed: close the socket; the
			// reader then reports the disconnect to the owner.
			c.mu.Lock()
			c.writing = false
			c.closing = true
			c.closeLocked()
			c.mu.Unlock()
			return
		}
	}
}

// readResult is what one wait-and-read on the socket produced.
type readResult struct {
	lines    [][]byte
	overflow bool
	eof      bool
}

// readOnce waits until the socket is readable, reads one chunk of at most
// ReadChunk bytes into a pooled buffer and frames it.
func (c *conn) readOnce(f *framer) (readResult, error) {
	var (
		res     readResult
		readErr error
	)
	err := c.rc.Read(func(fd uintptr) bool {
		bp := readBufs.Get().(*[]byte)
		n, err := syscall.Read(int(fd), *bp)
		for err == syscall.EINTR {
			n, err = syscall.Read(int(fd), *bp)
		}
		if err == syscall.EAGAIN || err == syscall.EWOULDBLOCK {
			readBufs.Put(bp)
			return false // wait for readability
		}
		switch {
		case err != nil:
			readErr = err
		case n == 0:
			res.eof = true
		default:
			res.lines, res.overflow = f.feed((*bp)[:n])
		}
		readBufs.Put(bp)
		return true
	})
	if err != nil {
		return res, err
	}
	return res, readErr
}
