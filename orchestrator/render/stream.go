package render

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"time"

	cdpio "github.com/chromedp/cdproto/io"

	"github.com/glimpse/glimpse/cdp"
)

// Stream is an io.Reader over a DevTools stream (IO.read), so a PDF flows
// from Chromium to storage in chunks and is never held whole.
type Stream struct {
	ctx    context.Context
	sess   *cdp.Session
	handle cdpio.StreamHandle
	buf    []byte
	eof    bool
	err    error
	closed bool
}

// readChunk is how much one IO.read asks for: big enough to keep round
// trips few, small enough to keep memory flat.
const readChunk = 512 << 10

func newStream(ctx context.Context, sess *cdp.Session, h cdpio.StreamHandle) *Stream {
	return &Stream{ctx: ctx, sess: sess, handle: h}
}

// ioReadResult decodes IO.read by hand: its data is base64 only when
// base64Encoded says so, which the generated []byte field cannot express.
type ioReadResult struct {
	Base64 bool   `json:"base64Encoded"`
	Data   string `json:"data"`
	EOF    bool   `json:"eof"`
}

func (r *Stream) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.eof {
			return 0, io.EOF
		}
		var res ioReadResult
		if err := r.sess.Call(r.ctx, cdpio.CommandRead, cdpio.ReadParams{Handle: r.handle, Size: readChunk}, &res); err != nil {
			r.err = err
			return 0, err
		}
		r.eof = res.EOF
		if res.Base64 {
			b, err := base64.StdEncoding.DecodeString(res.Data)
			if err != nil {
				r.err = fmt.Errorf("decoding a stream chunk: %w", err)
				return 0, r.err
			}
			r.buf = b
		} else {
			r.buf = []byte(res.Data)
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// Close releases the browser's stream on a fresh context, on every path.
func (r *Stream) Close() error {
	if r.closed || r.handle == "" {
		return nil
	}
	r.closed = true
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), 3*time.Second)
	defer cancel()
	_, err := cdp.Execute(ctx, r.sess, cdpio.Close, cdpio.CloseParams{Handle: r.handle})
	return err
}

// Err is what went wrong on the browser's side of the stream, if
// anything: a read that failed, as opposed to a reader that stopped.
func (r *Stream) Err() error {
	if r.err == nil {
		return nil
	}
	return browserError(r.ctx, "printing the PDF", r.err)
}
