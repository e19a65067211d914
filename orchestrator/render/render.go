package render

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptrace"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/pool"
	"github.com/glimpse/glimpse/sidecar/guard"
)

// Config is what a Renderer is built from.
type Config struct {
	Pool     *pool.Pool // nil: no browser, and no plain fetch either
	Policy   *guard.Policy
	Resolver guard.Resolver
	Metrics  *metrics.Orchestrator
	Logger   *slog.Logger
	// Full renders every page in full: every subresource loads and the
	// load event is awaited even when the answer needs no pixels. For
	// comparison with the lean renders, and as a way back from them.
	Full bool
	// Leases, when set, hands out the pages instead of Pool: a scripted
	// browser in tests.
	Leases Leaser
	// Listed reports whether the egress guard refuses host for pages
	// rendered with the ad-block list, when no guard can be asked (the
	// guard's own answer decides otherwise): a failed tunnel to the page's
	// own host is rendered again without the list only when the list
	// names it. nil: any host may be listed, and every failed tunnel is
	// tried again.
	Listed func(host string) bool
	// GuardMarks checks the marks of the egress guard's answers
	// (guard.NewMarks of the sidecar token); nil: no answer counts as the
	// guard's.
	GuardMarks *guard.Marks
}

// Renderer turns a request into a visited page: a plain fetch when that is
// enough, else a leased browser.
type Renderer struct {
	leases   Leaser // nil: no browser
	policy   *guard.Policy
	resolver guard.Resolver
	m        *metrics.Orchestrator
	log      *slog.Logger
	static   *staticFetcher // prerender=auto's plain fetch; nil without a pool
	full     bool           // no lean renders
	listed   func(host string) bool
	marks    *guard.Marks // the egress guard's marks; nil reads no word of the guard
}

// New builds a Renderer.
func New(c Config) *Renderer {
	r := &Renderer{leases: c.Leases, policy: c.Policy, resolver: c.Resolver, m: c.Metrics, log: c.Logger, full: c.Full, listed: c.Listed, marks: c.GuardMarks}
	if r.log == nil {
		r.log = slog.Default()
	}
	if c.Pool != nil {
		if r.leases == nil {
			r.leases = poolLeaser{c.Pool}
		}
		r.static = newStaticFetcher(c.Pool.EgressProxyURL, c.GuardMarks)
	}
	return r
}

// Page is a visited target, handed to the caller of Render while the
// browser that rendered it is still leased.
type Page struct {
	URL       *url.URL          // the final URL, after redirects and script navigation
	Doc       *goquery.Document // the DOM as read; nil when nothing needed it
	Meta      *meta.Result      // the rules' output when the plain fetch computed it already
	FetchMode string            // "prerender" or "fetch", for x-fetch-mode
	Assets    Source            // fetches the page's assets along its own egress path
	CutShort  bool              // the request's time ran out while the page was loading
	Response  *Response         // what the target's server answered; nil when unknown
	File      *File             // the target is a file, not a page; nil for a page
	Wall      *Wall             // a bot wall answered instead of the page; nil for the page itself
	// Evaluated holds the result of each `evaluate` script of the data
	// rules, by its source, run while the page was held.
	Evaluated map[string]Evaluation

	lease    Lease      // nil for a plain fetch
	scale    float64    // the device scale factor emulated, 1 when none
	viewport [2]float64 // the viewport's CSS width and height
	log      *slog.Logger
	m        *metrics.Orchestrator
}

// Release gives the browser back before Render returns, when what is left
// to do needs no page. It is safe to call more than once.
func (p *Page) Release() {
	if p.lease != nil {
		p.lease.Release()
	}
}

// PreparePage is the pool's per-page set-up that does not depend on the
// request: the events the render reads, and no downloads.
func PreparePage(ctx context.Context, l *pool.Lease) error {
	if _, err := cdp.Execute(ctx, l.Session, page.Enable, page.EnableParams{}); err != nil {
		return err
	}
	if _, err := cdp.Execute(ctx, l.Session, network.Enable, network.EnableParams{}); err != nil {
		return err
	}
	_, err := cdp.Execute(ctx, l.Browser, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: l.ContextID,
	})
	return err
}

// Render visits the request's target and calls use with the page while it
// is held. A browser that dies under the request is replaced once by
// another sidecar's, and use runs again there. Failures are *Error, or
// errors of use, or unexpected ones.
func (r *Renderer) Render(ctx context.Context, req *query.Request, use func(context.Context, *Page) error) error {
	if req.Prerender != "true" && req.PDF == nil && req.Screenshot == nil && req.ReadsPage() &&
		!req.Controls.NeedsBrowser() && !query.HasEvaluate(req.Data) && r.static != nil {
		err := r.renderStatic(ctx, req, use)
		if !errors.Is(err, errNeedsBrowser) || req.Prerender == "false" {
			return err
		}
		r.log.Debug("the static page is not enough; rendering it in a browser", "reason", err)
	}
	if r.leases == nil {
		return errors.New("no browser pool is configured")
	}
	unfiltered := req.Controls.AdblockOff
	err := r.renderOnce(ctx, req, unfiltered, use)
	if errors.Is(err, errListedDocument) && ctx.Err() == nil {
		// The caller asked for that page: render it again without the list.
		r.log.Debug("the target led to a host on the ad-block list; rendering it without the list", "err", err)
		unfiltered = true
		err = r.renderOnce(ctx, req, unfiltered, use)
	}
	if errors.Is(err, errLeaseLost) && ctx.Err() == nil {
		r.m.Retries.Inc()
		r.log.Warn("the browser died during a render; retrying once", "err", err)
		err = r.renderOnce(ctx, req, unfiltered, use)
	}
	if errors.Is(err, errLeaseLost) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// The request's time ran out too: that is what the caller can act on.
		return timeoutError(ctx, "The page did not finish rendering within the `timeout`")
	}
	if errors.Is(err, errLeaseLost) {
		return &Error{Kind: BrowserLost, Message: "The browser rendering the page stopped unexpectedly; try again.", Err: err}
	}
	return err
}

// renderStatic answers from a plain fetch when the page allows it. The
// fetch gets 40 % of the budget, so a browser can still follow, but only
// a target that has answered is handed to one: while the target has sent
// nothing at all, a browser would only ask the same silent host again, so
// the plain fetch keeps the caller's whole budget instead.
func (r *Renderer) renderStatic(ctx context.Context, req *query.Request, use func(context.Context, *Page) error) error {
	budget := time.Until(deadlineOf(ctx, req.Timeout)) * 4 / 10
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var answered atomic.Bool
	sctx = httptrace.WithClientTrace(sctx, &httptrace.ClientTrace{
		GotFirstResponseByte: func() { answered.Store(true) },
	})
	slow := time.AfterFunc(budget, func() {
		if answered.Load() {
			cancel(errStaticSlow)
		}
	})
	defer slow.Stop()
	p, err := r.fetchStatic(sctx, req)
	if err != nil {
		if errors.Is(err, errNeedsBrowser) && req.Prerender == "false" {
			return unreadable(fmt.Sprintf("The target could not be read without a browser (%v); drop `prerender=false`.", errors.Unwrap(err)))
		}
		if errors.Is(context.Cause(sctx), errStaticSlow) && ctx.Err() == nil && req.Prerender != "false" {
			return fmt.Errorf("%w: the plain fetch was slow", errNeedsBrowser)
		}
		if ctx.Err() != nil {
			return timeoutError(ctx, "The target did not answer within the `timeout`")
		}
		return err
	}
	return use(ctx, p)
}

// errStaticSlow ends a plain fetch whose target answered but is slow to
// send its page: a browser gets the rest of the budget.
var errStaticSlow = errors.New("the plain fetch used its share of the budget")

func (r *Renderer) renderOnce(ctx context.Context, req *query.Request, unfiltered bool, use func(context.Context, *Page) error) error {
	start := time.Now()
	lease, err := r.leases.Lease(ctx, pool.LeaseOptions{Unfiltered: unfiltered, Upstream: leaseUpstream(req)})
	r.m.LeaseWait.Observe(time.Since(start).Seconds())
	r.m.Phase.WithLabelValues("lease_wait").Observe(time.Since(start).Seconds())
	if err != nil {
		return r.leaseError(ctx, err)
	}
	held := &heldLease{Lease: lease}
	lease = held
	defer lease.Release()
	watch := watchPage(ctx, lease.Page())
	defer watch.close()

	err = func() error {
		if blocked := r.blockedTypes(req); len(req.Headers) > 0 || len(blocked) > 0 {
			// Interception lasts for the whole lease: asset probes of the
			// target's own site need the caller's cookie too.
			stop, err := intercept(ctx, lease.Page(), req.Target, req.Headers, blocked)
			if err != nil {
				return browserError(ctx, "intercepting the page's requests", err)
			}
			defer stop()
		}
		p, err := r.visit(ctx, lease, req, unfiltered)
		if err != nil {
			return err
		}
		return use(ctx, p)
	}()
	switch {
	case err == nil:
	case held.released.Load():
		// Given back early, the page may go with its browser for reasons
		// of the pool's (a recycle), which say nothing of this failure.
	case errors.Is(lease.Page().Err(), cdp.ErrMessageTooLarge):
		// The page's own connection ended, and only it: not retried.
		return pageOverLimit(lease.Page().Err())
	case lease.IsLost():
		// Only a browser or a connection that went away is retried.
		if !errors.Is(err, errLeaseLost) {
			err = fmt.Errorf("%w: %v", errLeaseLost, err)
		}
	case watch.hasCrashed():
		return crashError()
	}
	return err
}

func (r *Renderer) leaseError(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, pool.ErrBusy):
		r.m.BusyRejections.Inc()
		return &Error{Kind: Busy, RetryAfter: 2 * time.Second, Err: err,
			Message: "Every browser is busy and the queue is full; retry after a short wait."}
	case errors.Is(err, pool.ErrUnavailable):
		r.m.BusyRejections.Inc()
		return &Error{Kind: Busy, RetryAfter: 5 * time.Second, Err: err,
			Message: "No browser is healthy right now; retry in a few seconds."}
	case errors.Is(err, pool.ErrClosed):
		return &Error{Kind: Busy, RetryAfter: time.Second, Err: err,
			Message: "This glimpse instance is shutting down; retry, and another one will answer."}
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &Error{Kind: TimedOut, Err: err,
			Message: "No browser became free within the request's `timeout`; retry, or raise `timeout`."}
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		return fmt.Errorf("leasing a browser: %w", err)
	}
}

// deadlineOf is the context's deadline, or fallback from now.
func deadlineOf(ctx context.Context, fallback time.Duration) time.Time {
	if dl, ok := ctx.Deadline(); ok {
		return dl
	}
	return time.Now().Add(fallback)
}
