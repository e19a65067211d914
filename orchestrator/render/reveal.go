package render

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/domdebugger"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/query"
)

// Before a full-page screenshot, a PDF or the Markdown of a rendered page,
// glimpse brings in what a reader scrolling through the page would see:
// the rest of a document its scripts build late, images that load only
// near the viewport, the next parts of a list that grows on scroll. Then
// it returns to the top. It is bounded by height and by time, and skipped
// when the caller gives waits of their own.
const (
	// revealViewports is how far down the page is scrolled, in viewports.
	revealViewports = 20
	// revealHeight is the most the viewport is made tall, in CSS pixels,
	// while the page is scrolled through (see growViewport): each step
	// waits for the page to draw (a frame, 17 ms), so a taller viewport
	// takes fewer of them to cover the same length.
	revealHeight = 3200
	// revealMax bounds the whole step; revealShare is the most of what is
	// left of the request's time that it may take.
	revealMax   = 10 * time.Second
	revealShare = 0.3
	// revealSettle bounds the wait for a script-built document to have
	// content: revealMinText characters of text in its body, or a
	// picture.
	revealSettle  = 3 * time.Second
	revealMinText = 200
	// revealStep bounds the wait, at each step down, for the images that
	// came into view; at the end, a page that changed after the last
	// scroll waits until it has not changed for as long.
	revealStep = 400 * time.Millisecond
	// revealFrame bounds the wait, after each scroll, for a visible page
	// to update its rendering, when what came into view is laid out and
	// the page's intersection observers are told of it.
	revealFrame = time.Second
	// revealTail is how long, at the end, a page that has not changed
	// since the last scroll is given to react to it (a request it
	// started is the network's quiet to wait for, after the scroll): a
	// handler that waits for the scrolling to stop acts 100–200 ms after
	// it. A page too short to scroll must have been unchanged as long.
	revealTail = 250 * time.Millisecond
	// revealQuietTail stands for revealTail on a page that nothing in it
	// hears scroll events on (see hearsScroll). Such a page learns of a
	// scroll only from its intersection observers, which are told in the
	// rendering update each step waits for; what they start (a fetch, a
	// state change and the render and effect after it) has started within
	// a frame or two.
	revealQuietTail = 100 * time.Millisecond
	// revealFetch bounds the wait, at the end, for what a page asked its
	// own site for and has not had yet (see netState.awaited): the next
	// part of a list, from a server slower than revealTail, or one asked
	// for before the scroll reached the list.
	revealFetch = 3 * time.Second
)

//go:embed reveal.js
var revealJS string

// revealed is what the page reports of the step.
type revealed struct {
	Settled int    `json:"settled"` // ms spent waiting for the document to take shape
	Steps   int    `json:"steps"`   // viewports scrolled
	Height  int    `json:"height"`  // the document's height at the end, CSS pixels
	Images  int    `json:"images"`  // images in the document
	Pending int    `json:"pending"` // of those, still loading when time was up
	Grew    bool   `json:"grew"`    // the document grew while it was scrolled
	Cut     string `json:"cut"`     // "height" or "time" when a bound stopped it, "stuck" when the page would not scroll, else ""
	Late    int    `json:"late"`    // scrolls after which the page did not draw within revealFrame (it is given one more)

	// Paused: the step stopped at the end of a document that did not
	// grow, Since milliseconds after its last scroll, to ask what the
	// page started meanwhile (see reveal.js).
	// Changed: the page changed after that scroll.
	Paused  bool `json:"paused"`
	Since   int  `json:"since"`
	Changed bool `json:"changed"`
}

// revealApplies reports whether req's answer is one a reader would scroll
// through first: a full-page screenshot, a PDF or Markdown of a rendered
// page, with no wait of the caller's and the page's scripts on (with
// scripts off, the browser loads every image at once).
func revealApplies(req *query.Request) bool {
	c := req.Controls
	if c.WaitForSelector != "" || c.WaitForTimeout > 0 || (c.WaitUntil != "" && c.WaitUntil != "auto") || c.JavaScriptOff {
		return false
	}
	return req.PDF != nil || (req.Screenshot != nil && req.Screenshot.FullPage) || readsMarkdown(req.Data)
}

// readsMarkdown reports whether a data rule reads Markdown, at any depth.
func readsMarkdown(rules []query.DataRule) bool {
	for _, r := range rules {
		for _, q := range r.Fallbacks {
			for _, a := range q.Attrs() {
				if a == "markdown" {
					return true
				}
			}
			if readsMarkdown(q.Fields) {
				return true
			}
		}
	}
	return false
}

// revealBudget is the time the step may take when left remains of the
// request.
func revealBudget(left time.Duration) time.Duration {
	return max(0, min(revealMax, time.Duration(float64(left)*revealShare)))
}

// reveal scrolls through the page and waits for its images, in a world of
// its own. It is best effort: a page that refuses is captured as it is.
// site is the document's site: its own resources arriving are the page
// reacting to the scroll, other sites' are not. net, when not nil, is the
// page's network: at the end of a document that did not grow, the step
// waits for the requests the page sent its own site after the last
// scroll, and for its scripts' fetches to its site still in flight, since
// a list's next part may be one.
func (r *Renderer) reveal(ctx context.Context, lease Lease, req *query.Request, site string, net *netState) {
	budget := revealBudget(time.Until(deadlineOf(ctx, req.Timeout)))
	if budget < 200*time.Millisecond {
		return
	}
	start := time.Now()
	tail, hears := revealQuietTail, hearsScroll(ctx, lease.Page())
	if hears {
		tail = revealTail
	}
	view := metricsOf(req)
	doc, grown := r.growViewport(ctx, lease, view)
	if grown {
		defer r.restoreViewport(ctx, lease, view)
	}
	opts, err := json.Marshal(map[string]any{
		"budget": budget.Milliseconds(), "settle": min(revealSettle, budget/2).Milliseconds(),
		"minText": revealMinText, "bottom": revealViewports * view.Height, "grown": grown, "doc": doc,
		"step": revealStep.Milliseconds(), "frame": revealFrame.Milliseconds(), "tail": tail.Milliseconds(), "calm": revealTail.Milliseconds(),
		"site": site, "ask": net != nil,
	})
	if err != nil {
		return
	}
	// The page's own timers pace the step; the call's deadline is the
	// bound should they not fire (a main thread kept busy).
	cctx, cancel := context.WithTimeout(ctx, budget+time.Second)
	defer cancel()
	var (
		out    revealed
		waited time.Duration
	)
	expr := fmt.Sprintf("(%s)(%s)", revealJS, opts)
	for {
		out = revealed{} // a decode fills in what the answer has, and a pause's answer is not the last
		if err := evaluate(cctx, lease.Page(), expr, &out); err != nil {
			r.log.Debug("the page could not be scrolled through before the capture", "err", err)
			return
		}
		if !out.Paused {
			break
		}
		expr = "globalThis.revealer.finish()"
		scrolled := time.Now().Add(-time.Duration(out.Since) * time.Millisecond)
		if w, ok := awaitFetches(cctx, net, site, scrolled, out.Changed, min(revealFetch, time.Until(start.Add(budget)))); ok {
			waited += w
			expr = "globalThis.revealer.resume()"
		}
	}
	r.m.Phase.WithLabelValues(metrics.PhaseReveal).Observe(time.Since(start).Seconds())
	r.log.Debug("scrolled through the page before the capture", "took", time.Since(start), "settled_ms", out.Settled,
		"steps", out.Steps, "height", out.Height, "images", out.Images, "pending", out.Pending, "grew", out.Grew, "cut", out.Cut, "late", out.Late,
		"fetch_wait", waited, "hears_scroll", hears, "tail", tail)
}

// growViewport makes the page's viewport taller for the scroll-through,
// up to revealHeight, and reports whether it did. The document must still
// scroll in it at least once when it scrolled in view's: a page that
// listens for scroll events hears one, and one that waits for the reader
// to near its end sees them near it. Only the viewport grows: the screen,
// the width and the scale stay the caller's. doc is the document's height
// before.
func (r *Renderer) growViewport(ctx context.Context, lease Lease, view emulation.SetDeviceMetricsOverrideParams) (doc int64, grown bool) {
	if err := evaluate(ctx, lease.Page(), "(document.scrollingElement || document.documentElement).scrollHeight", &doc); err != nil {
		return 0, false
	}
	h := min(revealHeight, doc-view.Height)
	if h <= view.Height {
		return doc, false
	}
	tall := view
	tall.Height = h
	if _, err := cdp.Execute(ctx, lease.Page(), emulation.SetDeviceMetricsOverride, tall); err != nil {
		r.log.Debug("the viewport could not be made taller for the scroll-through", "err", err)
		return doc, false
	}
	return doc, true
}

// afterResize waits for the page's next rendering update, in which the
// browser tells it the viewport was resized and its handlers run; a page
// in the background, which gets no updates, a moment instead.
const afterResize = `new Promise((res) => {
  setTimeout(() => res(true), document.visibilityState === "visible" ? 500 : 50);
  requestAnimationFrame(() => setTimeout(() => res(true), 0));
})`

// restoreViewport sets the caller's viewport back after the scroll-
// through, before anything is captured or read; on a context of its own,
// since a capture of the page as the caller asked matters even when the
// request has run out of time.
func (r *Renderer) restoreViewport(ctx context.Context, lease Lease, view emulation.SetDeviceMetricsOverrideParams) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if _, err := cdp.Execute(rctx, lease.Page(), emulation.SetDeviceMetricsOverride, view); err != nil {
		if !lease.IsLost() {
			r.log.Debug("the viewport could not be set back after the scroll-through", "err", err)
		}
		return
	}
	var done bool
	_ = evaluate(rctx, lease.Page(), afterResize, &done)
}

// scrollListenerGroup holds the page's objects hearsScroll asks about,
// released together when it is done.
const scrollListenerGroup = "glimpse-scroll-listeners"

// hearsScroll reports whether anything in the page listens for the
// document's scroll events: a scroll or scrollend listener on its window
// or its document (where those events go; a listener on an element hears
// only that element's own scrolling), of any script, world or frame. When
// the browser cannot tell, the page is taken to listen.
//
// The browser tells a window's listeners only to a caller holding the
// window of the world that added them, so the window and the document are
// named in the page's main world: each is a name the page cannot redefine,
// and naming it runs none of the page's code. Piercing, it tells every
// context's listeners on them, a frame's included.
func hearsScroll(ctx context.Context, sess *cdp.Session) bool {
	defer func() {
		_, _ = cdp.Execute(ctx, sess, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: scrollListenerGroup})
	}()
	yes, depth := true, int64(1)
	for _, target := range []string{"window", "document"} {
		obj, err := cdp.Execute(ctx, sess, runtime.Evaluate, runtime.EvaluateParams{
			Expression: target, ObjectGroup: scrollListenerGroup, Silent: &yes,
		})
		if err != nil || obj.ExceptionDetails != nil || obj.Result == nil || obj.Result.ObjectID == "" {
			return true
		}
		got, err := cdp.Execute(ctx, sess, domdebugger.GetEventListeners, domdebugger.GetEventListenersParams{
			ObjectID: obj.Result.ObjectID, Depth: &depth, Pierce: &yes,
		})
		if err != nil {
			return true
		}
		for _, l := range got.Listeners {
			if l.Type == "scroll" || l.Type == "scrollend" {
				return true
			}
		}
	}
	return false
}

// awaitFetches waits, at most bound, for the requests to site that the
// page may still add to its document (see netState.awaited) to end. ok is
// false when nothing the page asked its site for is still to come, and,
// unless changed (the page changed after the scroll), it has had nothing
// its scripts asked its site for since scrolled: a part that has just
// come, the page may be adding now. The scroll's time is the page's,
// read here a message late: a part that ends as the page pauses may look
// asked for before it, and the page's step, told to finish, resumes when
// it saw such a part come while it was paused (see reveal.js).
func awaitFetches(ctx context.Context, net *netState, site string, scrolled time.Time, changed bool, bound time.Duration) (waited time.Duration, ok bool) {
	if net == nil {
		return 0, false
	}
	if net.catchUp != nil {
		net.catchUp()
	}
	if net.awaited(scrolled, site) == 0 {
		return 0, !changed && net.askedSince(scrolled, site)
	}
	start := time.Now()
	limit := time.NewTimer(bound)
	defer limit.Stop()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for net.awaited(scrolled, site) > 0 {
		select {
		case <-tick.C:
		case <-limit.C:
			return time.Since(start), true
		case <-ctx.Done():
			return time.Since(start), true
		}
	}
	return time.Since(start), true
}

// autoSettle bounds the network's quiet period after load under
// waitUntil=auto for a render with pixels.
const autoSettle = 3 * time.Second

// autoQuiet is what waitUntil=auto waits for after the load event, as
// Microlink's does: a render with pixels (a PDF, a screenshot) waits for
// the network to be quiet (no request in flight for half a second, what a
// late script or image needs), at most autoSettle. A render without
// pixels, and one with pixels that is then scrolled through (whose quiet
// is awaited after the scroll, see awaitQuiet), waits here only for the
// fetches and XHRs in flight, at most a second (idleMax -1, settle 0: the
// defaults).
func autoQuiet(later bool) (idleMax int, settle time.Duration) {
	if later {
		return -1, 0
	}
	return 0, autoSettle
}
