package query

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/overlay"
)

const (
	defaultShotQuality = 80
	// maxElementSelector bounds `screenshot.element`; real selectors are
	// short, and the value travels into the page's script.
	maxElementSelector = 1024
)

// ScreenshotOptions are the `screenshot.*` parameters. They hold plain
// values only: the cache key prints them with %+v.
type ScreenshotOptions struct {
	Type           string  // "png", "jpeg" or "webp"
	Quality        int     // 0 to 100 for jpeg and webp; 0 for png, which is lossless
	FullPage       bool    // the whole document instead of the viewport
	Element        string  // a CSS selector: only that element's box; "" for none
	OmitBackground bool    // no default white behind the page (png and webp)
	Overlay        Overlay `json:",omitzero"` // a window frame and background around the capture; zero: none
	// OptimizeForSpeed: the browser encodes the picture faster, into a
	// larger file (png's compression is the most of a long page's
	// capture).
	OptimizeForSpeed bool `json:",omitzero"`
}

// Overlay is `screenshot.overlay.*`: the capture composed into a browser
// window on a background after it is taken.
type Overlay struct {
	Browser string // "", "light" or "dark"
	// Background is "" for Microlink's default (transparent), a colour or
	// gradient in lower case, or the background image's URL as
	// ParseTarget normalises it; overlay.ParseBackground reads each.
	Background string
}

// On reports whether an overlay was asked for.
func (o Overlay) On() bool { return o.Browser != "" || o.Background != "" }

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
	"optimizeForSpeed": "optimizeForSpeed", "optimize_for_speed": "optimizeForSpeed",
	"overlay.browser": "overlay.browser", "overlay.background": "overlay.background",
}

const screenshotOptionList = "`screenshot.type`, `screenshot.quality`, `screenshot.fullPage`, " +
	"`screenshot.element`, `screenshot.omitBackground`, `screenshot.optimizeForSpeed`, `screenshot.overlay.browser`, `screenshot.overlay.background`, " +
	"`screenshot.codeScheme` and `screenshot.animated`"

// Media is the content type and file extension of the screenshot's format.
func (o ScreenshotOptions) Media() (contentType, ext string) {
	switch o.Type {
	case "jpeg":
		return "image/jpeg", "jpg"
	case "webp":
		return "image/webp", "webp"
	}
	return "image/png", "png"
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
			if _, known := screenshotOptionNames[strings.TrimPrefix(p.name, "screenshot.")]; !known && !isIgnored(p.name) {
				return apierr.Query(p.given, p.value, "`%s` is not a screenshot option; use %s.", p.given, screenshotOptionList)
			}
			options = append(options, p)
		}
	}
	on := len(options) > 0
	if p, ok := q.get("screenshot"); ok {
		v, ok := parseBool(p.value)
		if !ok {
			return boolError(p)
		}
		if !v && len(options) > 0 {
			return apierr.Query(p.given, p.value,
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
			return apierr.Query(p.given, p.value, "`%s` must be `png`, `jpeg` or `webp`, got %s.", p.given, apierr.Show(p.value))
		}
	}
	if o.Type != "png" {
		o.Quality = defaultShotQuality
	}
	if p, ok := q.get("screenshot.quality"); ok {
		v := strings.TrimSpace(p.value)
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 100 || strings.HasPrefix(v, "+") {
			return apierr.Query(p.given, p.value, "`%s` must be a whole number from 0 to 100, got %s.", p.given, apierr.Show(p.value))
		}
		if o.Type == "png" {
			return apierr.Query(p.given, p.value,
				"`%s` applies to jpeg and webp screenshots only (png is lossless); add `screenshot.type=jpeg` or `screenshot.type=webp`, or drop `%s`.",
				p.given, p.given)
		}
		o.Quality = n
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"screenshot.fullPage", &o.FullPage}, {"screenshot.omitBackground", &o.OmitBackground}, {"screenshot.optimizeForSpeed", &o.OptimizeForSpeed}} {
		if p, ok := q.get(b.name); ok {
			v, ok := parseBool(p.value)
			if !ok {
				return boolError(p)
			}
			*b.dst = v
		}
	}
	if p, ok := q.get("screenshot.element"); ok {
		v := strings.TrimSpace(p.value)
		switch {
		case v == "":
			return apierr.Query(p.given, p.value, "`%s` needs a CSS selector, such as `#main` or `.card`.", p.given)
		case len(v) > maxElementSelector:
			return apierr.Query(p.given, p.value, "`%s` is %d bytes long; a selector may have up to %d bytes.", p.given, len(v), maxElementSelector)
		}
		o.Element = v
		if o.FullPage {
			fp, _ := q.get("screenshot.fullPage")
			return apierr.Query(fp.given, fp.value,
				"`%s=true` and `%s` cannot be combined: an element's screenshot is the element's box; drop one of them.", fp.given, p.given)
		}
	}
	if o.OmitBackground && o.Type == "jpeg" {
		p, _ := q.get("screenshot.omitBackground")
		return apierr.Query(p.given, p.value,
			"`%s=true` needs a format with transparency, but jpeg has none; add `screenshot.type=png` or `screenshot.type=webp`.", p.given)
	}
	if err := parseOverlay(q, o); err != nil {
		return err
	}
	req.Screenshot = o
	return nil
}

// parseOverlay reads `screenshot.overlay.browser` and
// `screenshot.overlay.background`. Either one asks for the composition,
// as with Microlink: a background alone frames nothing, a browser alone
// sits on a transparent background.
func parseOverlay(q *query, o *ScreenshotOptions) error {
	if p, ok := q.get("screenshot.overlay.browser"); ok {
		switch v := strings.ToLower(strings.TrimSpace(p.value)); v {
		case overlay.Light, overlay.Dark:
			o.Overlay.Browser = v
		default:
			return apierr.Query(p.given, p.value, "`%s` must be `light` or `dark`, got %s.", p.given, apierr.Show(p.value))
		}
	}
	if p, ok := q.get("screenshot.overlay.background"); ok {
		bg, err := overlay.ParseBackground(p.value)
		if err != nil {
			return apierr.Query(p.given, p.value, "`%s` %s.", p.given, err)
		}
		if bg.Kind == overlay.Picture {
			u, err := ParseTarget(bg.URL)
			if err != nil {
				var e *apierr.Error
				if !errors.As(err, &e) {
					return apierr.Query(p.given, p.value, "`%s` is not a usable image URL: %s", p.given, err)
				}
				if shown, _ := e.Data["url"].(string); shown != bg.URL && strings.Contains(shown, "***@") {
					// The user-info, masked in ParseTarget's answer, is
					// most likely a password: the refusal repeats the
					// URL as masked, and glimpse sends a background
					// fetch no credentials of any kind.
					return apierr.Query(p.given, shown, "`%s` %s carries user information before `@`; glimpse fetches background images without credentials, so give an image URL that needs none.",
						p.given, apierr.Show(shown))
				}
				return apierr.Query(p.given, p.value, "`%s` is not a usable image URL: %s", p.given, e.Message)
			}
			o.Overlay.Background = u.String()
		} else {
			o.Overlay.Background = strings.ToLower(strings.TrimSpace(p.value))
		}
	}
	if o.Overlay.On() && o.Type == "webp" {
		p, _ := q.get("screenshot.type")
		return apierr.Query(p.given, p.value,
			"`%s=webp` cannot be combined with `screenshot.overlay`: glimpse composes the overlay itself and writes it as png or jpeg; use `screenshot.type=png` or `screenshot.type=jpeg`.",
			p.given)
	}
	return nil
}
