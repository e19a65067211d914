package answer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // background images may be gif
	"image/jpeg"
	"image/png"
	"io"
	"time"

	_ "golang.org/x/image/webp" // and webp

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/overlay"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/orchestrator/render"
	"github.com/glimpse/glimpse/sidecar/guard"
)

// backgroundParam is the parameter every background error names.
const backgroundParam = "screenshot.overlay.background"

// Bounds of an overlay's background image: it is fetched for one request
// and drawn scaled to the canvas, so a larger one only costs memory.
const (
	backgroundBudget    = 8 * time.Second
	maxBackgroundBytes  = 16 << 20
	maxBackgroundSide   = 16384
	maxBackgroundPixels = 1 << 24 // 64 MiB decoded
	// maxOverlayPixels bounds the composed canvas; a screenshot within
	// render.MaxShotPixels always fits, with its margins.
	maxOverlayPixels = 1 << 25
)

// Prefetched is what an answer needs besides its page, fetched before a
// browser is leased, so that an unusable input fails at once.
type Prefetched struct {
	Background image.Image // the overlay's background image; nil for none
}

// FetchBackground fetches the overlay's background image at raw through
// src and decodes it. The caller has checked the address; the egress
// guard checks it again at connect time. The image's dimensions, and for
// a JPEG its scans, are read from its header and bounded before any pixel
// is decoded, and the decode stops with ctx.
func FetchBackground(ctx context.Context, src render.Source, raw string) (image.Image, error) {
	fctx, cancel := context.WithTimeout(ctx, backgroundBudget)
	defer cancel()
	body, header, err := src.Open(fctx, raw)
	if err != nil {
		return nil, backgroundFetchError(ctx, fctx, raw, err)
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, maxBackgroundBytes+1))
	if err != nil {
		return nil, backgroundFetchError(ctx, fctx, raw, err)
	}
	if len(data) > maxBackgroundBytes {
		return nil, backgroundError(raw, "`%s` %s is larger than %d MB; give a smaller image.", backgroundParam, apierr.Show(raw), maxBackgroundBytes>>20)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, backgroundError(raw, "`%s` %s is not a PNG, JPEG, GIF or WebP image (it answered %s); give the URL of one.",
			backgroundParam, apierr.Show(raw), apierr.Show(header("content-type")))
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > maxBackgroundSide || cfg.Height > maxBackgroundSide ||
		cfg.Width*cfg.Height > maxBackgroundPixels {
		return nil, backgroundError(raw, "`%s` %s is %d×%d pixels; a background image may have up to %d pixels, at most %d on a side.",
			backgroundParam, apierr.Show(raw), cfg.Width, cfg.Height, maxBackgroundPixels, maxBackgroundSide)
	}
	if err := checkDecodeWork(data, format, cfg.Width*cfg.Height); err != nil {
		e := backgroundError(raw, "`%s` %s would take too long to decode (%v); give a baseline or ordinary progressive image.",
			backgroundParam, apierr.Show(raw), err)
		e.Err = err
		return nil, e
	}
	img, err := decodeWithin(ctx, data)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, backgroundError(raw, "`%s` %s could not be decoded as %s (%v); give a valid image.", backgroundParam, apierr.Show(raw), format, err)
	}
	return img, nil
}

func backgroundError(raw, format string, args ...any) *apierr.Error {
	return apierr.Query(backgroundParam, raw, format, args...)
}

// backgroundFetchError words a failed fetch for the caller: the request's
// own deadline stays a timeout, the guard's refusal stays EFORBIDDENURL.
func backgroundFetchError(ctx, fctx context.Context, raw string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, render.ErrEgress) {
		// glimpse's own way out failed, not the image: the service's
		// error, which the caller may retry.
		return fmt.Errorf("fetching the overlay's background image: %w", err)
	}
	var re *render.Error
	if errors.As(err, &re) && (re.Kind == render.Forbidden || re.Kind == render.Unresolvable) {
		return BackgroundAddressError(raw, err)
	}
	if fctx.Err() != nil {
		return backgroundError(raw, "`%s` %s did not answer within %s; give an image that loads faster.", backgroundParam, apierr.Show(raw), backgroundBudget)
	}
	e := backgroundError(raw, "`%s` %s could not be fetched (%v); give a reachable image URL.", backgroundParam, apierr.Show(raw), err)
	e.Err = err
	return e
}

// BackgroundAddressError words the address rule's refusal of a
// background URL: the same code as for a refused target, naming the
// parameter instead of `url`.
func BackgroundAddressError(raw string, err error) error {
	var refused *guard.RefusedError
	var re *render.Error
	var ae *apierr.Error
	switch {
	case errors.As(err, &refused) || (errors.As(err, &re) && re.Kind == render.Forbidden) ||
		(errors.As(err, &ae) && ae.Code == apierr.CodeForbiddenURL):
		reason := "not public unicast"
		if refused != nil && refused.Reason != "" {
			reason = refused.Reason
		}
		e := apierr.New(apierr.CodeForbiddenURL, fmt.Sprintf(
			"`%s` %s is not allowed: it resolves to a non-public address (%s), and glimpse fetches background images from public addresses only; give a publicly reachable image URL, or a colour or gradient.",
			backgroundParam, apierr.Show(raw), reason))
		e.Param = backgroundParam
		e.Data = map[string]any{backgroundParam: apierr.Clip(raw, apierr.MaxDataValue)}
		e.Err = err
		return e
	case (errors.As(err, &re) && re.Kind == render.Unresolvable) || (errors.As(err, &ae) && ae.Code == apierr.CodeInvalidURL):
		e := backgroundError(raw, "`%s` %s names a host that does not resolve; check the URL.", backgroundParam, apierr.Show(raw))
		e.Err = err
		return e
	}
	return err
}

// composeOverlay draws the captured png in its overlay and encodes the
// result as o asks, within ctx's deadline.
func composeOverlay(ctx context.Context, o *query.ScreenshotOptions, shot []byte, pic image.Image) ([]byte, int, int, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(shot))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("reading the captured screenshot: %w", err)
	}
	if l := overlay.Plan(cfg.Width, cfg.Height, o.Overlay.Browser); l.Canvas.Dx()*l.Canvas.Dy() > maxOverlayPixels {
		e := apierr.New(apierr.CodeInvalidQuery, fmt.Sprintf(
			"The screenshot is %d×%d pixels, too large to compose with `screenshot.overlay`; capture less, without `screenshot.fullPage`, or drop the overlay.",
			cfg.Width, cfg.Height))
		e.Param = "screenshot.overlay"
		return nil, 0, 0, e
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("decoding the captured screenshot: %w", err)
	}
	bg, err := overlay.ParseBackground(o.Overlay.Background)
	if o.Overlay.Background == "" || err != nil {
		bg = overlay.Background{}
	}
	out, err := overlay.ComposeContext(ctx, img, overlay.Options{Browser: o.Overlay.Browser, Background: bg, Picture: pic, Opaque: o.Type == "jpeg"})
	if err != nil {
		return nil, 0, 0, err
	}
	var buf bytes.Buffer
	if o.Type == "jpeg" {
		err = jpeg.Encode(&buf, out, &jpeg.Options{Quality: max(1, o.Quality)})
	} else {
		err = png.Encode(&buf, out)
	}
	if err != nil {
		return nil, 0, 0, fmt.Errorf("encoding the composed screenshot: %w", err)
	}
	return buf.Bytes(), out.Bounds().Dx(), out.Bounds().Dy(), nil
}
