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

// A probe reads what describing the asset needs: the first bytes, where
// every image format keeps its type and dimensions, and, for an asset
// that does not say its length, at most maxAssetCountBytes in all to
// count it. A longer one is described without its size.
const (
	assetHeadBytes     = 64 << 10
	maxAssetCountBytes = 1 << 20
)

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
	head := make([]byte, assetHeadBytes)
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
			left := int64(maxAssetCountBytes - len(head))
			rest, err := io.Copy(io.Discard, io.LimitReader(body, left+1))
			if err != nil {
				return nil, err
			}
			size += rest
			if rest > left {
				size = 0 // longer than is worth counting: its size stays unknown
			}
		}
	}
	a := &Asset{URL: raw, Type: typ, Width: w, Height: h}
	if size > 0 {
		a.Size, a.SizePretty = size, meta.PrettyBytes(size)
	}
	return a, nil
}

// probeMedia describes a video or audio file from its response headers:
// its type and size. A file that does not say its length is counted as
// an image is, up to maxAssetCountBytes; a longer one keeps its size
// unknown, so a long film costs one round trip and a megabyte at most;
// what is not audio or video is refused.
func probeMedia(ctx context.Context, src render.Source, raw string) (*Asset, error) {
	ctx, cancel := context.WithTimeout(ctx, probeBudget)
	defer cancel()
	body, header, err := src.Open(ctx, raw)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	ct := strings.ToLower(header("content-type"))
	// A server that does not know the file's type says octet-stream, or
	// nothing; its name's extension then tells what it is.
	generic := ct == "" || strings.HasPrefix(ct, "application/octet-stream") || strings.HasPrefix(ct, "binary/octet-stream")
	if !strings.HasPrefix(ct, "video/") && !strings.HasPrefix(ct, "audio/") && (!generic || meta.MediaTypeOfURL(raw) == "") {
		return nil, fmt.Errorf("%s is %q, not audio or video", raw, ct)
	}
	a := &Asset{URL: raw, Type: meta.TypeFromContentType(ct)}
	if a.Type == "" {
		a.Type = meta.MediaTypeOfURL(raw)
	}
	n := render.BodySize(header)
	if n < 0 {
		counted, err := io.Copy(io.Discard, io.LimitReader(body, maxAssetCountBytes+1))
		if err == nil && counted <= maxAssetCountBytes {
			n = counted
		}
	}
	if n > 0 {
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
