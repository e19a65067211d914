package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/pool"
	"github.com/glimpse/glimpse/storage"
)

const (
	defaultShotQuality = 80
	// maxShotSide bounds each side of the image, in pixels: Chromium
	// cannot composite a larger surface, and a page taller than that would
	// make an image of hundreds of megabytes.
	maxShotSide = 16384
	// maxElementSelector bounds `screenshot.element`; real selectors are
	// short, and the value travels into the page's script.
	maxElementSelector = 1024
)

// ScreenshotOptions are the `screenshot.*` parameters. They hold plain
// values only: the cache key prints them with %+v.
type ScreenshotOptions struct {
	Type           string // "png", "jpeg" or "webp"
	Quality        int    // 0 to 100 for jpeg and webp; 0 for png, which is lossless
	FullPage       bool   // the whole document instead of the viewport
	Element        string // a CSS selector: only that element's box; "" for none
	OmitBackground bool   // no default white behind the page (png and webp)
}

// String is the options' unambiguous spelling, which the cache key
// prints: the element selector may hold any text.
func (o ScreenshotOptions) String() string {
	b, err := json.Marshal(o) // encoding/json ignores String, so this does not recurse
	if err != nil {
		return o.Type
	}
	return string(b)
}

// screenshotOptionNames maps every accepted spelling of a screenshot
// option to its camelCase name.
var screenshotOptionNames = map[string]string{
	"type": "type", "quality": "quality", "element": "element",
	"fullPage": "fullPage", "full_page": "fullPage",
	"omitBackground": "omitBackground", "omit_background": "omitBackground",
}

const screenshotOptionList = "`screenshot.type`, `screenshot.quality`, `screenshot.fullPage`, " +
	"`screenshot.element` and `screenshot.omitBackground`"

// screenshotMedia is the content type and file extension of each format.
var screenshotMedia = map[string]struct{ contentType, ext string }{
	"png":  {"image/png", "png"},
	"jpeg": {"image/jpeg", "jpg"},
	"webp": {"image/webp", "webp"},
}

// screenshotParam recognises the screenshot parameters. The whole
// `screenshot.` family is known, so that a mistyped option is reported
// instead of silently giving a different picture.
func screenshotParam(name string) (string, bool) {
	if name == "screenshot" {
		return name, true
	}
	rest, ok := strings.CutPrefix(name, "screenshot.")
	if !ok {
		return "", false
	}
	if c, ok := screenshotOptionNames[rest]; ok {
		return "screenshot." + c, true
	}
	return name, true
}

// parseScreenshot reads `screenshot` and `screenshot.*` into
// req.Screenshot. Like `pdf`, a bare `screenshot` means true and any
// option turns the screenshot on.
func parseScreenshot(q *query, req *Request) error {
	var options []*param
	for _, p := range q.order {
		if strings.HasPrefix(p.name, "screenshot.") {
			if _, known := screenshotOptionNames[strings.TrimPrefix(p.name, "screenshot.")]; !known {
				return queryError(p.given, p.value, "`%s` is not a screenshot option; use %s.", p.given, screenshotOptionList)
			}
			options = append(options, p)
		}
	}
	on := len(options) > 0
	if p, ok := q.get("screenshot"); ok {
		v, ok := parseBool(p.value, true)
		if !ok {
			return boolError(p, true)
		}
		if !v && len(options) > 0 {
			return queryError(p.given, p.value,
				"`%s=false` turns the screenshot off, but `%s` sets a screenshot option; remove `%s=false` to get a screenshot, or drop the `screenshot.` options.",
				p.given, options[0].given, p.given)
		}
		on = on || v
	}
	if !on {
		return nil
	}

	o := &ScreenshotOptions{Type: "png"}
	if p, ok := q.get("screenshot.type"); ok {
		switch v := strings.ToLower(strings.TrimSpace(p.value)); v {
		case "png", "jpeg", "webp":
			o.Type = v
		case "jpg":
			o.Type = "jpeg"
		default:
			return queryError(p.given, p.value, "`%s` must be `png`, `jpeg` or `webp`, got %s.", p.given, show(p.value))
		}
	}
	if o.Type != "png" {
		o.Quality = defaultShotQuality
	}
	if p, ok := q.get("screenshot.quality"); ok {
		v := strings.TrimSpace(p.value)
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 100 || strings.HasPrefix(v, "+") {
			return queryError(p.given, p.value, "`%s` must be a whole number from 0 to 100, got %s.", p.given, show(p.value))
		}
		if o.Type == "png" {
			return queryError(p.given, p.value,
				"`%s` applies to jpeg and webp screenshots only (png is lossless); add `screenshot.type=jpeg` or `screenshot.type=webp`, or drop `%s`.",
				p.given, p.given)
		}
		o.Quality = n
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"screenshot.fullPage", &o.FullPage}, {"screenshot.omitBackground", &o.OmitBackground}} {
		if p, ok := q.get(b.name); ok {
			v, ok := parseBool(p.value, false)
			if !ok {
				return boolError(p, false)
			}
			*b.dst = v
		}
	}
	if p, ok := q.get("screenshot.element"); ok {
		v := strings.TrimSpace(p.value)
		switch {
		case v == "":
			return queryError(p.given, p.value, "`%s` needs a CSS selector, such as `#main` or `.card`.", p.given)
		case len(v) > maxElementSelector:
			return queryError(p.given, p.value, "`%s` is %d bytes long; a selector may have up to %d bytes.", p.given, len(v), maxElementSelector)
		}
		o.Element = v
		if o.FullPage {
			fp, _ := q.get("screenshot.fullPage")
			return queryError(fp.given, fp.value,
				"`%s=true` and `%s` cannot be combined: an element's screenshot is the element's box; drop one of them.", fp.given, p.given)
		}
	}
	if o.OmitBackground && o.Type == "jpeg" {
		p, _ := q.get("screenshot.omitBackground")
		return queryError(p.given, p.value,
			"`%s=true` needs a format with transparency, but jpeg has none; add `screenshot.type=png` or `screenshot.type=webp`.", p.given)
	}
	req.Screenshot = o
	return nil
}

// captureScreenshot takes the screenshot and stores it like a PDF; it
// returns the asset object and the storage key for embed. Chromium hands
// the image over whole (Page.captureScreenshot has no stream), so the
// captured area is bounded by maxShotSide.
func (s *Server) captureScreenshot(ctx context.Context, lease *pool.Lease, req *Request, key string) (*Asset, string, error) {
	o := req.Screenshot
	if lease == nil {
		return nil, "", Fatal(errors.New("a screenshot was asked of a page read without a browser"))
	}
	media, ok := screenshotMedia[o.Type]
	if !ok {
		return nil, "", Fatal(fmt.Errorf("unknown screenshot type %q", o.Type))
	}
	sess := lease.Session
	start := time.Now()

	if o.OmitBackground {
		if err := setBackgroundOverride(ctx, sess, true); err != nil {
			return nil, "", s.browserError(ctx, "making the page's background transparent", err)
		}
		defer func() {
			// Reset on a context of its own: the override must not outlive
			// the capture even when the request has run out of time.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			if err := setBackgroundOverride(rctx, sess, false); err != nil && !lease.IsLost() {
				s.log.Debug("the page's background override could not be reset", "err", err)
			}
		}()
	}

	t := true
	params := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormat(o.Type), FromSurface: &t}
	if o.Type != "png" {
		q := int64(o.Quality)
		params.Quality = &q
	}
	clip, err := s.screenshotClip(ctx, sess, o)
	if err != nil {
		return nil, "", err
	}
	if clip != nil {
		params.Clip = clip
		params.CaptureBeyondViewport = &t
	}
	res, err := cdp.Execute(ctx, sess, page.CaptureScreenshot, params)
	if err != nil {
		return nil, "", s.browserError(ctx, "taking the screenshot", err)
	}
	if len(res.Data) == 0 {
		return nil, "", Fatal(errors.New("the browser returned an empty screenshot"))
	}
	s.m.Phase.WithLabelValues("screenshot").Observe(time.Since(start).Seconds())
	_, width, height, _ := meta.ImageInfo(res.Data)
	s.log.Debug("screenshot taken", "type", o.Type, "bytes", len(res.Data), "width", width, "height", height,
		"took", time.Since(start))

	upStart := time.Now()
	objKey := storage.PublicPrefix + "shot/" + key + "." + media.ext
	obj, err := s.deps.Store.Put(ctx, objKey, bytes.NewReader(res.Data), int64(len(res.Data)), media.contentType)
	if err != nil {
		s.m.StorageErrors.WithLabelValues("put").Inc()
		return nil, "", &Error{Code: "EFATAL", Status: 503, RetryAfter: 5 * time.Second, Err: err,
			Message: "Storing the screenshot failed because file storage is unreachable; try again shortly."}
	}
	s.m.Phase.WithLabelValues("upload").Observe(time.Since(upStart).Seconds())
	return &Asset{
		URL: s.deps.Store.URL(objKey), Type: meta.TypeFromContentType(media.contentType),
		Size: obj.Size, SizePretty: meta.PrettyBytes(obj.Size), Width: width, Height: height,
	}, objKey, nil
}

// screenshotClip is the area to capture in document coordinates: the
// whole content for fullPage, the element's box for element, and nil for
// the viewport as it is.
func (s *Server) screenshotClip(ctx context.Context, sess *cdp.Session, o *ScreenshotOptions) (*page.Viewport, error) {
	if o.Element == "" && !o.FullPage {
		return nil, nil
	}
	// The bound is on the image's pixels, so a page rendered at a higher
	// device pixel ratio gets fewer CSS pixels.
	var dpr float64
	if err := evaluate(ctx, sess, "window.devicePixelRatio", &dpr); err != nil {
		return nil, s.browserError(ctx, "measuring the page", err)
	}
	maxSide := math.Floor(maxShotSide / math.Max(dpr, 1))
	if o.Element != "" {
		return s.elementClip(ctx, sess, o.Element, maxSide)
	}
	m, err := cdp.Execute(ctx, sess, page.GetLayoutMetrics, cdproto.Empty{})
	if err != nil {
		return nil, s.browserError(ctx, "measuring the page", err)
	}
	if m.CSSContentSize == nil {
		return nil, Fatal(errors.New("the browser did not report the page's content size"))
	}
	w := min(math.Ceil(m.CSSContentSize.Width), maxSide)
	h := min(math.Ceil(m.CSSContentSize.Height), maxSide)
	if w < 1 || h < 1 {
		return nil, targetError("The page has no content to take a screenshot of (its size is zero).")
	}
	if h == maxSide || w == maxSide {
		s.log.Debug("a full-page screenshot was cut at the largest size a browser can capture",
			"width", m.CSSContentSize.Width, "height", m.CSSContentSize.Height, "max", maxSide)
	}
	return &page.Viewport{X: 0, Y: 0, Width: w, Height: h, Scale: 1}, nil
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
func (s *Server) elementClip(ctx context.Context, sess *cdp.Session, selector string, maxSide float64) (*page.Viewport, error) {
	lit, err := json.Marshal(selector)
	if err != nil {
		return nil, Fatal(err)
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
		return nil, s.browserError(ctx, "finding `screenshot.element`", err)
	}
	switch box.Problem {
	case "syntax":
		return nil, queryError("screenshot.element", selector,
			"`screenshot.element` %s is not a valid CSS selector; give one such as `#main`, `.card` or `article > header`.", show(selector))
	case "none":
		return nil, queryError("screenshot.element", selector,
			"`screenshot.element` %s matches no element on the page; check the selector against the rendered page, or drop it to capture the viewport.",
			show(selector))
	}
	// The part of the box before the document's start cannot be captured.
	left, top := math.Max(box.X, 0), math.Max(box.Y, 0)
	right, bottom := box.X+box.Width, box.Y+box.Height
	x, y := math.Round(left), math.Round(top)
	w := math.Min(math.Round(right-left+(left-x)), maxSide)
	h := math.Min(math.Round(bottom-top+(top-y)), maxSide)
	if w < 1 || h < 1 {
		return nil, queryError("screenshot.element", selector,
			"`screenshot.element` %s matches an element with no visible box (it is hidden, empty or off the page); choose a visible element.",
			show(selector))
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
