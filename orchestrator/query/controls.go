package query

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

// Bounds of the rendering controls.
const (
	// maxSelector bounds a CSS selector; real ones are short, and each
	// travels into the page's script.
	maxSelector = 1024
	// maxListItems bounds `click`, `styles` and `scripts` each.
	maxListItems = 10
	// maxInjected bounds `styles` and `scripts` together, in bytes.
	maxInjected = 64 << 10
	// maxViewportSide and maxDevicePixels bound the viewport: a larger
	// surface costs the browser hundreds of megabytes per page.
	maxViewportSide = 10000
	maxDevicePixels = 64_000_000
	minScaleFactor  = 0.1
	maxScaleFactor  = 5
	// WindowWidth and WindowHeight are the viewport of a render that names
	// no device and no viewport: that of Microlink's default device,
	// "Macbook Pro 13", at one device pixel per CSS pixel (its scale of 2
	// would make every default screenshot four times the pixels; ask for
	// the device to get it). They also stand in for a side the caller
	// leaves out when the size is bounded.
	WindowWidth, WindowHeight = 1280, 800
)

// Controls are the rendering controls of a request. They hold plain
// values only, and String gives the cache key an unambiguous spelling of
// them. The zero value is the defaults: the page as it loads, with ad
// blocking on.
type Controls struct {
	// WaitUntil is when the page counts as loaded: "auto" (load, then a
	// short quiet period), "load", "domcontentloaded", "networkidle0" or
	// "networkidle2".
	WaitUntil       string
	WaitForSelector string        // wait until an element matches; "" for none
	WaitForTimeout  time.Duration // then wait this long; 0 for none
	Device          string        // a preset's name (devices.go); "" for none
	Viewport        Viewport      // the device's values with `viewport.*` on top
	ColorScheme     string        // "light" or "dark"; "" keeps the browser's default
	JavaScriptOff   bool          // `javascript=false`: the page's scripts do not run
	AnimationsOff   bool          // `animations=false`: animations and transitions end at once
	AdblockOff      bool          // `adblock=false`: ads, trackers and consent banners stay
	Click           []string      // selectors clicked in order
	Scroll          string        // selector scrolled into view; "" for none
	Styles          []string      // CSS added to the page
	Scripts         []string      // JavaScript run in the page, in order
}

// Viewport is the emulated screen.
type Viewport struct {
	Emulate           bool    // a device or any viewport.* was given
	Width, Height     int64   // CSS pixels; 0 keeps the window's
	DeviceScaleFactor float64 // 0 keeps the browser's (1)
	IsMobile          bool
	HasTouch          bool
	IsLandscape       bool
}

// String spells the controls for the cache key: quoted, so that no
// selector, style or script can make two different requests print the
// same (fmt's %+v would print []string{"a b"} and []string{"a", "b"}
// alike).
func (c Controls) String() string {
	b, err := json.Marshal(struct{ C Controls }{c})
	if err != nil {
		return fmt.Sprintf("unprintable controls: %v", err)
	}
	return string(b)
}

// controlNames maps every accepted spelling of a control without a dot
// or index to its camelCase name.
var controlNames = map[string]string{
	"waitUntil": "waitUntil", "wait_until": "waitUntil",
	"waitForSelector": "waitForSelector", "wait_for_selector": "waitForSelector",
	"waitForTimeout": "waitForTimeout", "wait_for_timeout": "waitForTimeout",
	"device": "device", "viewport": "viewport",
	"colorScheme": "colorScheme", "color_scheme": "colorScheme",
	"javascript": "javascript", "animations": "animations", "adblock": "adblock",
	"click": "click", "scroll": "scroll", "styles": "styles", "scripts": "scripts",
}

// viewportOptionNames maps every accepted spelling of a viewport option
// to its camelCase name.
var viewportOptionNames = map[string]string{
	"width": "width", "height": "height",
	"deviceScaleFactor": "deviceScaleFactor", "device_scale_factor": "deviceScaleFactor",
	"isMobile": "isMobile", "is_mobile": "isMobile",
	"hasTouch": "hasTouch", "has_touch": "hasTouch",
	"isLandscape": "isLandscape", "is_landscape": "isLandscape",
}

const viewportOptionList = "`viewport.width`, `viewport.height`, `viewport.deviceScaleFactor`, " +
	"`viewport.isMobile`, `viewport.hasTouch` and `viewport.isLandscape`"

// listControls take several values as `name.0`, `name.1`, … (how
// Microlink clients send an array) besides a single `name`.
var listControls = []string{"click", "styles", "scripts", "waitUntil"}

// waitEvents are the values of `waitUntil`, each event after the ones
// before it: waiting for several is waiting for the latest.
var waitEvents = []string{"auto", "domcontentloaded", "load", "networkidle2", "networkidle0"}

// controlParam recognises the parameters of the rendering controls. The
// `viewport.` family and the indexed list items are known as a whole, so
// that a mistyped one is reported instead of ignored.
func controlParam(name string) (string, bool) {
	if c, ok := controlNames[name]; ok {
		return c, true
	}
	if rest, ok := strings.CutPrefix(name, "viewport."); ok {
		if c, ok := viewportOptionNames[rest]; ok {
			return "viewport." + c, true
		}
		return name, true
	}
	for _, l := range listControls {
		if strings.HasPrefix(name, l+".") {
			return name, true
		}
	}
	return "", false
}

// parseControls reads the rendering controls into req.Controls. It runs
// before `timeout` is read, so it reads `timeout` itself to bound
// `waitForTimeout`; a bad `timeout` is reported by ParseRequest.
func parseControls(q *query, req *Request) error {
	c := &req.Controls
	c.WaitUntil = "auto"
	// Several events, as Puppeteer takes them, mean waiting for them all:
	// the latest of them.
	events, err := listParam(q, "waitUntil")
	if err != nil {
		return err
	}
	for _, p := range events {
		v := strings.ToLower(strings.TrimSpace(p.value))
		rank := slices.Index(waitEvents, v)
		if rank < 0 {
			return apierr.Query(p.given, p.value,
				"`%s` must be `auto`, `load`, `domcontentloaded`, `networkidle0` or `networkidle2`, got %s.", p.given, apierr.Show(p.value))
		}
		if v == "auto" && len(events) > 1 {
			return apierr.Query(p.given, p.value, "`%s` cannot be `auto` beside other events; give the events to wait for.", p.given)
		}
		if c.WaitUntil == "auto" || rank > slices.Index(waitEvents, c.WaitUntil) {
			c.WaitUntil = v
		}
	}
	if p, ok := q.get("waitForSelector"); ok {
		sel, err := selectorValue(p)
		if err != nil {
			return err
		}
		c.WaitForSelector = sel
	}
	if p, ok := q.get("waitForTimeout"); ok {
		d, ok := parseQueryDuration(p.value)
		if !ok {
			return apierr.Query(p.given, p.value,
				"`%s` must be a duration in milliseconds (`1500`) or with a unit (`1.5s`, `500ms`), got %s.", p.given, apierr.Show(p.value))
		}
		timeout := req.Timeout
		if d >= timeout {
			return apierr.Query(p.given, p.value,
				"`%s` (%s) must be shorter than the request's `timeout` (%s), so that the page can still be read after it; lower it, or raise `timeout`.",
				p.given, durationLabel(d), durationLabel(timeout))
		}
		c.WaitForTimeout = d
	}
	if err := parseViewport(q, c); err != nil {
		return err
	}
	if p, ok := q.get("colorScheme"); ok {
		switch v := strings.ToLower(strings.TrimSpace(p.value)); v {
		case "light", "dark":
			c.ColorScheme = v
		case "no-preference":
			// Chromium no longer knows a "no preference" value: pages see
			// its default, which is what leaving it alone gives.
			c.ColorScheme = ""
		default:
			return apierr.Query(p.given, p.value, "`%s` must be `light`, `dark` or `no-preference`, got %s.", p.given, apierr.Show(p.value))
		}
	}
	for _, b := range []struct {
		name string
		off  *bool
	}{{"javascript", &c.JavaScriptOff}, {"animations", &c.AnimationsOff}, {"adblock", &c.AdblockOff}} {
		if p, ok := q.get(b.name); ok {
			v, ok := parseBool(p.value)
			if !ok {
				return boolError(p)
			}
			*b.off = !v
		}
	}

	clicks, err := listParam(q, "click")
	if err != nil {
		return err
	}
	for _, p := range clicks {
		sel, err := selectorValue(p)
		if err != nil {
			return err
		}
		c.Click = append(c.Click, sel)
	}
	if p, ok := q.get("scroll"); ok {
		sel, err := selectorValue(p)
		if err != nil {
			return err
		}
		c.Scroll = sel
	}
	injected := 0
	for _, l := range []struct {
		name, example string
		dst           *[]string
	}{{"styles", "`body { background: white }`", &c.Styles}, {"scripts", "`document.title = 'x'`", &c.Scripts}} {
		ps, err := listParam(q, l.name)
		if err != nil {
			return err
		}
		for _, p := range ps {
			if strings.TrimSpace(p.value) == "" {
				return apierr.Query(p.given, p.value, "`%s` is empty; give inline code such as %s, or drop it.", p.given, l.example)
			}
			injected += len(p.value)
			if injected > maxInjected {
				return apierr.Query(p.given, apierr.Clip(p.value, 64),
					"`styles` and `scripts` add up to more than %d bytes (64 KiB); glimpse injects at most that much.", maxInjected)
			}
			*l.dst = append(*l.dst, p.value)
		}
	}
	return nil
}

// selectorValue checks a CSS selector parameter. Whether the browser
// understands it is known only in the page, which reports a syntax error
// as EINVALQUERY too.
func selectorValue(p *param) (string, error) {
	sel := strings.TrimSpace(p.value)
	if sel == "" {
		return "", apierr.Query(p.given, p.value, "`%s` needs a CSS selector, such as `#accept` or `button.load-more`.", p.given)
	}
	if len(sel) > maxSelector {
		return "", apierr.Query(p.given, p.value, "`%s` is %d bytes long; a selector may have at most %d.", p.given, len(sel), maxSelector)
	}
	return sel, nil
}

// listParam gathers `name` and `name.<index>`: the bare one first, then
// the indexed ones by index, as an array arrives from Microlink clients.
func listParam(q *query, name string) ([]*param, error) {
	type item struct {
		index int
		p     *param
	}
	var items []item
	for _, p := range q.order {
		if p.name == name {
			items = append(items, item{-1, p})
			continue
		}
		rest, ok := strings.CutPrefix(p.name, name+".")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 || len(rest) > 3 || strings.TrimLeft(rest, "0123456789") != "" {
			return nil, apierr.Query(p.given, p.value,
				"`%s` is not a `%s` parameter: give one value as `%s`, or several as `%s.0`, `%s.1`, … in the order they apply.",
				p.given, name, name, name, name)
		}
		items = append(items, item{n, p})
	}
	if len(items) > maxListItems {
		p := items[maxListItems].p
		return nil, apierr.Query(p.given, p.value, "%d `%s` values were given; glimpse takes at most %d.", len(items), name, maxListItems)
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].index < items[j].index })
	out := make([]*param, len(items))
	for i, it := range items {
		out[i] = it.p
	}
	return out, nil
}

// parseViewport reads `device` and `viewport.*`. A viewport option
// overrides that value of the device; `viewport.isLandscape=true` turns a
// portrait device sideways unless the width or height is given.
func parseViewport(q *query, c *Controls) error {
	var v Viewport
	var dev *Device
	if p, ok := q.get("device"); ok {
		d, ok := LookupDevice(p.value)
		if !ok {
			return apierr.Query(p.given, p.value, "`%s` must name a device, such as %s (any case, spaces and dashes optional; the README lists all %d), got %s.",
				p.given, deviceExamples, len(DeviceNames()), apierr.Show(p.value))
		}
		dev = &d
		c.Device = d.Name
		v = Viewport{Emulate: true, Width: d.Width, Height: d.Height, DeviceScaleFactor: d.Scale, IsMobile: d.Mobile, HasTouch: d.Touch, IsLandscape: d.Landscape}
	}
	if p, ok := q.get("viewport"); ok {
		return apierr.Query(p.given, p.value, "`%s` takes one parameter per setting: %s, such as `viewport.width=390`.", p.given, viewportOptionList)
	}
	for _, p := range q.order {
		if rest, ok := strings.CutPrefix(p.name, "viewport."); ok {
			if _, known := viewportOptionNames[rest]; !known {
				return apierr.Query(p.given, p.value, "`%s` is not a viewport option; use %s.", p.given, viewportOptionList)
			}
			v.Emulate = true
		}
	}
	var sized *param // the option to name when the viewport is too large
	for _, side := range []struct {
		name string
		dst  *int64
	}{{"viewport.width", &v.Width}, {"viewport.height", &v.Height}} {
		p, ok := q.get(side.name)
		if !ok {
			continue
		}
		n, ok := wholeNumber(p.value)
		if !ok || n < 1 || n > maxViewportSide {
			return apierr.Query(p.given, p.value, "`%s` must be a whole number of CSS pixels from 1 to %d, got %s.", p.given, maxViewportSide, apierr.Show(p.value))
		}
		*side.dst = n
		sized = p
	}
	if p, ok := q.get("viewport.deviceScaleFactor"); ok {
		f, ok := parseDecimal(strings.TrimSpace(p.value))
		if !ok || f < minScaleFactor || f > maxScaleFactor {
			return apierr.Query(p.given, p.value, "`%s` must be a number from 0.1 to 5 (device pixels per CSS pixel, such as `2`), got %s.",
				p.given, apierr.Show(p.value))
		}
		v.DeviceScaleFactor = f
		sized = p
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"viewport.isMobile", &v.IsMobile}, {"viewport.hasTouch", &v.HasTouch}, {"viewport.isLandscape", &v.IsLandscape}} {
		if p, ok := q.get(b.name); ok {
			val, ok := parseBool(p.value)
			if !ok {
				return boolError(p)
			}
			*b.dst = val
		}
	}
	_, wGiven := q.get("viewport.width")
	_, hGiven := q.get("viewport.height")
	if v.IsLandscape && dev != nil && !wGiven && !hGiven && v.Width < v.Height {
		v.Width, v.Height = v.Height, v.Width
	}

	w, h, dpr := float64(v.Width), float64(v.Height), v.DeviceScaleFactor
	if w == 0 {
		w = WindowWidth
	}
	if h == 0 {
		h = WindowHeight
	}
	if dpr == 0 {
		dpr = 1
	}
	if pixels := w * dpr * h * dpr; pixels > maxDevicePixels {
		if sized == nil {
			sized = &param{name: "device", given: "device"}
			if p, ok := q.get("device"); ok {
				sized = p
			}
		}
		return apierr.Query(sized.given, sized.value,
			"A viewport of %g×%g CSS pixels at a device scale factor of %g is %.0f million device pixels; glimpse renders at most %d million: make `viewport.width` or `viewport.height` smaller, or lower `viewport.deviceScaleFactor`.",
			w, h, dpr, math.Ceil(pixels/1e6), maxDevicePixels/1_000_000)
	}
	c.Viewport = v
	return nil
}

// wholeNumber reads an unsigned decimal integer such as `1280`.
func wholeNumber(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 9 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// NeedsBrowser reports whether a control only a browser can honour is set,
// so prerender=auto must not answer from a plain fetch. `javascript=false`
// and `adblock` do not count: a plain fetch runs no script and loads
// nothing but the page.
func (c Controls) NeedsBrowser() bool {
	return (c.WaitUntil != "" && c.WaitUntil != "auto") || c.WaitForSelector != "" || c.WaitForTimeout > 0 ||
		c.Viewport.Emulate || c.ColorScheme != "" || c.ActsOnPage()
}

// ActsOnPage reports whether a control changes the loaded page.
func (c Controls) ActsOnPage() bool {
	return len(c.Click) > 0 || c.Scroll != "" || len(c.Styles) > 0 || len(c.Scripts) > 0
}
