package rawcdp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/glimpse/glimpse/cdp"
)

// disposeTimeout bounds closing a browser context after a visit; it runs on
// a fresh context so a cancelled visit still cleans up.
const disposeTimeout = 5 * time.Second

// Browser is one DevTools connection to a browser, shared by every visit as
// glimpse's pool shares its connection to a sidecar.
type Browser struct {
	conn *cdp.Conn
	// proxy, when set, is the proxy ("host:port") of every browser
	// context it creates, such as a sidecar's unfiltered egress guard (its
	// /healthz unfiltered_proxy), which blocks nothing.
	proxy string
}

// Through is the same connection with every new browser context sent
// through proxy: with a sidecar's unfiltered proxy, a render that blocks
// nothing, as a plain browser loads a page.
func (b *Browser) Through(proxy string) *Browser { return &Browser{conn: b.conn, proxy: proxy} }

// Dial connects to a DevTools browser endpoint such as a sidecar's
// ws://127.0.0.1:9230/devtools/browser, presenting the sidecar token when
// one is given.
func Dial(ctx context.Context, wsURL, token string) (*Browser, error) {
	var opts []cdp.Option
	if token != "" {
		opts = append(opts, cdp.WithHeader(http.Header{"Authorization": {"Bearer " + token}}))
	}
	c, err := cdp.Dial(ctx, wsURL, opts...)
	if err != nil {
		return nil, err
	}
	return &Browser{conn: c}, nil
}

// Close ends the connection; contexts created with it are disposed by the
// browser when it detaches.
func (b *Browser) Close() error { return b.conn.Close() }

// PDF is the paper of a printed page, in inches, as glimpse's defaults give
// it: A4, 0.35 cm margins, scale 0.6, backgrounds printed.
type PDF struct {
	Width, Height   float64
	Margin          float64
	Scale           float64
	PrintBackground bool
}

// DefaultPDF is glimpse's default PDF (docs/api.md#pdf): A4 at scale 0.6 with
// 0.35 cm margins and backgrounds.
var DefaultPDF = PDF{Width: 8.2677, Height: 11.6929, Margin: 0.35 / 2.54, Scale: 0.6, PrintBackground: true}

// Result is what one visit produced, and where its time went.
type Result struct {
	HTML      string // the document read, "" when printing
	HTMLBytes int    // its length
	PDFBytes  int    // bytes of the PDF, 0 when reading the DOM
	ShotBytes int    // bytes of the screenshot's PNG

	Open  time.Duration // browser context, page, attach, Page.enable
	Load  time.Duration // Page.navigate to the load event
	Read  time.Duration // reading the document (metadata)
	Print time.Duration // Page.printToPDF with its data (PDF), or the screenshot
}

// readDocument waits, as glimpse does, for a client-rendered page to name
// itself (1.5 s at most) and returns the document in one round trip: the
// same result a metadata render needs, with nothing extra.
const readDocument = `new Promise(res => {
  const named = () => document.title || document.querySelector('meta[property="og:title"],meta[name="twitter:title"]');
  const done = () => res(document.documentElement ? document.documentElement.outerHTML : "");
  if (named()) return done();
  const o = new MutationObserver(() => { if (named()) { o.disconnect(); done(); } });
  o.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  setTimeout(() => { o.disconnect(); done(); }, 1500);
})`

// Visit opens a fresh browser context with one page, navigates it to url,
// waits for the load event, then reads the DOM (pdf nil) or prints the page
// (pdf set). The context is disposed before Visit returns; ready is called
// as soon as the result exists, so a caller can stop its clock there, before
// the teardown that glimpse also does after answering.
func (b *Browser) Visit(ctx context.Context, url string, pdf *PDF, ready func()) (Result, error) {
	return b.visit(ctx, url, pdf, false, nil, ready)
}

// Viewport is the size of glimpse's default viewport, which a screenshot
// needs to be the same picture.
const viewportWidth, viewportHeight = 1280, 800

// maxShotSide is glimpse's limit on a side of a full-page screenshot.
const maxShotSide = 16384

// VisitScreenshot is Visit that takes a full-page PNG screenshot in
// glimpse's default viewport once the page has loaded.
func (b *Browser) VisitScreenshot(ctx context.Context, url string, ready func()) (Result, error) {
	return b.visit(ctx, url, nil, true, nil, ready)
}

// PixelTypes are the resources that only paint: pictures, media, fonts.
var PixelTypes = []network.ResourceType{network.ResourceTypeImage, network.ResourceTypeMedia, network.ResourceTypeFont}

// VisitWithout is Visit with the blocked resource types failed before they
// reach the network, through the Fetch domain: the same work as a bare
// render of the page without what those types cost.
func (b *Browser) VisitWithout(ctx context.Context, url string, blocked []network.ResourceType, ready func()) (Result, error) {
	return b.visit(ctx, url, nil, false, blocked, ready)
}

func (b *Browser) visit(ctx context.Context, url string, pdf *PDF, shot bool, blocked []network.ResourceType, ready func()) (Result, error) {
	br := b.conn.Browser()
	var res Result
	mark := time.Now()
	lap := func(d *time.Duration) {
		now := time.Now()
		*d = now.Sub(mark)
		mark = now
	}
	// The context is created on a context of its own: were the caller's to
	// end while the command is on its way, Chromium would still create it,
	// and without its id nobody could dispose of it.
	yes := true
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), disposeTimeout)
	params := target.CreateBrowserContextParams{DisposeOnDetach: &yes}
	if b.proxy != "" {
		// Loopback is not exempt: every connection goes through the proxy.
		params.ProxyServer, params.ProxyBypassList = "http://"+b.proxy, "<-loopback>"
	}
	bc, err := cdp.Execute(cctx, br, target.CreateBrowserContext, params)
	cancel()
	if err != nil {
		return Result{}, fmt.Errorf("creating a browser context: %w", err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), disposeTimeout)
		defer cancel()
		_, _ = cdp.Execute(dctx, br, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: bc.BrowserContextID})
	}()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	t, err := cdp.Execute(ctx, br, target.CreateTarget, target.CreateTargetParams{URL: "about:blank", BrowserContextID: bc.BrowserContextID})
	if err != nil {
		return Result{}, fmt.Errorf("creating a page: %w", err)
	}
	sess, err := b.conn.Attach(ctx, t.TargetID)
	if err != nil {
		return Result{}, fmt.Errorf("attaching to the page: %w", err)
	}
	loads, stop := sess.Subscribe("Page.loadEventFired")
	defer stop()
	if _, err := cdp.Execute(ctx, sess, page.Enable, page.EnableParams{}); err != nil {
		return Result{}, fmt.Errorf("enabling page events: %w", err)
	}
	if len(blocked) > 0 {
		stop, err := block(ctx, sess, blocked)
		if err != nil {
			return Result{}, fmt.Errorf("blocking %v: %w", blocked, err)
		}
		defer stop()
	}
	if shot {
		if _, err := cdp.Execute(ctx, sess, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: viewportWidth, Height: viewportHeight, DeviceScaleFactor: 1}); err != nil {
			return Result{}, fmt.Errorf("setting the viewport: %w", err)
		}
	}
	lap(&res.Open)
	drain(loads) // a late load of the blank page must not count as the target's
	nav, err := cdp.Execute(ctx, sess, page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		return Result{}, fmt.Errorf("navigating to %s: %w", url, err)
	}
	if nav.ErrorText != "" {
		return Result{}, fmt.Errorf("navigating to %s: %s", url, nav.ErrorText)
	}
	select {
	case _, ok := <-loads:
		if !ok {
			return Result{}, errors.New("the page went away before it loaded")
		}
	case <-ctx.Done():
		return Result{}, fmt.Errorf("waiting for %s to load: %w", url, ctx.Err())
	}
	lap(&res.Load)

	if shot {
		n, err := screenshot(ctx, sess)
		if err != nil {
			return Result{}, fmt.Errorf("taking a screenshot of %s: %w", url, err)
		}
		res.ShotBytes = n
		lap(&res.Print)
	} else if pdf == nil {
		html, err := evaluateString(ctx, sess, readDocument)
		if err != nil {
			return Result{}, fmt.Errorf("reading the document of %s: %w", url, err)
		}
		if html == "" {
			return Result{}, fmt.Errorf("the document of %s is empty", url)
		}
		res.HTML, res.HTMLBytes = html, len(html)
		lap(&res.Read)
	} else {
		m := pdf.Margin
		out, err := cdp.Execute(ctx, sess, page.PrintToPDF, page.PrintToPDFParams{
			PrintBackground: &pdf.PrintBackground, Scale: pdf.Scale,
			PaperWidth: pdf.Width, PaperHeight: pdf.Height,
			MarginTop: &m, MarginRight: &m, MarginBottom: &m, MarginLeft: &m,
		})
		if err != nil {
			return Result{}, fmt.Errorf("printing %s: %w", url, err)
		}
		if !bytes.HasPrefix(out.Data, []byte("%PDF")) {
			return Result{}, fmt.Errorf("printing %s gave %d bytes that are not a PDF", url, len(out.Data))
		}
		res.PDFBytes = len(out.Data)
		lap(&res.Print)
	}
	if ready != nil {
		ready()
	}
	return res, nil
}

// screenshot takes the whole document as a PNG, as glimpse's
// screenshot.fullPage does, and returns its size.
func screenshot(ctx context.Context, sess *cdp.Session) (int, error) {
	m, err := cdp.Execute(ctx, sess, page.GetLayoutMetrics, cdproto.Empty{})
	if err != nil {
		return 0, err
	}
	w, h := float64(viewportWidth), float64(viewportHeight)
	if m.CSSContentSize != nil {
		w, h = max(w, m.CSSContentSize.Width), max(h, m.CSSContentSize.Height)
	}
	yes := true
	out, err := cdp.Execute(ctx, sess, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatPng, CaptureBeyondViewport: &yes,
		Clip: &page.Viewport{Width: min(w, maxShotSide), Height: min(h, maxShotSide), Scale: 1},
	})
	if err != nil {
		return 0, err
	}
	if !bytes.HasPrefix(out.Data, []byte("\x89PNG")) {
		return 0, fmt.Errorf("%d bytes that are not a PNG", len(out.Data))
	}
	return len(out.Data), nil
}

// block fails every request of the given types as it starts.
func block(ctx context.Context, sess *cdp.Session, types []network.ResourceType) (stop func(), err error) {
	fail := func(raw jsonv2.Value) {
		var ev fetch.EventRequestPaused
		if jsonv2.Unmarshal(raw, &ev) != nil {
			return
		}
		go func() {
			fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer fcancel()
			_, _ = cdp.Execute(fctx, sess, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		}()
	}
	// A paused request waits until it is answered, so none may be lost.
	paused, cancel := sess.SubscribeOverflow("Fetch.requestPaused", fail)
	patterns := make([]*fetch.RequestPattern, 0, len(types))
	for _, t := range types {
		patterns = append(patterns, &fetch.RequestPattern{URLPattern: "*", ResourceType: t})
	}
	if _, err := cdp.Execute(ctx, sess, fetch.Enable, fetch.EnableParams{Patterns: patterns}); err != nil {
		cancel()
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for raw := range paused {
			fail(raw)
		}
	}()
	return func() {
		cancel()
		<-done
	}, nil
}

func drain[T any](ch <-chan T) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

func evaluateString(ctx context.Context, sess *cdp.Session, expr string) (string, error) {
	t := true
	r, err := cdp.Execute(ctx, sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ReturnByValue: &t, AwaitPromise: &t, Silent: &t,
	})
	if err != nil {
		return "", err
	}
	if r.ExceptionDetails != nil {
		return "", fmt.Errorf("the page's script failed: %s", r.ExceptionDetails.Text)
	}
	if r.Result == nil || len(r.Result.Value) == 0 {
		return "", errors.New("the page's script returned nothing")
	}
	var s string
	if err := jsonv2.Unmarshal(r.Result.Value, &s); err != nil {
		return "", fmt.Errorf("decoding the document: %w", err)
	}
	return s, nil
}

// Counts are what the leak check compares. Targets and Pages count only
// what lives in browser contexts created over DevTools (glimpse's leases,
// its warm contexts, the baseline's visits): Chromium's own targets in its
// default context come and go on their own and belong to no request.
type Counts struct {
	Targets  int // in created contexts, any type but the browser itself
	Pages    int // page targets among them
	Contexts int // browser contexts created over DevTools
	Own      int // Chromium's own targets, in its default context
}

// Count asks the browser for its targets and browser contexts.
func (b *Browser) Count(ctx context.Context) (Counts, error) {
	br := b.conn.Browser()
	bcs, err := cdp.Execute(ctx, br, target.GetBrowserContexts, cdproto.Empty{})
	if err != nil {
		return Counts{}, fmt.Errorf("listing browser contexts: %w", err)
	}
	created := map[cdproto.BrowserContextID]bool{}
	for _, id := range bcs.BrowserContextIDs {
		created[id] = true
	}
	ts, err := cdp.Execute(ctx, br, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return Counts{}, fmt.Errorf("listing targets: %w", err)
	}
	c := Counts{Contexts: len(bcs.BrowserContextIDs)}
	for _, ti := range ts.TargetInfos {
		switch {
		case ti.Type == "browser":
		case !created[ti.BrowserContextID]:
			c.Own++
		default:
			c.Targets++
			if ti.Type == "page" {
				c.Pages++
			}
		}
	}
	return c, nil
}

// Leaked reports whether after holds more of what requests create than
// before: targets, pages or browser contexts.
func (c Counts) Leaked(before Counts) bool {
	return c.Targets > before.Targets || c.Pages > before.Pages || c.Contexts > before.Contexts
}

// Settled reports whether c holds what want does, Chromium's own targets
// aside.
func (c Counts) Settled(want Counts) bool {
	return c.Targets == want.Targets && c.Pages == want.Pages && c.Contexts == want.Contexts
}
