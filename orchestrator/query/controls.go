package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/pool"
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
	// windowWidth and windowHeight are the sidecar's headless window; the
	// viewport when none is emulated is a little smaller. They stand in
	// for a side the caller leaves to the window when the size is bounded.
	windowWidth, windowHeight = 800, 600
	// selectorPoll is how often `waitForSelector` looks again. It asks from
	// outside the page, so the wait also works with JavaScript off.
	selectorPoll = 100 * time.Millisecond
	// answerMargin is how long before the request's deadline a wait of
	// the caller's gives up, so that its own error, which names the
	// parameter, reaches the caller instead of a bare time-out.
	answerMargin = 300 * time.Millisecond
	// actionSettle lets the page react to each `click` and to `scroll`
	// (handlers, menus, lazy images coming into view).
	actionSettle = 150 * time.Millisecond
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
var listControls = []string{"click", "styles", "scripts"}

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
	if p, ok := q.get("waitUntil"); ok {
		switch v := strings.ToLower(strings.TrimSpace(p.value)); v {
		case "auto", "load", "domcontentloaded", "networkidle0", "networkidle2":
			c.WaitUntil = v
		default:
			return queryError(p.given, p.value,
				"`%s` must be `auto`, `load`, `domcontentloaded`, `networkidle0` or `networkidle2`, got %s.", p.given, show(p.value))
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
			return queryError(p.given, p.value,
				"`%s` must be a duration in milliseconds (`1500`) or with a unit (`1.5s`, `500ms`), got %s.", p.given, show(p.value))
		}
		timeout := req.Timeout
		if t, ok := q.get("timeout"); ok {
			if d, ok := parseQueryDuration(t.value); ok {
				timeout = d
			}
		}
		if d >= timeout {
			return queryError(p.given, p.value,
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
			return queryError(p.given, p.value, "`%s` must be `light`, `dark` or `no-preference`, got %s.", p.given, show(p.value))
		}
	}
	for _, b := range []struct {
		name string
		off  *bool
	}{{"javascript", &c.JavaScriptOff}, {"animations", &c.AnimationsOff}, {"adblock", &c.AdblockOff}} {
		if p, ok := q.get(b.name); ok {
			v, ok := parseBool(p.value, false)
			if !ok {
				return boolError(p, false)
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
				return queryError(p.given, p.value, "`%s` is empty; give inline code such as %s, or drop it.", p.given, l.example)
			}
			injected += len(p.value)
			if injected > maxInjected {
				return queryError(p.given, clip(p.value, 64),
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
		return "", queryError(p.given, p.value, "`%s` needs a CSS selector, such as `#accept` or `button.load-more`.", p.given)
	}
	if len(sel) > maxSelector {
		return "", queryError(p.given, p.value, "`%s` is %d bytes long; a selector may have at most %d.", p.given, len(sel), maxSelector)
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
			return nil, queryError(p.given, p.value,
				"`%s` is not a `%s` parameter: give one value as `%s`, or several as `%s.0`, `%s.1`, … in the order they apply.",
				p.given, name, name, name, name)
		}
		items = append(items, item{n, p})
	}
	if len(items) > maxListItems {
		p := items[maxListItems].p
		return nil, queryError(p.given, p.value, "%d `%s` values were given; glimpse takes at most %d.", len(items), name, maxListItems)
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
	var dev *device
	if p, ok := q.get("device"); ok {
		d, ok := lookupDevice(p.value)
		if !ok {
			return queryError(p.given, p.value, "`%s` must name a device: %s (in any case, spaces and dashes optional), got %s.",
				p.given, deviceNames(), show(p.value))
		}
		dev = &d
		c.Device = d.Name
		v = Viewport{Emulate: true, Width: d.Width, Height: d.Height, DeviceScaleFactor: d.Scale, IsMobile: d.Mobile, HasTouch: d.Touch}
	}
	if p, ok := q.get("viewport"); ok {
		return queryError(p.given, p.value, "`%s` takes one parameter per setting: %s, such as `viewport.width=390`.", p.given, viewportOptionList)
	}
	for _, p := range q.order {
		if rest, ok := strings.CutPrefix(p.name, "viewport."); ok {
			if _, known := viewportOptionNames[rest]; !known {
				return queryError(p.given, p.value, "`%s` is not a viewport option; use %s.", p.given, viewportOptionList)
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
			return queryError(p.given, p.value, "`%s` must be a whole number of CSS pixels from 1 to %d, got %s.", p.given, maxViewportSide, show(p.value))
		}
		*side.dst = n
		sized = p
	}
	if p, ok := q.get("viewport.deviceScaleFactor"); ok {
		f, ok := parseDecimal(strings.TrimSpace(p.value))
		if !ok || f < minScaleFactor || f > maxScaleFactor {
			return queryError(p.given, p.value, "`%s` must be a number from 0.1 to 5 (device pixels per CSS pixel, such as `2`), got %s.",
				p.given, show(p.value))
		}
		v.DeviceScaleFactor = f
		sized = p
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"viewport.isMobile", &v.IsMobile}, {"viewport.hasTouch", &v.HasTouch}, {"viewport.isLandscape", &v.IsLandscape}} {
		if p, ok := q.get(b.name); ok {
			val, ok := parseBool(p.value, false)
			if !ok {
				return boolError(p, false)
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
		w = windowWidth
	}
	if h == 0 {
		h = windowHeight
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
		return queryError(sized.given, sized.value,
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

// needsBrowser reports whether a control only a browser can honour is set,
// so prerender=auto must not answer from a plain fetch. `javascript=false`
// and `adblock` do not count: a plain fetch runs no script and loads
// nothing but the page.
func (c Controls) needsBrowser() bool {
	return (c.WaitUntil != "" && c.WaitUntil != "auto") || c.WaitForSelector != "" || c.WaitForTimeout > 0 ||
		c.Viewport.Emulate || c.ColorScheme != "" || c.actsOnPage()
}

// actsOnPage reports whether a control changes the loaded page.
func (c Controls) actsOnPage() bool {
	return len(c.Click) > 0 || c.Scroll != "" || len(c.Styles) > 0 || len(c.Scripts) > 0
}

// beforeNavigate applies the controls that must be in place before the
// page loads (viewport, device, color scheme, JavaScript, ad blocking).
// The lease's page is fresh and disposed after the request, so nothing
// set here reaches another request.
func (s *Server) beforeNavigate(ctx context.Context, lease *pool.Lease, req *Request) error {
	c := req.Controls
	sess := lease.Session
	if v := c.Viewport; v.Emulate {
		p := emulation.SetDeviceMetricsOverrideParams{
			Width: v.Width, Height: v.Height, DeviceScaleFactor: v.DeviceScaleFactor, Mobile: v.IsMobile,
			ScreenWidth: v.Width, ScreenHeight: v.Height,
		}
		if v.IsMobile {
			p.ScreenOrientation = &emulation.ScreenOrientation{Type: emulation.ScreenOrientationTypePortraitPrimary}
			if v.IsLandscape {
				p.ScreenOrientation = &emulation.ScreenOrientation{Type: emulation.ScreenOrientationTypeLandscapePrimary, Angle: 90}
			}
		}
		if _, err := cdp.Execute(ctx, sess, emulation.SetDeviceMetricsOverride, p); err != nil {
			return s.browserError(ctx, "setting the viewport", err)
		}
		if v.HasTouch {
			if _, err := cdp.Execute(ctx, sess, emulation.SetTouchEmulationEnabled,
				emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 5}); err != nil {
				return s.browserError(ctx, "enabling touch", err)
			}
		}
	}
	if d, ok := lookupDevice(c.Device); ok {
		ver, err := cdp.Execute(ctx, lease.Browser, browser.GetVersion, cdproto.Empty{})
		if err != nil {
			return s.browserError(ctx, "reading the browser's version", err)
		}
		if _, err := cdp.Execute(ctx, sess, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{
			UserAgent: d.userAgentFor(ver.Product), Platform: d.Platform,
		}); err != nil {
			return s.browserError(ctx, "setting the device's user agent", err)
		}
	}
	var features []*emulation.MediaFeature
	if c.ColorScheme != "" {
		features = append(features, &emulation.MediaFeature{Name: "prefers-color-scheme", Value: c.ColorScheme})
	}
	if c.AnimationsOff {
		// Pages that honour the setting then skip their animations, which
		// the stylesheet of beforeCapture could only cut short.
		features = append(features, &emulation.MediaFeature{Name: "prefers-reduced-motion", Value: "reduce"})
	}
	if len(features) > 0 {
		// A later setEmulatedMedia replaces the whole override, so the
		// media type set by visit goes along.
		if _, err := cdp.Execute(ctx, sess, emulation.SetEmulatedMedia,
			emulation.SetEmulatedMediaParams{Media: req.MediaType, Features: features}); err != nil {
			return s.browserError(ctx, "setting the color scheme", err)
		}
	}
	if c.JavaScriptOff {
		if _, err := cdp.Execute(ctx, sess, emulation.SetScriptExecutionDisabled,
			emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			return s.browserError(ctx, "turning JavaScript off", err)
		}
	}
	return nil
}

// animationsCSS stops transitions for good and the caret's blinking;
// running animations are finished by finishAnimations.
const animationsCSS = `*, *::before, *::after {
  transition: none !important;
  caret-color: transparent !important;
  scroll-behavior: auto !important;
}`

// finishAnimationsJS jumps every finite animation to its end state and
// cancels the infinite ones, as Playwright does for screenshots: a
// fade-in ends visible instead of frozen at its first frame.
const finishAnimationsJS = `(() => {
  let n = 0;
  for (const a of document.getAnimations()) {
    try {
      const t = a.effect && a.effect.getComputedTiming();
      if (t && t.endTime === Infinity) a.cancel(); else a.finish();
      n++;
    } catch (e) {}
  }
  return n;
})()`

// beforeCapture applies the controls that act on the loaded page before
// the DOM is read and before PDFs and screenshots are taken, in this
// order: wait for the selector, wait for the time, hide consent banners
// and stop animations, add the styles, run the scripts, click, scroll.
// Banners go first so that a click reaches the page rather than an
// overlay; styles before scripts so that a script sees them.
func (s *Server) beforeCapture(ctx context.Context, lease *pool.Lease, req *Request) error {
	c := req.Controls
	sess := lease.Session
	if ctx.Err() != nil {
		// The page ran out of time loading. What only tidies the page is
		// still worth a moment; what the caller asked to happen to it is
		// not, or the answer would claim it happened.
		if c.WaitForSelector != "" || c.WaitForTimeout > 0 || c.actsOnPage() {
			return s.timeoutError(ctx, "The page took the whole `timeout` to load, leaving no time for `waitForSelector`, `waitForTimeout`, `click`, `scroll`, `styles` or `scripts`")
		}
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		s.tidyPage(tctx, sess, req)
		return nil
	}

	if c.WaitForSelector != "" {
		if err := s.waitForSelector(ctx, sess, c.WaitForSelector); err != nil {
			return err
		}
	}
	if c.WaitForTimeout > 0 {
		t := time.NewTimer(c.WaitForTimeout)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return s.timeoutError(ctx, "The page did not finish `waitForTimeout` within the `timeout`")
		case <-lease.Lost():
			t.Stop()
			return errLeaseLost
		}
	}
	s.tidyPage(ctx, sess, req)
	for _, css := range c.Styles {
		if err := adoptStyleSheet(ctx, sess, css); err != nil {
			return s.browserError(ctx, "adding `styles`", err)
		}
	}
	for i, js := range c.Scripts {
		if err := s.runScript(ctx, sess, js, listName("scripts", i, len(c.Scripts))); err != nil {
			return err
		}
	}
	for _, sel := range c.Click {
		if err := s.click(ctx, sess, sel); err != nil {
			return err
		}
		settle(ctx)
	}
	if c.Scroll != "" {
		if err := s.scrollTo(ctx, sess, c.Scroll); err != nil {
			return err
		}
		settle(ctx)
	}
	if c.AnimationsOff {
		// Again: a click or a script may have started new ones.
		var n int
		_ = evaluate(ctx, sess, finishAnimationsJS, &n)
	}
	return nil
}

// settle gives the page actionSettle to react to a click or a scroll: a
// menu the click opens is there for the next click, and images that
// came into view have started loading.
func settle(ctx context.Context) {
	t := time.NewTimer(actionSettle)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// tidyPage hides consent banners and stops animations. Both are best
// effort: a page that refuses them is still worth capturing.
//
// Neither changes the document that metadata and data rules read, so a
// render that captures nothing and acts on nothing skips them: a new
// stylesheet makes the browser restyle the whole page, which on a large
// page is tens of milliseconds of its CPU for nothing.
func (s *Server) tidyPage(ctx context.Context, sess *cdp.Session, req *Request) {
	c := req.Controls
	if req.PDF == nil && req.Screenshot == nil && !c.actsOnPage() {
		return
	}
	var css string
	if !c.AdblockOff {
		css = consentCSS
	}
	if c.AnimationsOff {
		css += animationsCSS
	}
	if css != "" {
		if err := adoptStyleSheet(ctx, sess, css); err != nil {
			s.log.Debug("the page refused the stylesheet that hides consent banners or stops animations", "err", err)
		}
	}
	if c.AnimationsOff {
		var n int
		if err := evaluate(ctx, sess, finishAnimationsJS, &n); err != nil {
			s.log.Debug("the page's animations could not be finished", "err", err)
		}
	}
}

// listName is how a message names item i of a list control: by its bare
// name when it is the only one.
func listName(name string, i, n int) string {
	if n == 1 {
		return name
	}
	return fmt.Sprintf("%s.%d", name, i)
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		// A Go string always marshals; broken UTF-8 becomes U+FFFD.
		return `""`
	}
	return string(b)
}

// findJS returns "found", "none" or "syntax" for a selector.
func findJS(sel string) string {
	return `(() => { try { return document.querySelector(` + jsString(sel) + `) ? "found" : "none"; } catch (e) { return "syntax"; } })()`
}

// selectorSyntaxError is EINVALQUERY for a selector the browser cannot parse.
func selectorSyntaxError(name, sel string) error {
	return queryError(name, sel, "`%s` %s is not a valid CSS selector; give one such as `#main`, `.card` or `article > header`.", name, show(sel))
}

// waitForSelector looks for the selector until an element matches or the
// request's time is up.
func (s *Server) waitForSelector(ctx context.Context, sess *cdp.Session, sel string) error {
	ctx, cancel := context.WithDeadline(ctx, deadlineOf(ctx, time.Hour).Add(-answerMargin))
	defer cancel()
	tick := time.NewTicker(selectorPoll)
	defer tick.Stop()
	for {
		var state string
		err := evaluate(ctx, sess, findJS(sel), &state)
		switch {
		case err == nil && state == "found":
			return nil
		case err == nil && state == "syntax":
			return selectorSyntaxError("waitForSelector", sel)
		case err != nil && ctx.Err() == nil:
			// A navigation replaces the document under the call; look
			// again in the new one.
			s.log.Debug("looking for `waitForSelector` failed; trying again", "err", err)
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			e := NewError(CodeTimeout, fmt.Sprintf(
				"No element matched `waitForSelector` %s within the `timeout`; check the selector against the rendered page, or raise `timeout`.", show(sel)))
			e.Param = "waitForSelector"
			e.Err = ctx.Err()
			return e
		case <-sess.Done():
			return fmt.Errorf("%w: the page closed while waiting for `waitForSelector`", errLeaseLost)
		}
	}
}

// runScript runs one of `scripts` in the page, awaiting the promise it
// ends with, if any. An exception is the caller's to fix.
func (s *Server) runScript(ctx context.Context, sess *cdp.Session, js, name string) error {
	dl := deadlineOf(ctx, time.Hour).Add(-answerMargin)
	sctx, cancel := context.WithDeadline(ctx, dl)
	defer cancel()
	t := true
	res, err := cdp.Execute(sctx, sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression: js, AwaitPromise: &t, UserGesture: &t, Silent: &t,
		// V8 stops a script that runs past the request's time, so an
		// endless loop does not hold the page until it is disposed.
		Timeout: runtime.TimeDelta(max(time.Until(dl).Milliseconds(), 1)),
	})
	if err != nil {
		if sctx.Err() != nil {
			return s.timeoutError(sctx, "The script in `"+name+"` did not finish within the `timeout`")
		}
		return s.browserError(ctx, "running `"+name+"`", err)
	}
	if ex := res.ExceptionDetails; ex != nil {
		if time.Now().After(dl.Add(-50 * time.Millisecond)) {
			return s.timeoutError(sctx, "The script in `"+name+"` did not finish within the `timeout`")
		}
		what := ex.Text
		if ex.Exception != nil && ex.Exception.Description != "" {
			what, _, _ = strings.Cut(ex.Exception.Description, "\n")
		}
		return queryError(name, js, "The script in `%s` failed in the page: %s; fix the script, or drop it.", name, show(what))
	}
	return nil
}

// clickTarget is what the page reports about an element to click.
type clickTarget struct {
	Problem string  `json:"problem"` // "syntax", "none" or ""
	Mouse   bool    `json:"mouse"`   // click at X, Y with the mouse
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
}

// click clicks the first element the selector matches. A visible
// element gets a real mouse click at its centre, as a person would give
// it; one that is hidden or covered gets a click event instead, which
// still runs its handlers.
func (s *Server) click(ctx context.Context, sess *cdp.Session, sel string) error {
	js := `((sel) => {
  let el;
  try { el = document.querySelector(sel); } catch (e) { return {problem: "syntax"}; }
  if (!el) return {problem: "none"};
  el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (r.width > 0 && r.height > 0 && x >= 0 && y >= 0 && x < innerWidth && y < innerHeight) {
    const hit = document.elementFromPoint(x, y);
    if (hit && (hit === el || el.contains(hit))) return {problem: "", mouse: true, x, y};
  }
  el.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, composed: true, view: window}));
  return {problem: "", mouse: false};
})(` + jsString(sel) + `)`
	var t clickTarget
	if err := evaluate(ctx, sess, js, &t); err != nil {
		return s.browserError(ctx, "clicking `click`", err)
	}
	switch t.Problem {
	case "syntax":
		return selectorSyntaxError("click", sel)
	case "none":
		return queryError("click", sel, "`click` %s matches no element on the page; check the selector against the rendered page.", show(sel))
	}
	if !t.Mouse {
		return nil
	}
	for _, ev := range []input.DispatchMouseEventParams{
		{Type: input.DispatchMouseEventTypeMouseMoved, X: t.X, Y: t.Y},
		{Type: input.DispatchMouseEventTypeMousePressed, X: t.X, Y: t.Y, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: 1},
		{Type: input.DispatchMouseEventTypeMouseReleased, X: t.X, Y: t.Y, Button: input.MouseButtonLeft, ClickCount: 1},
	} {
		if _, err := cdp.Execute(ctx, sess, input.DispatchMouseEvent, ev); err != nil {
			return s.browserError(ctx, "clicking `click`", err)
		}
	}
	return nil
}

// scrollTo brings the first element the selector matches to the top of
// the viewport.
func (s *Server) scrollTo(ctx context.Context, sess *cdp.Session, sel string) error {
	js := `((sel) => {
  let el;
  try { el = document.querySelector(sel); } catch (e) { return "syntax"; }
  if (!el) return "none";
  el.scrollIntoView({block: "start", inline: "nearest", behavior: "instant"});
  return "";
})(` + jsString(sel) + `)`
	var problem string
	if err := evaluate(ctx, sess, js, &problem); err != nil {
		return s.browserError(ctx, "scrolling to `scroll`", err)
	}
	switch problem {
	case "syntax":
		return selectorSyntaxError("scroll", sel)
	case "none":
		return queryError("scroll", sel, "`scroll` %s matches no element on the page; check the selector against the rendered page.", show(sel))
	}
	return nil
}
