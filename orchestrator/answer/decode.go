package answer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"runtime"
)

// Bounds of decoding an image glimpse did not make (an overlay's
// background). Decoding costs about its pixels times, for a progressive
// JPEG, its scans: a file of a few kilobytes may hold thousands of scans
// of a large picture and keep a core busy for minutes. What a decode may
// cost is read from the file's header before any pixel is decoded.
const (
	// maxJPEGScans is far above what encoders write (libjpeg's
	// progressive script has 10 scans, mozjpeg's some more).
	maxJPEGScans = 64
	// maxDecodeWork bounds pixels × scans: a 16-megapixel image in 16
	// scans, a 4-megapixel one in 64.
	maxDecodeWork = 1 << 28
	// decodeChunk is how much the decoder reads at a time; between reads
	// the request's deadline is checked.
	decodeChunk = 4 << 10
)

// decodeSlots bounds decodes running at once: they run before a browser
// is leased, so the lease queue does not limit them.
var decodeSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))

// errDecodeWork is an image whose decoding would cost more than allowed.
var errDecodeWork = errors.New("the image would cost too much to decode")

// decodeWork is what decoding data costs by its header: its pixels, times
// its scans for a JPEG.
func decodeWork(data []byte, format string, pixels int) (work int64, scans int, err error) {
	work, scans = int64(pixels), 1
	if format == "jpeg" {
		if scans, err = jpegScans(data); err != nil {
			return 0, 0, err
		}
		work *= int64(max(scans, 1))
	}
	return work, scans, nil
}

// checkDecodeWork refuses an image whose decoding would exceed the work
// budget.
func checkDecodeWork(data []byte, format string, pixels int) error {
	work, scans, err := decodeWork(data, format, pixels)
	if err != nil {
		return err
	}
	if scans > maxJPEGScans || work > maxDecodeWork {
		return fmt.Errorf("%w: %d pixels in %d scans, where at most %d scans and %d pixel-scans are decoded",
			errDecodeWork, pixels, scans, maxJPEGScans, maxDecodeWork)
	}
	return nil
}

// decodeWithin decodes data within ctx: one decode per core at a time,
// stopped at its next read once ctx ends.
func decodeWithin(ctx context.Context, data []byte) (image.Image, error) {
	select {
	case decodeSlots <- struct{}{}:
		defer func() { <-decodeSlots }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	img, _, err := image.Decode(&ctxReader{ctx: ctx, r: bytes.NewReader(data)})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return img, err
}

// ctxReader reads a little at a time and fails once its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) > decodeChunk {
		p = p[:decodeChunk]
	}
	return c.r.Read(p)
}

// jpegScans counts the scans (SOS segments) of a JPEG, walking its
// markers as a decoder does: entropy-coded data runs to the next marker,
// and bytes between segments are skipped.
func jpegScans(b []byte) (int, error) {
	if len(b) < 2 || b[0] != 0xFF || b[1] != 0xD8 {
		return 0, errors.New("not a JPEG")
	}
	scans := 0
	for i := 2; i+1 < len(b); {
		if b[i] != 0xFF {
			i++
			continue
		}
		m := b[i+1]
		switch {
		case m == 0xFF: // fill byte
			i++
			continue
		case m == 0xD9: // end of image
			return scans, nil
		case m == 0x00 || m == 0x01 || (m >= 0xD0 && m <= 0xD7): // no length
			i += 2
			continue
		}
		if i+3 >= len(b) {
			break
		}
		i += 2 + (int(b[i+2])<<8 | int(b[i+3]))
		if m != 0xDA {
			continue
		}
		scans++
		for i+1 < len(b) && (b[i] != 0xFF || b[i+1] == 0x00 || (b[i+1] >= 0xD0 && b[i+1] <= 0xD7)) {
			i++
		}
	}
	return scans, nil
}
