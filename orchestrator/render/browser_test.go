package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/cdp/cdptest"
	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/pool"
	"github.com/glimpse/glimpse/sidecar/guard"
)

// The scripted browser of these tests plays Chromium over a real DevTools
// connection: render's own cdp client talks to a cdptest server on
// loopback, whose script serves one page (a site) the way Chromium reports
// a page: the main document's request and response events, the reply to
// Page.navigate, DOMContentLoaded and load, and answers to the scripts
// render runs in the page.

// renderLimit is the deadline of a render that should succeed. A loaded
// machine can make a render of milliseconds take seconds, and a render
// that succeeds never waits for its deadline, so it is generous.
const renderLimit = 20 * time.Second

const (
	pageTarget  target.ID        = "T1" // also the page's main frame id
	pageSession target.SessionID = "S1"
	mainRequest                  = "R1"
)

// served is the page a scripted browser serves.
type served struct {
	Status   int               // of the final answer; 0 is 200
	Headers  map[string]string // of the final answer; nil is an HTML page's
	MimeType string            // as the browser read the answer; "" is text/html
	// Redirects are the hops before the final answer: the URL that
	// answered with a redirect (the first is the target) and its status.
	// Each leads to the next one's URL, the last to Final.
	Redirects []hop
	Final     string // the final URL; "" is the target
	// NavError is the errorText of Page.navigate's reply: the navigation
	// failed, after the events below when Events is set.
	NavError string
	Events   bool // with NavError: the document's events still arrive
	Download bool // Page.navigate answers isDownload
	NoAnswer bool // the main document's response never comes
	NoDCL    bool // DOMContentLoaded never fires
	NoLoad   bool // the load event never fires
	// LoadFirst sends the load event before Page.navigate's reply.
	LoadFirst bool
	// Subresources are requested after DOMContentLoaded, before load.
	Subresources []subresource
	HTML         string // the document as read; "" is a small titled page
	Href         string // location.href when read; "" is the final URL
	// Eval answers a script in the page before the defaults do; handled
	// false leaves it to them.
	Eval func(c *cdptest.Call, p evalParams) (handled bool)
}

// subresource is a request of the page other than its document.
type subresource struct {
	ID, Type string        // its request id and resource type, such as "XHR"
	Finish   time.Duration // when it finishes after it starts; 0: never
	URL      string        // "" is https://cdn.example.test/ID, on the target's site
}

type hop struct {
	URL    string
	Status int
}

const defaultHTML = `<html lang="en"><head><title>A page written for the tests</title>
<meta name="description" content="Its description."></head><body><h1>Hello</h1></body></html>`

// glimpseContext is the scripted browser's context of glimpse's own world.
const glimpseContext = 7

// evalParams are the fields of Runtime.evaluate that render sets.
type evalParams struct {
	Expression    string `json:"expression"`
	ContextID     int64  `json:"contextId"`
	ReturnByValue bool   `json:"returnByValue"`
	AwaitPromise  bool   `json:"awaitPromise"`
	UserGesture   bool   `json:"userGesture"`
	Timeout       int64  `json:"timeout"`
	ObjectGroup   string `json:"objectGroup"`
}

// value is Runtime.evaluate's answer for a script that gave v.
func value(v any) map[string]any {
	return map[string]any{"result": map[string]any{"type": "object", "value": v}}
}

// exception is Runtime.evaluate's answer for a script that threw.
func exception(description string) map[string]any {
	return map[string]any{
		"result": map[string]any{"type": "object", "subtype": "error", "description": description},
		"exceptionDetails": map[string]any{"exceptionId": 1, "text": "Uncaught", "lineNumber": 0, "columnNumber": 0,
			"exception": map[string]any{"type": "object", "subtype": "error", "description": description}},
	}
}

// scriptedBrowser is one browser: its server, the peer of the one
// connection, and the lease a render holds.
type scriptedBrowser struct {
	t     *testing.T
	srv   *cdptest.Server
	peer  *cdptest.Peer
	conn  *cdp.Conn
	lease *testLease
	site  served
}

// newBrowser starts a scripted browser serving s, connects to it and
// attaches to its page.
func newBrowser(t *testing.T, s served) *scriptedBrowser {
	t.Helper()
	b := newScripted(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), cdptest.WaitLimit)
	defer cancel()
	conn, err := cdp.Dial(ctx, b.srv.URL(), cdp.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatalf("dialling the scripted browser: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	b.conn = conn
	b.peer = b.srv.Accept()
	sess, err := conn.Attach(ctx, pageTarget)
	if err != nil {
		t.Fatalf("attaching to the scripted page: %v", err)
	}
	b.lease = &testLease{conn: conn, page: sess}
	return b
}

// newScripted starts a scripted browser serving s, without connecting.
func newScripted(t *testing.T, s served) *scriptedBrowser {
	t.Helper()
	b := &scriptedBrowser{t: t, srv: cdptest.NewServer(t), site: s}
	b.script()
	return b
}

// handle replaces the answer to one method.
func (b *scriptedBrowser) handle(method string, h cdptest.Handler) { b.srv.Handle(method, h) }

// sent lists the commands of one method the browser received, on every
// connection.
func (b *scriptedBrowser) sent(method string) []cdptest.Message {
	var out []cdptest.Message
	for _, p := range b.srv.Peers() {
		out = append(out, p.Sent(method)...)
	}
	return out
}

// script answers every command render sends the way Chromium would for
// b.site; a command nobody scripted is refused as Chromium refuses an
// unknown method, which fails the render loudly.
func (b *scriptedBrowser) script() {
	ok := cdptest.Result(nil)
	for _, m := range []string{
		"Emulation.setEmulatedMedia", "Emulation.setDeviceMetricsOverride", "Emulation.setTouchEmulationEnabled",
		"Emulation.setUserAgentOverride", "Emulation.setScriptExecutionDisabled", "Emulation.setDefaultBackgroundColorOverride",
		"Fetch.enable", "Fetch.disable", "Fetch.continueRequest", "Fetch.failRequest",
		"Page.stopLoading", "Page.handleJavaScriptDialog", "Input.dispatchMouseEvent", "IO.close",
		"Page.enable", "Network.enable", "Browser.setDownloadBehavior", "Target.disposeBrowserContext",
		"Runtime.releaseObjectGroup",
	} {
		b.srv.Handle(m, ok)
	}
	b.srv.HandleOthers(cdptest.NotFound)
	b.srv.Handle("Target.attachToTarget", cdptest.Result(fmt.Sprintf(`{"sessionId":%q}`, pageSession)))
	b.srv.Handle("Browser.getVersion", cdptest.Result(`{"protocolVersion":"1.3","product":"HeadlessChrome/130.0.6723.58","revision":"@1","userAgent":"Mozilla/5.0 HeadlessChrome/130.0.6723.58","jsVersion":"13.0"}`))
	b.srv.Handle("Page.navigate", b.navigate)
	b.srv.Handle("Runtime.evaluate", b.evaluate)
	b.srv.Handle("DOMDebugger.getEventListeners", cdptest.Result(`{"listeners":[]}`))
	var worlds atomic.Int64
	b.srv.Handle("Page.createIsolatedWorld", func(c *cdptest.Call) {
		var p struct {
			WorldName string `json:"worldName"`
		}
		_ = c.Decode(&p)
		if p.WorldName == glimpseWorld {
			// The browser hands back the world already made under a name.
			_ = c.Reply(map[string]any{"executionContextId": glimpseContext})
			return
		}
		_ = c.Reply(map[string]any{"executionContextId": 100 + worlds.Add(1)})
	})
}

// navigate plays a navigation of b.site: the document's request (and its
// redirects), its response, the reply, DOMContentLoaded and load.
func (b *scriptedBrowser) navigate(c *cdptest.Call) {
	s := b.site
	var p struct {
		URL string `json:"url"`
	}
	if err := c.Decode(&p); err != nil {
		b.t.Errorf("Page.navigate params do not decode: %v", err)
	}
	final := s.Final
	if final == "" {
		final = p.URL
	}
	if s.NavError == "" || s.Events {
		b.documentEvents(c, p.URL, final)
	}
	reply := map[string]any{"frameId": pageTarget, "loaderId": "L1"}
	if s.NavError != "" {
		reply["errorText"] = s.NavError
	}
	if s.Download {
		reply["isDownload"] = true
	}
	if s.NavError != "" || s.Download {
		_ = c.Reply(reply)
		return
	}
	if s.LoadFirst {
		b.loadEvents(c)
		_ = c.Reply(reply)
		return
	}
	_ = c.Reply(reply)
	b.loadEvents(c)
}

func (b *scriptedBrowser) documentEvents(c *cdptest.Call, target, final string) {
	s := b.site
	_ = c.Event("Network.requestWillBeSent", documentRequest(target, false, hop{}))
	for i, h := range s.Redirects {
		next := final
		if i+1 < len(s.Redirects) {
			next = s.Redirects[i+1].URL
		}
		_ = c.Event("Network.requestWillBeSent", documentRequest(next, true, h))
	}
	if s.NoAnswer {
		return
	}
	status := s.Status
	if status == 0 {
		status = 200
	}
	headers := s.Headers
	if headers == nil {
		headers = map[string]string{"Content-Type": "text/html; charset=utf-8"}
	}
	mime := s.MimeType
	if mime == "" {
		mime = "text/html"
	}
	_ = c.Event("Network.responseReceived", map[string]any{
		"requestId": mainRequest, "loaderId": "L1", "timestamp": 1.5, "type": "Document", "frameId": pageTarget,
		"response": map[string]any{"url": final, "status": status, "statusText": "", "headers": headers, "mimeType": mime,
			"connectionReused": false, "connectionId": 1, "encodedDataLength": 100, "securityState": "secure"},
	})
	_ = c.Event("Network.loadingFinished", map[string]any{"requestId": mainRequest, "timestamp": 1.6, "encodedDataLength": 100})
}

// documentRequest is Network.requestWillBeSent for the main document; redirected
// says it follows the hop from.
func documentRequest(url string, redirected bool, from hop) map[string]any {
	ev := map[string]any{
		"requestId": mainRequest, "loaderId": "L1", "documentURL": url, "timestamp": 1.0, "wallTime": 1700000000.0,
		"initiator": map[string]any{"type": "other"}, "redirectHasExtraInfo": false, "type": "Document", "frameId": pageTarget,
		"request": map[string]any{"url": url, "method": "GET", "headers": map[string]any{}, "initialPriority": "VeryHigh",
			"referrerPolicy": "strict-origin-when-cross-origin"},
	}
	if redirected {
		ev["redirectResponse"] = map[string]any{"url": from.URL, "status": from.Status, "statusText": "", "headers": map[string]any{"Location": url},
			"mimeType": "", "connectionReused": false, "connectionId": 1, "encodedDataLength": 0, "securityState": "secure"}
	}
	return ev
}

func (b *scriptedBrowser) loadEvents(c *cdptest.Call) {
	if !b.site.NoDCL {
		_ = c.Event("Page.domContentEventFired", `{"timestamp":2}`)
	}
	requestSubresources(c, b.site.Subresources)
	if !b.site.NoLoad {
		_ = c.Event("Page.loadEventFired", `{"timestamp":3}`)
	}
}

// requestSubresources starts the page's requests for subs, each ending
// after its Finish (0: never).
func requestSubresources(c *cdptest.Call, subs []subresource) {
	for _, sub := range subs {
		u := sub.URL
		if u == "" {
			u = "https://cdn.example.test/" + sub.ID
		}
		ev := documentRequest(u, false, hop{})
		ev["requestId"], ev["type"] = sub.ID, sub.Type
		_ = c.Event("Network.requestWillBeSent", ev)
		if sub.Finish > 0 {
			time.AfterFunc(sub.Finish, func() {
				_ = c.Event("Network.loadingFinished", map[string]any{"requestId": sub.ID, "timestamp": 9, "encodedDataLength": 10})
			})
		}
	}
}

// evaluate answers the scripts render runs in the page. Each of render's
// scripts is recognised by a phrase only it holds; one that none of them
// holds fails the test, since the page model would have to guess.
func (b *scriptedBrowser) evaluate(c *cdptest.Call) {
	var p evalParams
	if err := c.Decode(&p); err != nil {
		b.t.Errorf("Runtime.evaluate params do not decode: %v", err)
		return
	}
	if b.site.Eval != nil && b.site.Eval(c, p) {
		return
	}
	e := p.Expression
	switch {
	case strings.Contains(e, "root.outerHTML"): // readDOM
		html, href := b.site.HTML, b.site.Href
		if html == "" {
			html = defaultHTML
		}
		if href == "" {
			href = b.finalURL()
		}
		_ = c.Reply(value(map[string]any{"html": html, "href": href}))
	case strings.Contains(e, "2166136261"): // documentShape
		_ = c.Reply(value("5f3a:120"))
	case strings.HasPrefix(e, "!!(document.title"): // hasEssentials
		_ = c.Reply(value(true))
	case strings.Contains(e, "MutationObserver"): // waitForHead
		_ = c.Reply(value(true))
	case strings.Contains(e, "CSSStyleSheet"): // adoptStyleSheet
		_ = c.Reply(value(true))
	case strings.Contains(e, "getAnimations"): // finishAnimations
		_ = c.Reply(value(0))
	case strings.Contains(e, `? "found" : "none"`): // waitForSelector
		_ = c.Reply(value("found"))
	case strings.Contains(e, "elementFromPoint"): // click
		_ = c.Reply(value(map[string]any{"problem": "", "mouse": true, "x": 40, "y": 30}))
	case strings.Contains(e, `block: "start"`): // scroll
		_ = c.Reply(value(""))
	case p.ContextID == 0 && p.ObjectGroup == scrollListenerGroup && (e == "window" || e == "document"): // hearsScroll
		_ = c.Reply(map[string]any{"result": map[string]any{"type": "object", "objectId": "listened-" + e}})
	case strings.Contains(e, "window.scrollX"): // screenshot.element
		_ = c.Reply(value(map[string]any{"problem": "", "x": 8.4, "y": 100.6, "width": 300, "height": 200}))
	case p.ContextID != 0: // an `evaluate` data rule, in its own world
		_ = c.Reply(value(map[string]any{"t": "json", "s": `"evaluated"`}))
	case p.UserGesture: // one of `scripts`
		_ = c.Reply(`{"result":{"type":"undefined"}}`)
	default:
		b.t.Errorf("the scripted page has no answer for the script %.120q", e)
		_ = c.Fail(-32000, "the scripted page has no answer for this script")
	}
}

func (b *scriptedBrowser) finalURL() string {
	if b.site.Final != "" {
		return b.site.Final
	}
	if n := b.sent("Page.navigate"); len(n) > 0 {
		var p struct {
			URL string `json:"url"`
		}
		_ = n[0].Decode(&p)
		return p.URL
	}
	return "about:blank"
}

// testLease is a Lease on a scripted browser's page.
type testLease struct {
	conn     *cdp.Conn
	page     *cdp.Session
	released atomic.Int32
}

func (l *testLease) Page() *cdp.Session    { return l.page }
func (l *testLease) Browser() *cdp.Session { return l.conn.Browser() }
func (l *testLease) TargetID() target.ID   { return pageTarget }
func (l *testLease) Lost() <-chan struct{} { return l.conn.Done() }
func (l *testLease) IsLost() bool {
	select {
	case <-l.conn.Done():
		return true
	default:
		return false
	}
}
func (l *testLease) Release() { l.released.Add(1) }

// browsers is a Leaser that hands out the next of a list of browsers, or
// an error; it records what each lease asked for.
type browsers struct {
	mu    sync.Mutex
	next  []*scriptedBrowser
	err   error
	asked []pool.LeaseOptions
}

func (bs *browsers) Lease(ctx context.Context, o pool.LeaseOptions) (Lease, error) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	bs.asked = append(bs.asked, o)
	if bs.err != nil {
		return nil, bs.err
	}
	if len(bs.next) == 0 {
		return nil, errors.New("the test has no more browsers to lease")
	}
	b := bs.next[0]
	bs.next = bs.next[1:]
	return b.lease, nil
}

func (bs *browsers) leases() []pool.LeaseOptions {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	return append([]pool.LeaseOptions(nil), bs.asked...)
}

// names is a resolver of the tests' host names, which never leave the
// process.
type names map[string]string

func (n names) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	a, ok := n[host]
	if !ok {
		return nil, fmt.Errorf("lookup %s: no such host", host)
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

var testNames = names{
	"example.test": "93.184.215.14", "www.example.test": "93.184.215.14", "other.example.test": "93.184.215.15",
	"cdn.example.test": "151.101.1.69", "intranet.example.test": "10.1.2.3",
}

// newRenderer builds a Renderer that leases from leases.
func newRenderer(leases Leaser) (*Renderer, *metrics.Orchestrator) {
	m := metrics.NewOrchestrator(prometheus.NewRegistry())
	r := New(Config{Leases: leases, Policy: guard.NewPolicy(nil), Resolver: testNames, Metrics: m, GuardMarks: testMarks,
		Logger: slog.New(slog.DiscardHandler)})
	return r, m
}

// parse parses a query as the API would.
func parse(t *testing.T, raw string) *query.Request {
	t.Helper()
	req, err := query.Parse(raw, query.DefaultLimits())
	if err != nil {
		t.Fatalf("the test's query %q does not parse: %v", raw, err)
	}
	return req
}

// rendered is what a render gave: the page as use saw it, or the error.
type rendered struct {
	page *Page
	err  error
}

// render runs one render of raw on the browsers, within limit, and keeps
// what use saw of the page.
func render(t *testing.T, r *Renderer, raw string, limit time.Duration) rendered {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var out rendered
	out.err = r.Render(ctx, parse(t, raw), func(_ context.Context, p *Page) error {
		out.page = p
		return nil
	})
	return out
}

// kindOf is the Kind of a render error, or 0 for any other error.
func kindOf(err error) Kind {
	var re *Error
	if errors.As(err, &re) {
		return re.Kind
	}
	return 0
}

// paramsOf decodes a command's params.
func paramsOf[T any](t *testing.T, m cdptest.Message) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(m.Params, &v); err != nil {
		t.Fatalf("the params of %s do not decode: %v: %s", m.Method, err, m.Params)
	}
	return v
}
