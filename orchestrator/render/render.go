package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/pool"
)

// maxRedirects is API.md's limit: exactly 10 hops is fine, 11 is not.
const maxRedirects = 10

// maxDOMChars bounds the document transferred from the browser. A larger
// page keeps its whole <head> and the start of its <body>, which is where
// every metadata source lives.
const maxDOMChars = 8 << 20

// errLeaseLost marks a render that failed because its browser went away;
// it is worth one retry on another sidecar.
var errLeaseLost = errors.New("the browser went away during the render")

// errListedDocument marks a render whose page itself (the target, or a
// redirect of it) was refused by the ad-block list of the egress guard; it
// is rendered again without the list.
var errListedDocument = errors.New("the page is on a host of the ad-block list")

// rendered is what one visit of the target produced.
type rendered struct {
	finalURL  *url.URL
	doc       *goquery.Document
	meta      *meta.Result // the rules' output when already computed
	fetchMode string       // "prerender" or "fetch", for x-fetch-mode
	src       source       // where the page's assets are fetched from
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

// render leases a browser and produces the answer, retrying once on
// another sidecar when the first one dies under the request.
func (s *Server) render(ctx context.Context, req *Request, key string) (*Entry, error) {
	if req.Prerender != "true" && req.PDF == nil && req.Screenshot == nil && !req.MetaOff &&
		!req.Controls.needsBrowser() && s.static != nil {
		e, err := s.renderStatic(ctx, req, key)
		if !errors.Is(err, errNeedsBrowser) || req.Prerender == "false" {
			return e, err
		}
		s.log.Debug("the static page is not enough; rendering it in a browser", "reason", err)
	}
	unfiltered := renderUnfiltered(req)
	e, err := s.renderOnce(ctx, req, key, unfiltered)
	if errors.Is(err, errListedDocument) && ctx.Err() == nil {
		// The caller asked for that page: render it again without the list.
		s.log.Debug("the target led to a host on the ad-block list; rendering it without the list", "err", err)
		e, err = s.renderOnce(ctx, req, key, true)
	}
	if errors.Is(err, errLeaseLost) && ctx.Err() == nil {
		s.m.Retries.Inc()
		s.log.Warn("the browser died during a render; retrying once", "err", err)
		e, err = s.renderOnce(ctx, req, key, unfiltered)
	}
	if errors.Is(err, errListedDocument) {
		return nil, targetError("The target led to a host on the ad-block list, which glimpse could not render; try `adblock=false`.")
	}
	if errors.Is(err, errLeaseLost) {
		return nil, &Error{Code: "EFATAL", Status: 502,
			Message: "The browser rendering the page stopped unexpectedly; try again.", Err: err}
	}
	return e, err
}

// renderStatic answers from a plain fetch when the page allows it. The
// fetch gets at most 40 % of the budget, so a browser can still follow.
func (s *Server) renderStatic(ctx context.Context, req *Request, key string) (*Entry, error) {
	budget := time.Until(deadlineOf(ctx, req.Timeout)) * 4 / 10
	sctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	r, err := s.fetchStatic(sctx, req)
	if err != nil {
		if errors.Is(err, errNeedsBrowser) && req.Prerender == "false" {
			return nil, targetError(fmt.Sprintf("The target could not be read without a browser (%v); drop `prerender=false`.", errors.Unwrap(err)))
		}
		if sctx.Err() != nil && ctx.Err() == nil && req.Prerender != "false" {
			return nil, fmt.Errorf("%w: the plain fetch was slow", errNeedsBrowser)
		}
		if ctx.Err() != nil {
			return nil, s.timeoutError(ctx, "The target did not answer within the `timeout`")
		}
		return nil, err
	}
	return s.compose(ctx, nil, req, key, r)
}

func (s *Server) renderOnce(ctx context.Context, req *Request, key string, unfiltered bool) (*Entry, error) {
	start := time.Now()
	lease, err := s.deps.Pool.LeaseWith(ctx, pool.LeaseOptions{Unfiltered: unfiltered})
	s.m.LeaseWait.Observe(time.Since(start).Seconds())
	s.m.Phase.WithLabelValues("lease_wait").Observe(time.Since(start).Seconds())
	if err != nil {
		return nil, s.leaseError(ctx, err)
	}
	defer lease.Release()

	var out *Entry
	err = func() error {
		if len(req.Headers) > 0 {
			// Forwarding lasts for the whole lease: asset probes of the
			// target's own site need the caller's cookie too.
			stop, err := forwardHeaders(ctx, lease.Session, req.Target, req.Headers)
			if err != nil {
				return s.browserError(ctx, "setting the forwarded headers", err)
			}
			defer stop()
		}
		r, err := s.visit(ctx, lease, req)
		if err != nil {
			return err
		}
		out, err = s.compose(ctx, lease, req, key, r)
		return err
	}()
	if err != nil && lease.IsLost() {
		return nil, fmt.Errorf("%w: %v", errLeaseLost, err)
	}
	return out, err
}

func (s *Server) leaseError(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, pool.ErrBusy):
		s.m.BusyRejections.Inc()
		return &Error{Code: "EBUSY", Status: 503, RetryAfter: 2 * time.Second, Err: err,
			Message: "Every browser is busy and the queue is full; retry after a short wait."}
	case errors.Is(err, pool.ErrClosed):
		return &Error{Code: "EBUSY", Status: 503, RetryAfter: time.Second, Err: err,
			Message: "This glimpse instance is shutting down; retry, and another one will answer."}
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &Error{Code: "ETIMEOUT", Status: 504, Err: err,
			Message: "No browser became free within the request's `timeout`; retry, or raise `timeout`."}
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		return Fatal(err)
	}
}

// visit navigates the leased page to the target and waits until it has
// loaded (or its load budget is spent), watching every redirect hop.
func (s *Server) visit(ctx context.Context, lease *pool.Lease, req *Request) (*rendered, error) {
	sess := lease.Session
	navStart := time.Now()
	events, stop := sess.Listen(
		"Page.loadEventFired", "Page.domContentEventFired", "Page.javascriptDialogOpening", "Inspector.targetCrashed",
		"Network.requestWillBeSent", "Network.responseReceived", "Network.loadingFailed",
		"Network.loadingFinished",
	)
	defer stop()

	if _, err := cdp.Execute(ctx, sess, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: req.MediaType}); err != nil {
		return nil, s.browserError(ctx, "setting the media type", err)
	}

	if err := s.beforeNavigate(ctx, lease, req); err != nil {
		return nil, err
	}

	mainFrame := string(lease.TargetID) // the main frame's id is its page target's id
	type navOutcome struct {
		res page.NavigateResult
		err error
	}
	navDone := make(chan navOutcome, 1)
	go func() {
		res, err := cdp.Execute(ctx, sess, page.Navigate, page.NavigateParams{URL: req.Target.String()})
		navDone <- navOutcome{res, err}
	}()

	// The page gets most of the budget to load; what is left is for
	// extraction, probing and printing. A subresource that never answers
	// then costs the load budget, not the whole request.
	budget := time.Until(deadlineOf(ctx, req.Timeout))
	loadBudget := time.NewTimer(budget * 6 / 10)
	defer loadBudget.Stop()

	// Assets are fetched through a sidecar's egress guard, like the page
	// itself, with the caller's headers for the target's own site only:
	// Network.loadNetworkResource would skip the header forwarding, and a
	// probe need not hold the page.
	r := &rendered{fetchMode: "prerender",
		src: httpSource{f: s.static, site: siteOf(req.Target), headers: req.Headers}}
	var (
		hops        int
		mainReq     network.RequestID
		navigated   bool
		loaded      bool
		finalURL    = req.Target.String()
		inflight    = map[network.RequestID]bool{} // fetch/XHR still running
		settleUntil time.Time
	)
	settle := time.NewTimer(time.Hour)
	defer settle.Stop()

	// waitUntil decides when the page counts as loaded. networkidle0/2 wait
	// for at most 0/2 requests in flight for idleFor after load; auto waits
	// for fetch/XHR around load to finish (at most a second).
	waitUntil := req.Controls.WaitUntil
	idleMax := -1
	switch waitUntil {
	case "networkidle0":
		idleMax = 0
	case "networkidle2":
		idleMax = 2
	}
	const idleFor = 500 * time.Millisecond
	idleSince := time.Time{}
	idleTick := time.NewTicker(100 * time.Millisecond)
	defer idleTick.Stop()
	for {
		if loaded && idleMax < 0 && len(inflight) == 0 {
			break
		}
		if loaded && idleMax >= 0 {
			if len(inflight) > idleMax {
				idleSince = time.Time{}
			} else if idleSince.IsZero() {
				idleSince = time.Now()
			} else if time.Since(idleSince) >= idleFor {
				break
			}
		}
		select {
		case <-ctx.Done():
			if navigated {
				// Late scripts may still run; the document is here, so read it.
				goto extract
			}
			return nil, s.timeoutError(ctx, "The target did not answer within the `timeout`")
		case <-lease.Lost():
			return nil, errLeaseLost
		case n := <-navDone:
			if n.err != nil {
				if ctx.Err() != nil {
					return nil, s.timeoutError(ctx, "The target did not answer within the `timeout`")
				}
				return nil, s.browserError(ctx, "navigating", n.err)
			}
			if n.res.IsDownload {
				return nil, targetError("The target is a file download, not a web page.")
			}
			if n.res.ErrorText != "" {
				if hops > maxRedirects {
					return nil, tooManyRedirects(hops)
				}
				if listedDocument(n.res.ErrorText, finalURL) {
					return nil, fmt.Errorf("%w: %s", errListedDocument, finalURL)
				}
				return nil, navigationError(n.res.ErrorText)
			}
			navigated = true
		case <-loadBudget.C:
			if !navigated {
				continue // the navigation itself is bounded by ctx
			}
			_, _ = cdp.Execute(ctx, sess, page.StopLoading, cdproto.Empty{})
			goto extract
		case <-settle.C:
			goto extract
		case <-idleTick.C:
		case ev, ok := <-events:
			if !ok {
				return nil, errLeaseLost
			}
			switch ev.Method {
			case "Inspector.targetCrashed":
				return nil, targetError("The page crashed the browser tab while rendering (it may use too much memory).")
			case "Page.javascriptDialogOpening":
				go func() {
					dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
					defer cancel()
					_, _ = cdp.Execute(dctx, sess, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
				}()
			case "Page.domContentEventFired":
				if mainReq != "" && waitUntil == "domcontentloaded" {
					goto extract
				}
			case "Page.loadEventFired":
				// Only the target's own load counts, not a late one of the
				// blank page the lease started on.
				if mainReq != "" {
					if waitUntil == "load" {
						goto extract
					}
					loaded = true
					quiet := time.Second // auto: fetch/XHR started around load may fill the head
					if idleMax >= 0 {
						quiet = 10 * time.Second // networkidle: bounded by the load budget too
					}
					settleUntil = time.Now().Add(quiet)
					settle.Reset(quiet)
				}
			case "Network.requestWillBeSent":
				var e network.EventRequestWillBeSent
				if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Request == nil {
					continue
				}
				if e.Type == network.ResourceTypeDocument && string(e.FrameID) == mainFrame {
					if e.RedirectResponse != nil && e.RequestID == mainReq {
						hops++
						if hops > maxRedirects {
							_, _ = cdp.Execute(ctx, sess, page.StopLoading, cdproto.Empty{})
							return nil, tooManyRedirects(hops)
						}
						if err := s.checkHop(ctx, e.Request.URL); err != nil {
							_, _ = cdp.Execute(ctx, sess, page.StopLoading, cdproto.Empty{})
							return nil, err
						}
					}
					mainReq = e.RequestID
					finalURL = e.Request.URL
				} else if !loaded || time.Now().Before(settleUntil) {
					if idleMax >= 0 || e.Type == network.ResourceTypeXHR || e.Type == network.ResourceTypeFetch {
						inflight[e.RequestID] = true
					}
				}
			case "Network.responseReceived":
				var e network.EventResponseReceived
				if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Response == nil {
					continue
				}
				if e.RequestID == mainReq && e.Type == network.ResourceTypeDocument {
					if g := headerValue(e.Response.Headers, "x-glimpse-guard"); g == "blocked" {
						_, _ = cdp.Execute(ctx, sess, page.StopLoading, cdproto.Empty{})
						return nil, fmt.Errorf("%w: %s", errListedDocument, e.Response.URL)
					} else if g != "" {
						return nil, guardError(e.Response.URL, g)
					}
					finalURL = e.Response.URL
				}
			case "Network.loadingFinished", "Network.loadingFailed":
				var e struct {
					RequestID network.RequestID `json:"requestId"`
				}
				if jsonv2.Unmarshal(ev.Params, &e) == nil {
					delete(inflight, e.RequestID)
				}
			}
		}
	}
extract:
	s.m.Phase.WithLabelValues("navigate").Observe(time.Since(navStart).Seconds())
	if !navigated {
		// The load event can overtake the reply to Page.navigate.
		select {
		case n := <-navDone:
			if n.err != nil {
				return nil, s.timeoutError(ctx, "The target did not answer within the `timeout`")
			}
			if n.res.ErrorText != "" {
				return nil, navigationError(n.res.ErrorText)
			}
		case <-ctx.Done():
			return nil, s.timeoutError(ctx, "The target did not answer within the `timeout`")
		}
	}
	u, err := url.Parse(finalURL)
	if err != nil {
		u = req.Target
	}
	r.finalURL = u
	if err := s.beforeCapture(ctx, lease, req); err != nil {
		if lease.IsLost() {
			return nil, errLeaseLost
		}
		return nil, err
	}
	if req.MetaOff && len(req.Data) == 0 {
		return r, nil
	}
	exStart := time.Now()
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), extractBudget(ctx))
	defer cancel()
	// The wait runs on the page's own timers, which never fire with its
	// scripts off and may not on a busy main thread: bounded either way.
	if waitUntil == "auto" && !req.Controls.JavaScriptOff && (!loaded || !hasEssentials(ectx, sess)) {
		hctx, hcancel := context.WithTimeout(ectx, 2*time.Second)
		waitForHead(hctx, sess)
		hcancel()
	}
	doc, href, err := readDOM(ectx, sess)
	if err != nil {
		if lease.IsLost() {
			return nil, errLeaseLost
		}
		return nil, s.browserError(ctx, "reading the page", err)
	}
	if hu, err := url.Parse(href); err == nil && hu.Scheme != "" && hu.Scheme != "about" {
		r.finalURL = hu
	}
	r.doc = doc
	s.m.Phase.WithLabelValues("extract").Observe(time.Since(exStart).Seconds())
	return r, nil
}

// extractBudget leaves reading the DOM a few seconds even when the
// request's own deadline has just passed: a page that loads forever still
// has metadata worth answering with.
func extractBudget(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left > 3*time.Second {
			return left
		}
	}
	return 3 * time.Second
}

func deadlineOf(ctx context.Context, fallback time.Duration) time.Time {
	if dl, ok := ctx.Deadline(); ok {
		return dl
	}
	return time.Now().Add(fallback)
}

// hasEssentials reports whether the document already names itself, so the
// render need not wait for scripts to fill in the head.
func hasEssentials(ctx context.Context, sess *cdp.Session) bool {
	var ok bool
	_ = evaluate(ctx, sess, `!!(document.title || document.querySelector('meta[property="og:title"],meta[name="twitter:title"]'))`, &ok)
	return ok
}

// waitForHead gives a client-rendered page a short, capped wait: until
// scripts have given the document a title (then 100 ms more for the rest of
// the head to land), or 1.5 s at most.
func waitForHead(ctx context.Context, sess *cdp.Session) {
	const js = `new Promise(res => {
  let settle;
  const named = () => document.title || document.querySelector('meta[property="og:title"],meta[name="twitter:title"]');
  const o = new MutationObserver(() => { if (!settle && named()) settle = setTimeout(done, 100); });
  function done() { o.disconnect(); res(true); }
  if (named()) { settle = setTimeout(done, 100); }
  o.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  setTimeout(done, 1500);
})`
	var v bool
	_ = evaluate(ctx, sess, js, &v)
}

// readDOM transfers the live document, bounded by maxDOMChars.
func readDOM(ctx context.Context, sess *cdp.Session) (*goquery.Document, string, error) {
	js := fmt.Sprintf(`(() => {
  const max = %d, root = document.documentElement;
  if (!root) return {html: "", href: location.href};
  let html = root.outerHTML;
  if (html.length > max) {
    const head = document.head ? document.head.outerHTML : "";
    const body = document.body ? document.body.innerHTML.slice(0, Math.max(0, max - head.length)) : "";
    html = "<html lang=\"" + (root.getAttribute("lang") || "").replace(/"/g, "") + "\">" + head + "<body>" + body + "</body></html>";
  }
  return {html, href: location.href};
})()`, maxDOMChars)
	var v struct {
		HTML string `json:"html"`
		Href string `json:"href"`
	}
	if err := evaluate(ctx, sess, js, &v); err != nil {
		return nil, "", err
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(v.HTML))
	if err != nil {
		return nil, "", err
	}
	return doc, v.Href, nil
}

// evaluate runs an expression in the page and decodes its value.
func evaluate(ctx context.Context, sess *cdp.Session, expr string, out any) error {
	t := true
	res, err := cdp.Execute(ctx, sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ReturnByValue: &t, AwaitPromise: &t, Silent: &t,
	})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("the page's script failed: %s", res.ExceptionDetails.Text)
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		return fmt.Errorf("the page's script returned nothing")
	}
	return jsonv2.Unmarshal(res.Result.Value, out)
}

// checkHop applies the address rule to a redirect target, so the caller
// gets EFORBIDDENURL rather than a vague connection error. The egress
// guard in the sidecar enforces the rule either way.
func (s *Server) checkHop(ctx context.Context, raw string) error {
	u, err := ParseTarget(raw)
	if err != nil {
		return &Error{Code: "EFORBIDDENURL", Status: 400, Data: map[string]any{"url": raw},
			Message: fmt.Sprintf("The target redirected to `%s`, which glimpse does not follow (only public http and https addresses are).", raw)}
	}
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := CheckTarget(cctx, s.deps.Policy, s.deps.Resolver, u); err != nil {
		if e := AsError(err); e.Code == "EFORBIDDENURL" {
			s.m.GuardRefusals.WithLabelValues("redirect").Inc()
			return e
		}
	}
	return nil
}

// listedDocument reports whether a failed navigation was the egress
// guard refusing the page's own https host for the ad-block list: the
// browser sees only a tunnel that failed, so the host decides.
func listedDocument(errorText, pageURL string) bool {
	if !strings.Contains(errorText, "ERR_TUNNEL_CONNECTION_FAILED") {
		return false
	}
	u, err := url.Parse(pageURL)
	return err == nil && adblockListed(u.Hostname())
}

func headerValue(h network.Headers, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			if s, ok := v.(string); ok {
				return s
			}
		}
	}
	return ""
}

func tooManyRedirects(hops int) error {
	return &Error{Code: "EMAXREDIRECTS", Status: 400,
		Message: fmt.Sprintf("The target redirected more than %d times (at least %d hops); give the final URL instead.", maxRedirects, hops)}
}

func guardError(target, reason string) error {
	if reason == "unresolvable" {
		return &Error{Code: "EINVALURL", Status: 400, Data: map[string]any{"url": target},
			Message: fmt.Sprintf("The host of `%s` does not resolve; check the URL.", target)}
	}
	return &Error{Code: "EFORBIDDENURL", Status: 400, Data: map[string]any{"url": target},
		Message: fmt.Sprintf("The target led to `%s`, which resolves to an address outside the public internet.", target)}
}

// targetError is a failure caused by the target itself: it answered, but
// not with a page glimpse can read.
func targetError(msg string) error {
	return &Error{Code: "EFETCH", Status: 502, Message: msg}
}

// navigationError maps Chromium's net error names to the API's codes.
func navigationError(text string) error {
	switch {
	case strings.Contains(text, "ERR_TOO_MANY_REDIRECTS"):
		return tooManyRedirects(maxRedirects + 1)
	case strings.Contains(text, "ERR_NAME_NOT_RESOLVED"):
		return &Error{Code: "EINVALURL", Status: 400, Message: "The target's host does not resolve; check the URL."}
	case strings.Contains(text, "ERR_TIMED_OUT"), strings.Contains(text, "ERR_CONNECTION_TIMED_OUT"):
		return &Error{Code: "ETIMEOUT", Status: 504, Message: "The target did not answer in time."}
	case strings.Contains(text, "ERR_ABORTED"):
		return targetError("The target's answer was not a page (the browser aborted it, for example a file download).")
	default:
		return targetError(fmt.Sprintf("The target could not be loaded (%s).", strings.TrimPrefix(text, "net::")))
	}
}

func (s *Server) timeoutError(ctx context.Context, msg string) error {
	return &Error{Code: "ETIMEOUT", Status: 504, Err: ctx.Err(),
		Message: msg + "; retry, or raise `timeout`."}
}

// browserError wraps a failed DevTools call: a time-out when the request's
// budget ran out, else a service fault.
func (s *Server) browserError(ctx context.Context, step string, err error) error {
	// The step may run on its own shorter context (reading the DOM does), whose
	// deadline can pass before the request's own timer fires.
	if (ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded)) || errors.Is(err, context.DeadlineExceeded) {
		return s.timeoutError(ctx, "The page did not finish "+step+" within the `timeout`")
	}
	if errors.Is(err, cdp.ErrClosed) || errors.Is(err, cdp.ErrSessionClosed) {
		return fmt.Errorf("%w: %s: %v", errLeaseLost, step, err)
	}
	return Fatal(fmt.Errorf("%s: %w", step, err))
}
