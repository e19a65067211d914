package render

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/query"
)

// Bounds of the caller's actions on the page.
const (
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

// metricsOf is the viewport and screen req's page is rendered in. A side
// left out is the default's.
func metricsOf(req *query.Request) emulation.SetDeviceMetricsOverrideParams {
	v := req.Controls.Viewport
	v.Width, v.Height = cmp.Or(v.Width, query.WindowWidth), cmp.Or(v.Height, query.WindowHeight)
	v.DeviceScaleFactor = cmp.Or(v.DeviceScaleFactor, 1)
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
	return p
}

// emulate applies what must be in place before the page loads: the
// media type with the color scheme and motion preference, the viewport
// and device, and JavaScript off. The lease's page is fresh and disposed
// after the request, so nothing set here reaches another request.
func emulate(ctx context.Context, lease Lease, req *query.Request) error {
	c := req.Controls
	sess := lease.Page()
	if _, err := cdp.Execute(ctx, sess, emulation.SetEmulatedMedia,
		emulation.SetEmulatedMediaParams{Media: req.MediaType, Features: mediaFeatures(c)}); err != nil {
		return browserError(ctx, "setting the media type", err)
	}
	// Every render sets its viewport, the default one included: the
	// headless window's browser frame takes a share of the window that
	// differs between Chromium versions.
	if _, err := cdp.Execute(ctx, sess, emulation.SetDeviceMetricsOverride, metricsOf(req)); err != nil {
		return browserError(ctx, "setting the viewport", err)
	}
	if c.Viewport.HasTouch {
		if _, err := cdp.Execute(ctx, sess, emulation.SetTouchEmulationEnabled,
			emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 5}); err != nil {
			return browserError(ctx, "enabling touch", err)
		}
	}
	if d, ok := query.LookupDevice(c.Device); ok {
		ver, err := cdp.Execute(ctx, lease.Browser(), browser.GetVersion, cdproto.Empty{})
		if err != nil {
			return browserError(ctx, "reading the browser's version", err)
		}
		if _, err := cdp.Execute(ctx, sess, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{
			UserAgent: d.UserAgentFor(ver.Product), Platform: d.Platform,
		}); err != nil {
			return browserError(ctx, "setting the device's user agent", err)
		}
	}
	if c.JavaScriptOff {
		if _, err := cdp.Execute(ctx, sess, emulation.SetScriptExecutionDisabled,
			emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			return browserError(ctx, "turning JavaScript off", err)
		}
	}
	return nil
}

// mediaFeatures are the CSS media features the controls emulate.
func mediaFeatures(c query.Controls) []*emulation.MediaFeature {
	var features []*emulation.MediaFeature
	if c.ColorScheme != "" {
		features = append(features, &emulation.MediaFeature{Name: "prefers-color-scheme", Value: c.ColorScheme})
	}
	if c.AnimationsOff {
		// Pages that honour the setting then skip their animations, which
		// the stylesheet of beforeCapture could only cut short.
		features = append(features, &emulation.MediaFeature{Name: "prefers-reduced-motion", Value: "reduce"})
	}
	return features
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
// order: wait for the selector, wait for the time, dismiss consent
// banners and scroll through the page (prepareReading), hide consent
// banners and stop animations, add the styles, run the scripts, click,
// scroll. site is the document's site, whose resources the scroll-through
// counts as the page's own; net, when known, is the page's network, which
// tells the scroll-through what the page asked its site for.
// Banners go first so that a click reaches the page rather than an
// overlay; styles before scripts so that a script sees them.
func (r *Renderer) beforeCapture(ctx context.Context, lease Lease, req *query.Request, site string, net *netState) error {
	c := req.Controls
	sess := lease.Page()
	if ctx.Err() != nil {
		// The page ran out of time loading. What only tidies the page is
		// still worth a moment; what the caller asked to happen to it is
		// not, or the answer would claim it happened.
		if c.WaitForSelector != "" || c.WaitForTimeout > 0 || c.ActsOnPage() {
			return timeoutError(ctx, "The page took the whole `timeout` to load, leaving no time for `waitForSelector`, `waitForTimeout`, `click`, `scroll`, `styles` or `scripts`")
		}
		r.prepareReading(ctx, lease, req, site, net)
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		r.tidyPage(tctx, sess, req)
		return nil
	}

	if c.WaitForSelector != "" {
		if err := r.waitForSelector(ctx, sess, c.WaitForSelector); err != nil {
			return err
		}
	}
	if c.WaitForTimeout > 0 {
		t := time.NewTimer(c.WaitForTimeout)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return timeoutError(ctx, "The page did not finish `waitForTimeout` within the `timeout`")
		case <-lease.Lost():
			t.Stop()
			return errLeaseLost
		}
	}
	r.prepareReading(ctx, lease, req, site, net)
	r.tidyPage(ctx, sess, req)
	for _, css := range c.Styles {
		if err := adoptStyleSheet(ctx, sess, css); err != nil {
			return browserError(ctx, "adding `styles`", err)
		}
	}
	for i, js := range c.Scripts {
		if err := r.runScript(ctx, sess, js, listName("scripts", i, len(c.Scripts))); err != nil {
			return err
		}
	}
	for _, sel := range c.Click {
		if err := r.click(ctx, sess, sel); err != nil {
			return err
		}
		settle(ctx)
	}
	if c.Scroll != "" {
		if err := r.scrollTo(ctx, sess, c.Scroll); err != nil {
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
func (r *Renderer) tidyPage(ctx context.Context, sess *cdp.Session, req *query.Request) {
	c := req.Controls
	if req.PDF == nil && req.Screenshot == nil && !c.ActsOnPage() {
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
			r.log.Debug("the page refused the stylesheet that hides consent banners or stops animations", "err", err)
		}
	}
	if c.AnimationsOff {
		var n int
		if err := evaluate(ctx, sess, finishAnimationsJS, &n); err != nil {
			r.log.Debug("the page's animations could not be finished", "err", err)
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

// selectorSyntaxError is a selector the browser cannot parse.
func selectorSyntaxError(name, sel string) error {
	return badInput(name, sel, "`%s` %s is not a valid CSS selector; give one such as `#main`, `.card` or `article > header`.", name, apierr.Show(sel))
}

// waitForSelector looks for the selector until an element matches or the
// request's time is up.
func (r *Renderer) waitForSelector(ctx context.Context, sess *cdp.Session, sel string) error {
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
			r.log.Debug("looking for `waitForSelector` failed; trying again", "err", err)
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return &Error{Kind: TimedOut, Param: "waitForSelector", Err: ctx.Err(), Message: fmt.Sprintf(
				"No element matched `waitForSelector` %s within the `timeout`; check the selector against the rendered page, or raise `timeout`.", apierr.Show(sel))}
		case <-sess.Done():
			return fmt.Errorf("%w: the page closed while waiting for `waitForSelector`", errLeaseLost)
		}
	}
}

// runScript runs one of `scripts` in the page, awaiting the promise it
// ends with, if any; what it returned stays in the page (callerScript). An
// exception is the caller's to fix.
func (r *Renderer) runScript(ctx context.Context, sess *cdp.Session, js, name string) error {
	dl := deadlineOf(ctx, time.Hour).Add(-answerMargin)
	sctx, cancel := context.WithDeadline(ctx, dl)
	defer cancel()
	t := true
	res, err := cdp.Execute(sctx, sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression: callerScript(js), AwaitPromise: &t, UserGesture: &t, Silent: &t,
		// V8 stops a script that runs past the request's time, so an
		// endless loop does not hold the page until it is disposed.
		Timeout: runtime.TimeDelta(max(time.Until(dl).Milliseconds(), 1)),
	})
	if err != nil {
		if sctx.Err() != nil {
			return timeoutError(sctx, "The script in `"+name+"` did not finish within the `timeout`")
		}
		return browserError(ctx, "running `"+name+"`", err)
	}
	if ex := res.ExceptionDetails; ex != nil {
		if time.Now().After(dl.Add(-50 * time.Millisecond)) {
			return timeoutError(sctx, "The script in `"+name+"` did not finish within the `timeout`")
		}
		what := ex.Text
		if ex.Exception != nil && ex.Exception.Description != "" {
			what, _, _ = strings.Cut(ex.Exception.Description, "\n")
		}
		return badInput(name, js, "The script in `%s` failed in the page: %s; fix the script, or drop it.", name, apierr.Show(what))
	}
	if what, failed := scriptFailure(res.Result); failed {
		return badInput(name, js, "The script in `%s` failed in the page: %s; fix the script, or drop it.", name, apierr.Show(what))
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
func (r *Renderer) click(ctx context.Context, sess *cdp.Session, sel string) error {
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
		return browserError(ctx, "clicking `click`", err)
	}
	switch t.Problem {
	case "syntax":
		return selectorSyntaxError("click", sel)
	case "none":
		return badInput("click", sel, "`click` %s matches no element on the page; check the selector against the rendered page.", apierr.Show(sel))
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
			return browserError(ctx, "clicking `click`", err)
		}
	}
	return nil
}

// scrollTo brings the first element the selector matches to the top of
// the viewport.
func (r *Renderer) scrollTo(ctx context.Context, sess *cdp.Session, sel string) error {
	js := `((sel) => {
  let el;
  try { el = document.querySelector(sel); } catch (e) { return "syntax"; }
  if (!el) return "none";
  el.scrollIntoView({block: "start", inline: "nearest", behavior: "instant"});
  return "";
})(` + jsString(sel) + `)`
	var problem string
	if err := evaluate(ctx, sess, js, &problem); err != nil {
		return browserError(ctx, "scrolling to `scroll`", err)
	}
	switch problem {
	case "syntax":
		return selectorSyntaxError("scroll", sel)
	case "none":
		return badInput("scroll", sel, "`scroll` %s matches no element on the page; check the selector against the rendered page.", apierr.Show(sel))
	}
	return nil
}
