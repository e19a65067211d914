package answer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/orchestrator/render"
)

// probeBudget bounds one asset probe; a slow image must not hold the answer.
const probeBudget = 4 * time.Second

// maxAssetBytes bounds how much of an asset without a content-length is
// read to learn its size.
const maxAssetBytes = 32 << 20

// probeAsset fetches an image candidate and fills the asset object from
// its header bytes; anything that is not an image is refused.
func probeAsset(ctx context.Context, src render.Source, raw string) (*Asset, error) {
	ctx, cancel := context.WithTimeout(ctx, probeBudget)
	defer cancel()
	body, header, err := src.Open(ctx, raw)
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
	size := render.BodySize(header)
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

// probeMedia describes a video or audio file from its response headers:
// its type and size. The body is not read, so a long film costs one
// round trip; what is not audio or video is refused.
func probeMedia(ctx context.Context, src render.Source, raw string) (*Asset, error) {
	ctx, cancel := context.WithTimeout(ctx, probeBudget)
	defer cancel()
	body, header, err := src.Open(ctx, raw)
	if err != nil {
		return nil, err
	}
	body.Close()
	ct := strings.ToLower(header("content-type"))
	if !strings.HasPrefix(ct, "video/") && !strings.HasPrefix(ct, "audio/") {
		return nil, fmt.Errorf("%s is %q, not audio or video", raw, ct)
	}
	a := &Asset{URL: raw, Type: meta.TypeFromContentType(ct)}
	if a.Type == "" {
		a.Type = meta.MediaTypeOfURL(raw)
	}
	if n := render.BodySize(header); n >= 0 {
		a.Size, a.SizePretty = n, meta.PrettyBytes(n)
	}
	return a, nil
}

// fetchText fetches a small text resource, such as a web app manifest.
func fetchText(ctx context.Context, src render.Source, raw string, limit int64) ([]byte, *url.URL, error) {
	ctx, cancel := context.WithTimeout(ctx, probeBudget)
	defer cancel()
	u, err := url.Parse(raw)
	if err != nil {
		return nil, nil, err
	}
	body, _, err := src.Open(ctx, raw)
	if err != nil {
		return nil, nil, err
	}
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, limit))
	return b, u, err
}
