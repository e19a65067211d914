package render

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/sidecar/guard"
)

// idleFor is how long networkidle0/2 want the network quiet after load.
const idleFor = 500 * time.Millisecond

// navigation is one visit of the target in a leased page: the navigation
// itself, then the page's events until it counts as loaded under the
// request's waitUntil.
type navigation struct {
	r          *Renderer
	lease      Lease
	sess       *cdp.Session
	req        *query.Request
	unfiltered bool // the page skips the ad-block list

	events <-chan cdp.Event
	done   chan navOutcome // the reply to Page.navigate

	waitUntil string
	idleMax   int // networkidle0/2: requests allowed in flight; -1 otherwise
	// early: a lean render under waitUntil=auto, which may read the page
	// before its load event once the document has stopped changing.
	early bool
	// settleCap bounds the quiet period after load; 0 for the default.
	settleCap time.Duration
	// quietAfter: a render with pixels under waitUntil=auto that is
	// scrolled through waits for the network's quiet after the scroll,
	// which counts toward it, rather than before.
	quietAfter bool
	// scrolled: the render is scrolled through before it is read. Its
	// network is followed in net from the first request: at the scroll's
	// end, what the page asked its site for, even while it loaded, may
	// still come.
	scrolled bool
	net      netState

	cutShort    bool // the page was read before it finished loading, for lack of time
	hops        int
	mainReq     network.RequestID
	navigated   bool
	loaded      bool
	finalURL    string
	inflight    map[network.RequestID]bool // requests still running around load
	scripts     map[network.RequestID]bool // early: scripts still loading before load
	otherSites  map[network.RequestID]bool // early: requests to another site than the document's
	settleUntil time.Time
	settle      *time.Timer // fires when the quiet period after load is over
	idleSince   time.Time
	started     time.Time   // when the navigation was asked for
	dcl         time.Time   // when the target's DOMContentLoaded fired
	quiet       *time.Timer // early: the next look at the document's shape
	shape       string      // early: the shape seen at the last look
	response    Response    // the main document's status, headers and redirects
	mimeType    string      // the main document's media type, as the browser read it
	download    bool        // the browser took the target for a download: a file
	cookies     []string    // names of the cookies the main document's answer set
}

type navOutcome struct {
	res page.NavigateResult
	err error
}

// visit navigates the leased page to the target, waits until it has
// loaded (or its load budget is spent), applies the caller's actions and
// reads the DOM.
func (r *Renderer) visit(ctx context.Context, lease Lease, req *query.Request, unfiltered bool) (*Page, error) {
	start := time.Now()
	n := &navigation{r: r, lease: lease, sess: lease.Page(), req: req, unfiltered: unfiltered,
		waitUntil: req.Controls.WaitUntil, idleMax: -1, finalURL: req.Target.String(),
		inflight: map[network.RequestID]bool{}, scripts: map[network.RequestID]bool{}, otherSites: map[network.RequestID]bool{}, done: make(chan navOutcome, 1)}
	n.early = r.lean(req) && n.waitUntil == "auto" && !req.Controls.JavaScriptOff
	n.scrolled = revealApplies(req)
	switch n.waitUntil {
	case "networkidle0":
		n.idleMax = 0
	case "networkidle2":
		n.idleMax = 2
	case "auto":
		n.quietAfter = !r.lean(req) && revealApplies(req)
		n.idleMax, n.settleCap = autoQuiet(r.lean(req) || n.quietAfter)
	}
	var stop func()
	n.events, stop = n.sess.Listen(
		"Page.loadEventFired", "Page.domContentEventFired", "Inspector.targetCrashed",
		"Network.requestWillBeSent", "Network.responseReceived", "Network.loadingFailed",
		"Network.loadingFinished", "Network.responseReceivedExtraInfo",
	)
	defer stop()

	if err := emulate(ctx, lease, req); err != nil {
		return nil, err
	}
	n.navigate(ctx)
	if err := n.wait(ctx); err != nil {
		return nil, err
	}
	r.m.Phase.WithLabelValues("navigate").Observe(time.Since(start).Seconds())
	if n.download {
		return n.downloaded()
	}
	if err := n.confirm(ctx); err != nil {
		return nil, err
	}
	p := &Page{URL: req.Target, FetchMode: "prerender", lease: lease, log: r.log, m: r.m,
		scale: max(req.Controls.Viewport.DeviceScaleFactor, 1), viewport: viewportOf(req.Controls.Viewport), CutShort: n.cutShort,
		Response: n.answered(),
		// Assets are fetched through a sidecar's egress guard, like the
		// page itself, with the caller's headers for the target's own site
		// only: Network.loadNetworkResource would skip the header
		// forwarding, and a probe need not hold the page.
		Assets: httpSource{f: r.fetcher(req), site: siteOf(req.Target), headers: req.Headers}}
	if u, err := url.Parse(n.finalURL); err == nil {
		p.URL = u
	}
	if n.response.StatusCode != 0 && isFileType(n.mediaType()) {
		// A file the browser shows (an image, a video): described as a
		// file, printed and captured as the page the browser made of it.
		p.File = fileOf(n.mediaType(), n.header)
		p.File.Shown = true
	}
	if err := n.prepare(ctx); err != nil {
		if lease.IsLost() {
			return nil, errLeaseLost
		}
		return nil, err
	}
	if !req.ReadsPage() {
		p.Wall = DetectWall(p.Response, n.cookies, nil)
		return p, nil
	}
	if err := n.read(ctx, p); err != nil {
		return nil, err
	}
	if req.Extras.Technologies {
		pageCookies(ctx, n.sess, p.Response)
	}
	p.Wall = DetectWall(p.Response, n.cookies, p.Doc)
	if scripts := query.Evaluations(req.Data); len(scripts) > 0 {
		ev, err := evaluateScripts(ctx, n.sess, string(lease.TargetID()), scripts)
		if err != nil {
			if lease.IsLost() {
				return nil, errLeaseLost
			}
			return nil, err
		}
		p.Evaluated = ev
	}
	return p, nil
}

// prepare runs what comes between the load and the capture: the caller's
// waits and actions, banners, the scroll-through; then, for a render that
// waits for the network after its scroll, that quiet.
func (n *navigation) prepare(ctx context.Context) error {
	if n.cutShort || !n.scrolled {
		return n.r.beforeCapture(ctx, n.lease, n.req, n.site(), nil)
	}
	// The scroll-through asks the network what the page asked its site
	// for and has not had yet; then the quiet is awaited, for a render
	// that waits for it.
	stop := n.follow()
	defer stop()
	if err := n.r.beforeCapture(ctx, n.lease, n.req, n.site(), &n.net); err != nil {
		return err
	}
	if !n.quietAfter {
		return nil
	}
	start := time.Now()
	if !n.awaitQuiet(ctx) {
		n.r.log.Debug("the network was still busy after the scroll-through", "waited", time.Since(start))
	}
	return nil
}

// navigate starts Page.navigate; its reply arrives on n.done.
func (n *navigation) navigate(ctx context.Context) {
	n.started = time.Now()
	go func() {
		res, err := cdp.Execute(ctx, n.sess, page.Navigate, page.NavigateParams{URL: n.req.Target.String()})
		n.done <- navOutcome{res, err}
	}()
}

// wait follows the page until it counts as loaded. The page gets most of
// the budget to load; what is left is for extraction, probing and
// printing, so a subresource that never answers costs the load budget,
// not the whole request. A page still loading when time is up is read as
// it is.
func (n *navigation) wait(ctx context.Context) error {
	loadBudget := time.NewTimer(time.Until(deadlineOf(ctx, n.req.Timeout)) * 6 / 10)
	defer loadBudget.Stop()
	n.settle = time.NewTimer(time.Hour)
	defer n.settle.Stop()
	n.quiet = time.NewTimer(time.Hour)
	defer n.quiet.Stop()
	idleTick := time.NewTicker(100 * time.Millisecond)
	defer idleTick.Stop()
	for !n.idle() {
		select {
		case <-ctx.Done():
			if n.navigated {
				n.cutShort = true
				return nil // late scripts may still run; the document is here, so read it
			}
			return timeoutError(ctx, "The target did not answer within the `timeout`")
		case <-n.lease.Lost():
			return errLeaseLost
		case o := <-n.done:
			err := n.onNavigated(ctx, o)
			if errors.Is(err, errDownload) {
				n.download = true
				return n.awaitResponse(ctx)
			}
			if err != nil {
				return err
			}
		case <-loadBudget.C:
			if n.navigated {
				n.cutShort = true
				_, _ = cdp.Execute(ctx, n.sess, page.StopLoading, cdproto.Empty{})
				return nil
			}
			// Until the navigation answers, it is bounded by ctx alone.
		case <-n.settle.C:
			return nil
		case <-n.quiet.C:
			if n.quietEnough(ctx) {
				return nil
			}
		case <-idleTick.C:
		case ev, ok := <-n.events:
			if !ok {
				return errLeaseLost
			}
			if loaded, err := n.onEvent(ctx, ev); err != nil || loaded {
				return err
			}
		}
	}
	return nil
}

// idle reports whether a loaded page has gone quiet: no fetch or XHR in
// flight for auto, at most idleMax requests for idleFor for networkidle.
func (n *navigation) idle() bool {
	if !n.loaded {
		return false
	}
	if n.idleMax < 0 {
		return len(n.inflight) == 0
	}
	switch {
	case len(n.inflight) > n.idleMax:
		n.idleSince = time.Time{}
	case n.idleSince.IsZero():
		n.idleSince = time.Now()
	case time.Since(n.idleSince) >= idleFor:
		return true
	}
	return false
}

// quietEnough takes the early look at a lean render's document after
// DOMContentLoaded: it reports that the page may be read now, because the
// document kept its shape for earlyQuiet, while the page's event loop
// turned, with none of the page's scripts, fetches or XHRs in flight, or
// because earlyCap has passed. Otherwise it schedules the next look. Once
// the document holds its content, what other sites' scripts are still
// loading does not hold the read: tag managers, analytics, pixels and ad
// libraries chain loads for seconds, and what a page is about is not
// written by them. Their loads are stopped when the page is read.
func (n *navigation) quietEnough(ctx context.Context) bool {
	if n.loaded || n.dcl.IsZero() {
		return false // the load event came first; its own quiet period runs
	}
	if time.Since(n.dcl) >= earlyCap {
		n.loaded = true
		n.r.m.EarlyReads.WithLabelValues(metrics.EarlyCap).Inc()
		return true
	}
	if n.holding() == 0 {
		shape, turned := documentShape(ctx, n.sess)
		if shape != "" && shape == n.shape && turned {
			n.loaded = true
			n.r.m.EarlyReads.WithLabelValues(metrics.EarlyQuiet).Inc()
			n.r.log.Debug("reading the document before its load event", "dcl_after", n.dcl.Sub(n.started),
				"read_after", time.Since(n.started), "left_loading", len(n.inflight)+len(n.scripts))
			if len(n.inflight)+len(n.scripts) > 0 {
				// What other sites still load would only run their
				// scripts beside the read, on the page's one main
				// thread, and cost the browser CPU for nothing read.
				_, _ = cdp.Execute(ctx, n.sess, page.StopLoading, cdproto.Empty{})
			}
			return true
		}
		n.shape = shape
	}
	n.quiet.Reset(n.nextLook())
	return false
}

// nextLook is when the early read looks at the document again: soon when
// it held its content at the last look, since then only its own scripts'
// last writes are waited for, else after earlyQuiet.
func (n *navigation) nextLook() time.Duration {
	if hasContent(n.shape) {
		return earlyQuietContent
	}
	return earlyQuiet
}

// holding counts the requests an early read waits for: the scripts,
// fetches and XHRs in flight, less those to other sites once the
// document's last shape showed its content.
func (n *navigation) holding() int {
	content := hasContent(n.shape)
	held := 0
	for _, set := range []map[network.RequestID]bool{n.inflight, n.scripts} {
		for id := range set {
			if !content || !n.otherSites[id] {
				held++
			}
		}
	}
	return held
}

// site is the document's site: its registrable domain, or its address;
// "" when its URL does not parse.
func (n *navigation) site() string {
	u, err := url.Parse(n.finalURL)
	if err != nil {
		return ""
	}
	return siteOf(u).domain
}

// otherSite reports whether raw is on another site than the document.
func (n *navigation) otherSite(raw string) bool {
	u, err := url.Parse(raw)
	site := n.site()
	return err == nil && site != "" && siteOf(u).domain != site
}

// answered is the main document's response as the page saw it, or nil
// before any arrived.
func (n *navigation) answered() *Response {
	if n.response.StatusCode == 0 {
		return nil
	}
	r := n.response
	return &r
}

// onNavigated reads the reply to Page.navigate.
func (n *navigation) onNavigated(ctx context.Context, o navOutcome) error {
	if o.err != nil {
		if ctx.Err() != nil {
			return timeoutError(ctx, "The target did not answer within the `timeout`")
		}
		return browserError(ctx, "navigating", o.err)
	}
	if strings.Contains(o.res.ErrorText, "ERR_ABORTED") {
		// A download's response travels ahead of this reply, but may
		// still wait among the events: whether the target is a file
		// depends on it.
		if err := n.takeQueued(ctx); err != nil {
			return err
		}
	}
	if o.res.IsDownload || (strings.Contains(o.res.ErrorText, "ERR_ABORTED") && isFileType(n.mediaType())) {
		return errDownload
	}
	if o.res.ErrorText != "" {
		if n.hops > MaxRedirects {
			return tooManyRedirects(n.hops)
		}
		if n.listedDocument(ctx, o.res.ErrorText) {
			return fmt.Errorf("%w: %s", errListedDocument, n.finalURL)
		}
		if err := proxyNavigationError(n.req, o.res.ErrorText); err != nil {
			return err
		}
		return navigationError(o.res.ErrorText)
	}
	n.navigated = true
	return nil
}

// takeQueued follows the page's events that have already arrived, without
// waiting for more.
func (n *navigation) takeQueued(ctx context.Context) error {
	for {
		select {
		case ev, ok := <-n.events:
			if !ok {
				return nil
			}
			if _, err := n.onEvent(ctx, ev); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

// onEvent follows one event of the page; loaded reports that the page
// counts as loaded under the caller's waitUntil.
func (n *navigation) onEvent(ctx context.Context, ev cdp.Event) (loaded bool, err error) {
	if n.scrolled {
		n.net.note(ev)
	}
	switch ev.Method {
	case "Inspector.targetCrashed":
		return false, crashError()
	case "Page.domContentEventFired":
		if n.mainReq != "" && n.early && !n.loaded && n.dcl.IsZero() {
			n.dcl = time.Now()
			n.shape, _ = documentShape(ctx, n.sess)
			n.quiet.Reset(n.nextLook())
		}
		return n.mainReq != "" && n.waitUntil == "domcontentloaded", nil
	case "Page.loadEventFired":
		// Only the target's own load counts, not a late one of the blank
		// page the lease started on.
		if n.mainReq == "" {
			return false, nil
		}
		if n.waitUntil == "load" {
			return true, nil
		}
		n.loaded = true
		n.quiet.Stop()
		quiet := time.Second // auto: fetch/XHR started around load may fill the head
		if n.idleMax >= 0 {
			quiet = 10 * time.Second // networkidle: bounded by the load budget too
		}
		if n.settleCap > 0 {
			quiet = n.settleCap
		}
		n.settleUntil = time.Now().Add(quiet)
		n.settle.Reset(quiet)
	case "Network.requestWillBeSent":
		var e network.EventRequestWillBeSent
		if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Request == nil {
			return false, nil
		}
		return false, n.onRequest(ctx, &e)
	case "Network.responseReceived":
		var e network.EventResponseReceived
		if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Response == nil {
			return false, nil
		}
		if e.RequestID == n.mainReq && e.Type == network.ResourceTypeDocument {
			word := func(name string) string { return headerValue(e.Response.Headers, name) }
			if g := guardWord(n.r.marks, e.Response.URL, word, ""); g == "blocked" {
				_, _ = cdp.Execute(ctx, n.sess, page.StopLoading, cdproto.Empty{})
				return false, fmt.Errorf("%w: %s", errListedDocument, e.Response.URL)
			} else if err := proxyGuardError(n.req, g); err != nil {
				return false, err
			} else if g != "" {
				return false, guardError(e.Response.URL, g)
			}
			n.finalURL = e.Response.URL
			n.mimeType = e.Response.MimeType
			n.response.StatusCode = int(e.Response.Status)
			n.response.Headers = map[string]string{}
			if c := setCookieNames(headerValue(e.Response.Headers, "set-cookie")); len(c) > 0 {
				n.cookies = c
			}
			for k, v := range e.Response.Headers {
				if s, ok := v.(string); ok {
					// Chromium joins repeated headers with newlines.
					addHeader(n.response.Headers, k, strings.Split(s, "\n")...)
					if strings.EqualFold(k, "set-cookie") {
						n.response.Cookies = cookieNames(n.response.Cookies, s)
					}
				}
			}
		}
	case "Network.responseReceivedExtraInfo":
		// Chromium gives a document's Set-Cookie here only; the wall
		// detector reads the cookies' names.
		n.cookies = append(n.cookies, extraInfoCookies(ev.Params, n.mainReq)...)
	case "Network.loadingFinished", "Network.loadingFailed":
		var e struct {
			RequestID network.RequestID `json:"requestId"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) == nil {
			delete(n.inflight, e.RequestID)
			delete(n.scripts, e.RequestID)
			delete(n.otherSites, e.RequestID)
		}
	}
	return false, nil
}

// onRequest watches the main document's redirect hops, and counts the
// requests that the quiet period after load waits for.
func (n *navigation) onRequest(ctx context.Context, e *network.EventRequestWillBeSent) error {
	mainFrame := string(n.lease.TargetID()) // the main frame's id is its page target's id
	if e.Type == network.ResourceTypeDocument && string(e.FrameID) == mainFrame {
		if e.RedirectResponse != nil && e.RequestID == n.mainReq {
			n.response.Redirects = append(n.response.Redirects, Redirect{URL: e.RedirectResponse.URL, StatusCode: int(e.RedirectResponse.Status)})
			n.hops++
			if n.hops > MaxRedirects {
				_, _ = cdp.Execute(ctx, n.sess, page.StopLoading, cdproto.Empty{})
				return tooManyRedirects(n.hops)
			}
			if err := n.r.checkHop(ctx, e.Request.URL); err != nil {
				_, _ = cdp.Execute(ctx, n.sess, page.StopLoading, cdproto.Empty{})
				return err
			}
		}
		n.mainReq = e.RequestID
		n.finalURL = e.Request.URL
		return nil
	}
	if !n.loaded || time.Now().Before(n.settleUntil) {
		if n.idleMax >= 0 || e.Type == network.ResourceTypeXHR || e.Type == network.ResourceTypeFetch {
			n.inflight[e.RequestID] = true
		}
	}
	if n.early && !n.loaded && e.Type == network.ResourceTypeScript {
		n.scripts[e.RequestID] = true
	}
	if n.early && !n.loaded && (n.inflight[e.RequestID] || n.scripts[e.RequestID]) && n.otherSite(e.Request.URL) {
		n.otherSites[e.RequestID] = true
	}
	return nil
}

// errDownload marks a navigation that the browser turned into a
// download: the target is a file.
var errDownload = errors.New("the target is a file download")

// maxResponseWait bounds the wait for the main document's response event
// after the browser has reported a download: the two travel apart.
const maxResponseWait = 2 * time.Second

// awaitResponse follows the page's events until the main document's
// response has been seen, so a download is described by its headers.
func (n *navigation) awaitResponse(ctx context.Context) error {
	t := time.NewTimer(maxResponseWait)
	defer t.Stop()
	for n.response.StatusCode == 0 {
		select {
		case ev, ok := <-n.events:
			if !ok {
				return errLeaseLost
			}
			if _, err := n.onEvent(ctx, ev); err != nil {
				return err
			}
		case <-t.C:
			return nil
		case <-ctx.Done():
			return timeoutError(ctx, "The target did not answer within the `timeout`")
		}
	}
	return nil
}

// downloaded is the page of a target the browser only downloads: its
// headers are all that is known of it, since the browser refuses to write
// the file and glimpse does not fetch the target a second time.
func (n *navigation) downloaded() (*Page, error) {
	if n.response.StatusCode == 0 {
		return nil, unreadable("The target is a file download, and its response could not be read.")
	}
	p := &Page{URL: n.req.Target, FetchMode: "prerender", lease: n.lease, log: n.r.log, m: n.r.m,
		Response: n.answered(), File: fileOf(n.mediaType(), n.header),
		Assets: httpSource{f: n.r.fetcher(n.req), site: siteOf(n.req.Target), headers: n.req.Headers}}
	if u, err := url.Parse(n.finalURL); err == nil {
		u.Fragment = n.req.Target.Fragment
		p.URL = u
	}
	return p, nil
}

// mediaType is the main document's declared type, else the one the
// browser settled on.
func (n *navigation) mediaType() string {
	if ct := n.response.Headers["content-type"]; ct != "" {
		return ct
	}
	return n.mimeType
}

// header reads one of the main document's response headers.
func (n *navigation) header(name string) string { return n.response.Headers[strings.ToLower(name)] }

// confirm makes sure the navigation itself succeeded: the load event can
// overtake the reply to Page.navigate.
func (n *navigation) confirm(ctx context.Context) error {
	if n.navigated {
		return nil
	}
	select {
	case o := <-n.done:
		if o.err != nil {
			return timeoutError(ctx, "The target did not answer within the `timeout`")
		}
		if o.res.ErrorText != "" {
			if err := proxyNavigationError(n.req, o.res.ErrorText); err != nil {
				return err
			}
			return navigationError(o.res.ErrorText)
		}
		return nil
	case <-ctx.Done():
		return timeoutError(ctx, "The target did not answer within the `timeout`")
	}
}

// read transfers the live DOM into p. A client-rendered page gets a short
// wait for its head first. The wait runs on the page's own timers, which
// never fire with its scripts off and may not on a busy main thread:
// bounded either way.
func (n *navigation) read(ctx context.Context, p *Page) error {
	start := time.Now()
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), extractBudget(ctx))
	defer cancel()
	if n.waitUntil == "auto" && !n.req.Controls.JavaScriptOff && (!n.loaded || !hasEssentials(ectx, n.sess)) {
		hctx, hcancel := context.WithTimeout(ectx, 2*time.Second)
		waitForHead(hctx, n.sess)
		hcancel()
	}
	doc, href, err := readDOM(ectx, n.sess)
	if err != nil && documentReplaced(err) && !n.lease.IsLost() {
		// A navigation right after load (a script setting location, a
		// meta refresh) replaced the document under the read: follow it
		// once, within the deadline.
		n.awaitDocument(ectx)
		doc, href, err = readDOM(ectx, n.sess)
		if err != nil && documentReplaced(err) {
			return unreadable("The page kept navigating away while it was being read; give the URL it ends on.")
		}
	}
	if err != nil {
		if n.lease.IsLost() {
			return errLeaseLost
		}
		return browserError(ctx, "reading the page", err)
	}
	if hu, err := url.Parse(href); err == nil && hu.Scheme != "" && hu.Scheme != "about" {
		p.URL = hu
	}
	p.Doc = doc
	n.r.m.Phase.WithLabelValues("extract").Observe(time.Since(start).Seconds())
	return nil
}

// documentReplaced reports whether a call into the page failed because
// its document was replaced by a navigation while the call ran.
func documentReplaced(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Execution context was destroyed") ||
		strings.Contains(msg, "Cannot find context with specified id") ||
		strings.Contains(msg, "Inspected target navigated or closed")
}

// awaitDocument waits, at most maxDocumentWait, for the new document of a
// navigation to be parsed.
func (n *navigation) awaitDocument(ctx context.Context) {
	t := time.NewTimer(maxDocumentWait)
	defer t.Stop()
	for {
		select {
		case ev, ok := <-n.events:
			if !ok || ev.Method == "Page.domContentEventFired" || ev.Method == "Page.loadEventFired" {
				return
			}
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// maxDocumentWait bounds the wait for a document that replaced the one
// being read.
const maxDocumentWait = 3 * time.Second

// listedDocument reports whether a failed navigation is the egress guard
// refusing the page's own https host for the ad-block list. The browser
// sees only a tunnel that failed, whatever the reason, so the guard is
// asked, and says in a marked answer of its own whether its list names
// the host; a host it does not name failed for its own reasons, and is
// not rendered a second time. When no guard can be asked, the list
// glimpse was given decides, and without one the render without the list
// tells the two apart.
func (n *navigation) listedDocument(ctx context.Context, errorText string) bool {
	if n.unfiltered || !strings.Contains(errorText, "ERR_TUNNEL_CONNECTION_FAILED") {
		return false
	}
	u, err := url.Parse(n.finalURL)
	if err != nil {
		return true
	}
	if n.r != nil && n.r.static != nil {
		listed, err := n.r.static.askListed(ctx, u.Hostname())
		if err == nil {
			return listed
		}
		n.r.log.Debug("the egress guard could not say whether a host is on its list", "host", u.Hostname(), "err", err)
	}
	if n.r == nil || n.r.listed == nil {
		return true
	}
	return n.r.listed(u.Hostname())
}

// checkHop applies the address rule to a redirect target, so the caller
// gets EFORBIDDENURL rather than a vague connection error. The egress
// guard in the sidecar enforces the rule either way.
func (r *Renderer) checkHop(ctx context.Context, raw string) error {
	u, err := query.ParseTarget(raw)
	if err != nil {
		return &Error{Kind: Forbidden, URL: raw, Err: err,
			Message: fmt.Sprintf("The target redirected to `%s`, which glimpse does not follow (only public http and https addresses are).", raw)}
	}
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err = r.policy.Resolve(cctx, r.resolver, u.Hostname())
	var refused *guard.RefusedError
	if errors.As(err, &refused) {
		r.m.GuardRefusals.WithLabelValues("redirect").Inc()
		return &Error{Kind: Forbidden, URL: u.String(), Reason: refused.Reason, Err: err}
	}
	return nil
}

// viewportOf is the CSS size of the viewport a render emulates, or of the
// sidecar's window when it emulates none.
func viewportOf(v query.Viewport) [2]float64 {
	w, h := float64(v.Width), float64(v.Height)
	if w == 0 {
		w = query.WindowWidth
	}
	if h == 0 {
		h = query.WindowHeight
	}
	return [2]float64{w, h}
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
