package mcpserver

import (
	"io"
	"os"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lets-app/lets/backend/textsafe"
)

// The MCP channel is one JSON message per line. encoding/json escapes
// U+2028 and U+2029 but writes the C1 controls (NEL, U+0085, is a line
// break for some readers), DEL and the bidi controls raw, and what a
// unique emits reaches Claude through listen. So everything the server
// writes goes through textsafe.EscapeJSONControls: the same JSON values,
// none of those characters raw on the wire.

// safeTransport gives t a writer that escapes those characters, for the
// transports that write to a stream (`lets mcp` uses IOTransport; the
// SDK's StdioTransport is stdin and stdout). Other transports are
// returned as they are.
func safeTransport(t mcp.Transport) mcp.Transport {
	switch t := t.(type) {
	case *mcp.IOTransport:
		c := *t
		c.Writer = &escapingWriter{w: t.Writer}
		return &c
	case *mcp.StdioTransport:
		return &mcp.IOTransport{Reader: os.Stdin, Writer: &escapingWriter{w: nopCloser{os.Stdout}}, MaxLineLength: t.MaxLineLength}
	}
	return t
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// escapingWriter escapes each write with textsafe.EscapeJSONControls. The
// SDK writes one whole message per call; a write that ends inside a UTF-8
// sequence keeps that tail back until the next write completes it.
type escapingWriter struct {
	w    io.WriteCloser
	tail []byte
}

func (e *escapingWriter) Write(p []byte) (int, error) {
	buf := p
	if len(e.tail) > 0 {
		buf = append(e.tail, p...)
		e.tail = nil
	}
	if cut := incompleteTail(buf); cut > 0 {
		e.tail = append([]byte(nil), buf[len(buf)-cut:]...)
		buf = buf[:len(buf)-cut]
	}
	if _, err := e.w.Write(textsafe.EscapeJSONControls(buf)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close writes a held-back tail as it is, then closes the stream.
func (e *escapingWriter) Close() error {
	if len(e.tail) > 0 {
		_, _ = e.w.Write(e.tail)
		e.tail = nil
	}
	return e.w.Close()
}

// incompleteTail is how many bytes at the end of b start a UTF-8 sequence
// that b does not finish (0 when b ends on a whole character, or on bytes
// that can never become one).
func incompleteTail(b []byte) int {
	for n := 1; n < utf8.UTFMax && n <= len(b); n++ {
		if utf8.RuneStart(b[len(b)-n]) {
			if !utf8.FullRune(b[len(b)-n:]) {
				return n
			}
			return 0
		}
	}
	return 0
}
