package hostclient

import (
	"bytes"
	"io"
	"net/http"
	"strconv"

	"github.com/lets-app/lets/backend/config"
)

// NewLocal returns a client of the host in this process: every request is
// served by h (the host's LocalHandler) in memory, with no TCP connection
// and no host.json. Options.HTTP and Options.Start are ignored.
func NewLocal(h http.Handler, opts Options) *Client {
	opts.HTTP = &http.Client{Transport: handlerTransport{h: h}}
	opts.Start = nil
	c := New(config.Paths{}, opts)
	c.local = true
	return c
}

// handlerTransport is a RoundTripper that calls a handler.
type handlerTransport struct {
	h http.Handler
}

// RoundTrip serves req with the handler and returns what it wrote.
func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	in := req.Clone(req.Context())
	if in.Body == nil {
		in.Body = http.NoBody
	}
	in.RequestURI = in.URL.RequestURI()
	if in.RemoteAddr == "" {
		in.RemoteAddr = "127.0.0.1:0"
	}
	rec := &recorder{header: http.Header{}}
	t.h.ServeHTTP(rec, in)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return &http.Response{
		Status:        strconv.Itoa(rec.status) + " " + http.StatusText(rec.status),
		StatusCode:    rec.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rec.header,
		Body:          io.NopCloser(bytes.NewReader(rec.body.Bytes())),
		ContentLength: int64(rec.body.Len()),
		Request:       req,
	}, nil
}

// recorder is the ResponseWriter of an in-memory request.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// Flush lets a handler that flushes work in memory too.
func (r *recorder) Flush() {}
