package render

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/orchestrator/query"
)

// MaxShotSide bounds each side of the image, in pixels: Chromium cannot
// composite a larger surface, and a page taller than that would make an
// image of hundreds of megabytes.
const MaxShotSide = 16384

// MaxShotPixels bounds the image's area. Chromium hands a screenshot over
// whole, base64 in one message on the connection every page of the
// sidecar shares: at this area even an incompressible png stays far below
// that connection's message limit and costs the orchestrator tens of
// megabytes, not half a gigabyte.
const MaxShotPixels = 1 << 24

// Shot is a captured screenshot. Chromium hands the image over whole
// (Page.captureScreenshot has no stream), so the captured area is bounded
// by MaxShotSide and MaxShotPixels.
type Shot struct {
	Data          []byte
	Width, Height int
}

// Screenshot captures the page as o asks.
func (p *Page) Screenshot(ctx context.Context, o *query.ScreenshotOptions) (*Shot, error) {
	if p.lease == nil {
		return nil, errors.New("a screenshot was asked of a page read without a browser")
	}
	sess := p.lease.Page()
	start := time.Now()

	if o.OmitBackground {
		if err := setBackgroundOverride(ctx, sess, true); err != nil {
			return nil, browserError(ctx, "making the page's background transparent", err)
		}
		defer func() {
			// Reset on a context of its own: the override must not outlive
			// the capture even when the request has run out of time.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			if err := setBackgroundOverride(rctx, sess, false); err != nil && !p.lease.IsLost() {
				p.log.Debug("the page's background override could not be reset", "err", err)
			}
		}()
	}

	t := true
	params := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormat(o.Type), FromSurface: &t}
	if o.OptimizeForSpeed {
		params.OptimizeForSpeed = &t
	}
	if o.Type != "png" {
		q := int64(o.Quality)
		params.Quality = &q
	}
	clip, err := p.screenshotClip(ctx, sess, o)
	if err != nil {
		return nil, err
	}
	if clip != nil {
		params.Clip = clip
		params.CaptureBeyondViewport = &t
	}
	res, err := cdp.Execute(ctx, sess, page.CaptureScreenshot, params)
	if err != nil {
		return nil, browserError(ctx, "taking the screenshot", err)
	}
	if len(res.Data) == 0 {
		return nil, errors.New("the browser returned an empty screenshot")
	}
	p.m.Phase.WithLabelValues("screenshot").Observe(time.Since(start).Seconds())
	_, width, height, _ := meta.ImageInfo(res.Data)
	p.log.Debug("screenshot taken", "type", o.Type, "bytes", len(res.Data), "width", width, "height", height,
		"took", time.Since(start))
	return &Shot{Data: res.Data, Width: width, Height: height}, nil
}

// screenshotClip is the area to capture in document coordinates: the
// whole content for fullPage, the element's box for element, and nil for
// the viewport as it is.
func (p *Page) screenshotClip(ctx context.Context, sess *cdp.Session, o *query.ScreenshotOptions) (*page.Viewport, error) {
	if o.Element == "" && !o.FullPage {
		if w, h := p.viewport[0], p.viewport[1]; w*h*p.scale*p.scale > MaxShotPixels {
			return &page.Viewport{Width: w, Height: p.capHeight(w, h), Scale: 1}, nil
		}
		return nil, nil
	}
	// The bound is on the image's pixels, so a page rendered at a higher
	// device pixel ratio gets fewer CSS pixels. The ratio is the one glimpse
	// emulates: the page's own window.devicePixelRatio is the page's to say,
	// and a page that says 1 at a real 3 would triple the image.
	maxSide := math.Floor(MaxShotSide / math.Max(p.scale, 1))
	if o.Element != "" {
		return p.elementClip(ctx, sess, o.Element, maxSide)
	}
	m, err := cdp.Execute(ctx, sess, page.GetLayoutMetrics, cdproto.Empty{})
	if err != nil {
		return nil, browserError(ctx, "measuring the page", err)
	}
	if m.CSSContentSize == nil {
		return nil, errors.New("the browser did not report the page's content size")
	}
	w := min(math.Ceil(m.CSSContentSize.Width), maxSide)
	h := p.capHeight(w, min(math.Ceil(m.CSSContentSize.Height), maxSide))
	if w < 1 || h < 1 {
		return nil, unreadable("The page has no content to take a screenshot of (its size is zero).")
	}
	if h < math.Ceil(m.CSSContentSize.Height) || w == maxSide {
		p.log.Debug("a full-page screenshot was cut at the largest size a browser can capture",
			"width", m.CSSContentSize.Width, "height", m.CSSContentSize.Height, "max", maxSide)
	}
	return &page.Viewport{X: 0, Y: 0, Width: w, Height: h, Scale: 1}, nil
}

// capHeight is h cut so that a capture w CSS pixels wide stays within
// MaxShotPixels at the emulated scale.
func (p *Page) capHeight(w, h float64) float64 {
	if w <= 0 {
		return h
	}
	return max(1, min(h, math.Floor(MaxShotPixels/(w*p.scale*p.scale))))
}

// elementBox is what the page reports about `screenshot.element`.
type elementBox struct {
	Problem string  `json:"problem"` // "syntax", "none" or ""
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
}

// elementClip finds the first element the selector matches and returns
// its border box in document coordinates, rounded outwards to whole
// pixels as puppeteer does.
func (p *Page) elementClip(ctx context.Context, sess *cdp.Session, selector string, maxSide float64) (*page.Viewport, error) {
	lit, err := json.Marshal(selector)
	if err != nil {
		return nil, err
	}
	js := `(() => {
  let el;
  try { el = document.querySelector(` + string(lit) + `); } catch (e) { return {problem: "syntax"}; }
  if (!el) return {problem: "none"};
  const r = el.getBoundingClientRect();
  return {problem: "", x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height};
})()`
	var box elementBox
	if err := evaluate(ctx, sess, js, &box); err != nil {
		return nil, browserError(ctx, "finding `screenshot.element`", err)
	}
	switch box.Problem {
	case "syntax":
		return nil, badInput("screenshot.element", selector,
			"`screenshot.element` %s is not a valid CSS selector; give one such as `#main`, `.card` or `article > header`.", apierr.Show(selector))
	case "none":
		return nil, badInput("screenshot.element", selector,
			"`screenshot.element` %s matches no element on the page; check the selector against the rendered page, or drop it to capture the viewport.",
			apierr.Show(selector))
	}
	// The part of the box before the document's start cannot be captured.
	left, top := math.Max(box.X, 0), math.Max(box.Y, 0)
	right, bottom := box.X+box.Width, box.Y+box.Height
	x, y := math.Round(left), math.Round(top)
	w := math.Min(math.Round(right-left+(left-x)), maxSide)
	h := p.capHeight(w, math.Min(math.Round(bottom-top+(top-y)), maxSide))
	if w < 1 || h < 1 {
		return nil, badInput("screenshot.element", selector,
			"`screenshot.element` %s matches an element with no visible box (it is hidden, empty or off the page); choose a visible element.",
			apierr.Show(selector))
	}
	return &page.Viewport{X: x, Y: y, Width: w, Height: h, Scale: 1}, nil
}

// backgroundColor and backgroundOverride spell out the alpha channel:
// cdproto's RGBA omits an alpha of zero, which Chromium then reads as
// opaque black.
type backgroundColor struct {
	R int64   `json:"r"`
	G int64   `json:"g"`
	B int64   `json:"b"`
	A float64 `json:"a"`
}

type backgroundOverride struct {
	Color *backgroundColor `json:"color,omitempty"`
}

// setBackgroundOverride makes the page's default background transparent,
// or restores the browser's white when on is false.
func setBackgroundOverride(ctx context.Context, sess *cdp.Session, on bool) error {
	var p backgroundOverride
	if on {
		p.Color = &backgroundColor{}
	}
	return sess.Call(ctx, "Emulation.setDefaultBackgroundColorOverride", p, nil)
}
