package orchestrator

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	cdpio "github.com/chromedp/cdproto/io"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/orchestrator/meta"
)

var errStreamDone = errors.New("stream closed")

// streamReader is an io.Reader over a DevTools stream (IO.read), so a PDF
// flows from Chromium to storage in chunks and is never held whole.
type streamReader struct {
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

func newStreamReader(ctx context.Context, sess *cdp.Session, h cdpio.StreamHandle) *streamReader {
	return &streamReader{ctx: ctx, sess: sess, handle: h}
}

// ioReadResult decodes IO.read by hand: its data is base64 only when
// base64Encoded says so, which the generated []byte field cannot express.
type ioReadResult struct {
	Base64 bool   `json:"base64Encoded"`
	Data   string `json:"data"`
	EOF    bool   `json:"eof"`
}

func (r *streamReader) Read(p []byte) (int, error) {
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
func (r *streamReader) Close() error {
	if r.closed || r.handle == "" {
		return nil
	}
	r.closed = true
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), 3*time.Second)
	defer cancel()
	_, err := cdp.Execute(ctx, r.sess, cdpio.Close, cdpio.CloseParams{Handle: r.handle})
	return err
}

// probeBudget bounds one asset probe; a slow image must not hold the answer.
const probeBudget = 4 * time.Second

// maxAssetBytes bounds how much of an asset without a content-length is
// read to learn its size.
const maxAssetBytes = 32 << 20

// source opens a resource along the page's own egress path: through the
// leased browser, or through a sidecar's guard for plain fetches.
type source interface {
	open(ctx context.Context, raw string) (body io.ReadCloser, header func(string) string, err error)
}

// probeAsset fetches an image candidate and fills the asset object from
// its header bytes; anything that is not an image is refused.
func probeAsset(ctx context.Context, src source, raw string) (*Asset, error) {
	ctx, cancel := context.WithTimeout(ctx, probeBudget)
	defer cancel()
	body, header, err := src.open(ctx, raw)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	head := make([]byte, 64<<10)
	n, err := io.ReadFull(body, head)
	head = head[:n]
	eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	if err != nil && !eof {
		return nil, err
	}
	typ, w, h, ok := meta.ImageInfo(head)
	if !ok {
		return nil, fmt.Errorf("%s is not an image", raw)
	}
	if meta.Negligible(w, h) {
		return nil, fmt.Errorf("%s is a %dx%d pixel, not an image worth showing", raw, w, h)
	}
	if ct := header("content-type"); typ == "" && ct != "" {
		typ = meta.TypeFromContentType(ct)
	}
	size := int64(-1)
	if cl := header("content-length"); cl != "" && header("content-encoding") == "" {
		if n, err := strconv.ParseInt(strings.TrimSpace(cl), 10, 64); err == nil && n >= 0 {
			size = n
		}
	}
	if size < 0 {
		size = int64(len(head))
		if !eof {
			rest, err := io.Copy(io.Discard, io.LimitReader(body, maxAssetBytes))
			if err != nil {
				return nil, err
			}
			size += rest
		}
	}
	return &Asset{URL: raw, Type: typ, Size: size, SizePretty: meta.PrettyBytes(size), Width: w, Height: h}, nil
}

// fetchText fetches a small text resource, such as a web app manifest.
func fetchText(ctx context.Context, src source, raw string, limit int64) ([]byte, *url.URL, error) {
	ctx, cancel := context.WithTimeout(ctx, probeBudget)
	defer cancel()
	u, err := url.Parse(raw)
	if err != nil {
		return nil, nil, err
	}
	body, _, err := src.open(ctx, raw)
	if err != nil {
		return nil, nil, err
	}
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, limit))
	return b, u, err
}
