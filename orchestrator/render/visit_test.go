package render

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/cdp/cdptest"
	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/sidecar/guard"
)

func TestAPageThatLoadsIsReadWithItsAnswer(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, served{
		Headers: map[string]string{"Content-Type": "text/html; charset=utf-8", "Set-Cookie": "sid=1", "X-Served-By": "a\nb"},
		Href:    "https://example.test/article#top",
	})
	r, _ := newRenderer(&browsers{next: []*scriptedBrowser{b}})
	got := render(t, r, "url=https://example.test/article&prerender=true", renderLimit)
	if got.err != nil {
		t.Fatalf("the render failed: %v", got.err)
	}
	p := got.page
	if p.FetchMode != "prerender" || p.CutShort || p.File != nil {
		t.Errorf("the page has fetch mode %q, cut short %t, file %v; want a whole prerendered page", p.FetchMode, p.CutShort, p.File)
	}
	if title := p.Doc.Find("title").Text(); title != "A page written for the tests" {
		t.Errorf("the page read has title %q", title)
	}
	if p.URL.String() != "https://example.test/article#top" {
		t.Errorf("the page's URL is %s; want the one the document reports", p.URL)
	}
	if p.Response == nil || p.Response.StatusCode != 200 {
		t.Fatalf("the page's response is %+v; want status 200", p.Response)
	}
	if _, ok := p.Response.Headers["set-cookie"]; ok {
		t.Error("a cookie the target set reached the answer's headers")
	}
	if got := p.Response.Headers["x-served-by"]; got != "a, b" {
		t.Errorf("a repeated header reads %q; want its values joined", got)
	}
	if n := b.lease.released.Load(); n != 1 {
		t.Errorf("the lease was released %d times; want once", n)
	}
	nav := b.sent("Page.navigate")
	if len(nav) != 1 || !strings.Contains(string(nav[0].Params), `"url":"https://example.test/article"`) {
		t.Errorf("the browser was sent %v; want one navigation to the target", nav)
	}
}

// navCase is one navigation of a scripted page: what the browser serves,
// what the caller asks, and what the render must end with.
type navCase struct {
	name  string
	serve served
	// then serves the lease after the first, when the render needs a
	// second one; nil: there is none.
	then   *served
	query  string // after url=https://example.test/start
	target string // instead of startURL
	limit  time.Duration
	setup  func(b *scriptedBrowser) // changes the first browser's script
	kind   Kind                     // the render error's kind; 0 with err: any other error
	err    string                   // a phrase the error holds; "" with kind 0: success
	check  func(t *testing.T, got rendered, run *navRun)
}

// navRun is what a navCase ran on.
type navRun struct {
	browsers []*scriptedBrowser
	leases   *browsers
	r        *Renderer
	took     time.Duration // how long the render ran
}

const startURL = "https://example.test/start"

func runNavCases(t *testing.T, cases []navCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run := &navRun{leases: &browsers{}}
			first := newBrowser(t, tc.serve)
			if tc.setup != nil {
				tc.setup(first)
			}
			run.browsers = append(run.browsers, first)
			if tc.then != nil {
				run.browsers = append(run.browsers, newBrowser(t, *tc.then))
			}
			run.leases.next = append(run.leases.next, run.browsers...)
			run.r, _ = newRenderer(run.leases)
			limit := tc.limit
			if limit == 0 {
				limit = renderLimit
			}
			start := time.Now()
			target := startURL
			if tc.target != "" {
				target = tc.target
			}
			got := render(t, run.r, "url="+target+tc.query, limit)
			run.took = time.Since(start)
			switch {
			case tc.kind == 0 && tc.err == "":
				if got.err != nil {
					t.Fatalf("the render failed: %v", got.err)
				}
			case got.err == nil:
				t.Fatalf("the render succeeded; want an error of kind %v saying %q", tc.kind, tc.err)
			case kindOf(got.err) != tc.kind:
				t.Fatalf("the render failed with %v (kind %v); want kind %v", got.err, kindOf(got.err), tc.kind)
			case !strings.Contains(got.err.Error(), tc.err):
				t.Fatalf("the render failed with %q; want it to say %q", got.err, tc.err)
			}
			for _, b := range run.browsers[:len(run.leases.leases())] {
				if n := b.lease.released.Load(); n != 1 {
					t.Errorf("a lease was released %d times; want once on every path", n)
				}
			}
			if tc.check != nil {
				tc.check(t, got, run)
			}
		})
	}
}

// redirects is a chain of n hops from the target.
func redirects(n int) []hop {
	hs := []hop{{URL: startURL, Status: 301}}
	for i := 1; i < n; i++ {
		hs = append(hs, hop{URL: fmt.Sprintf("https://example.test/hop%d", i), Status: 302})
	}
	return hs
}

func stoppedLoading(t *testing.T, b *scriptedBrowser) {
	t.Helper()
	if len(b.sent("Page.stopLoading")) == 0 {
		t.Error("the page was not told to stop loading")
	}
}

func leasedWith(t *testing.T, run *navRun, unfiltered ...bool) {
	t.Helper()
	got := run.leases.leases()
	if len(got) != len(unfiltered) {
		t.Fatalf("the render leased %d pages; want %d", len(got), len(unfiltered))
	}
	for i, u := range unfiltered {
		if got[i].Unfiltered != u {
			t.Errorf("lease %d was unfiltered %t; want %t", i+1, got[i].Unfiltered, u)
		}
	}
}

func TestRedirectsAreFollowedWithinTheLimitAndTheAddressRule(t *testing.T) {
	t.Parallel()
	runNavCases(t, []navCase{
		{
			name:  "a chain of ten redirects is followed and reported hop by hop",
			serve: served{Redirects: redirects(10), Final: "https://www.example.test/end"},
			check: func(t *testing.T, got rendered, run *navRun) {
				rs := got.page.Response.Redirects
				if len(rs) != 10 || rs[0] != (Redirect{URL: startURL, StatusCode: 301}) || rs[9].URL != "https://example.test/hop9" {
					t.Errorf("the redirects reported are %+v", rs)
				}
				if got.page.URL.String() != "https://www.example.test/end" {
					t.Errorf("the page's URL is %s; want where the chain ended", got.page.URL)
				}
			},
		},
		{
			name:  "an eleventh redirect stops the page with ETOOMANYREDIRECTS",
			serve: served{Redirects: redirects(11), Final: "https://www.example.test/end"},
			kind:  TooManyRedirects, err: "more than 10 times",
			check: func(t *testing.T, _ rendered, run *navRun) { stoppedLoading(t, run.browsers[0]) },
		},
		{
			name:  "the browser's own redirect limit is the same error",
			serve: served{NavError: "net::ERR_TOO_MANY_REDIRECTS"},
			kind:  TooManyRedirects, err: "give the final URL",
		},
		{
			name:  "a redirect to a host that resolves to a private address is refused",
			serve: served{Redirects: redirects(1), Final: "https://intranet.example.test/admin"},
			kind:  Forbidden,
			check: func(t *testing.T, got rendered, run *navRun) {
				stoppedLoading(t, run.browsers[0])
				var re *Error
				if errors.As(got.err, &re); re.URL != "https://intranet.example.test/admin" || re.Reason == "" {
					t.Errorf("the refusal names %q for %q; want the hop and why", re.URL, re.Reason)
				}
				if v := testutil.ToFloat64(run.r.m.GuardRefusals.WithLabelValues("redirect")); v != 1 {
					t.Errorf("the redirect refusals counted %v; want 1", v)
				}
			},
		},
		{
			name:  "a redirect to a scheme other than http and https is refused",
			serve: served{Redirects: redirects(1), Final: "ftp://example.test/file"},
			kind:  Forbidden, err: "only public http and https",
		},
		{
			name:  "a redirect to a public host is followed",
			serve: served{Redirects: redirects(1), Final: "https://other.example.test/"},
		},
	})
}

func TestNavigationFailuresBecomeTheirErrors(t *testing.T) {
	t.Parallel()
	runNavCases(t, []navCase{
		{name: "a host that does not resolve is EUNRESOLVABLE", serve: served{NavError: "net::ERR_NAME_NOT_RESOLVED"}, kind: Unresolvable},
		{name: "a refused connection is unreadable", serve: served{NavError: "net::ERR_CONNECTION_REFUSED"}, kind: Unreadable, err: "refused the connection"},
		{name: "a certificate the browser rejects is unreadable", serve: served{NavError: "net::ERR_CERT_AUTHORITY_INVALID"}, kind: Unreadable, err: "certificate"},
		{name: "a failure of glimpse's own egress is the service's", serve: served{NavError: "net::ERR_PROXY_CONNECTION_FAILED"}, err: "egress proxy"},
		{
			name:  "a failed tunnel through the ad-block list is rendered again without the list",
			serve: served{NavError: "net::ERR_TUNNEL_CONNECTION_FAILED"}, then: &served{},
			check: func(t *testing.T, got rendered, run *navRun) {
				leasedWith(t, run, false, true)
				if got.page.Doc == nil {
					t.Error("the second render read no page")
				}
			},
		},
		{
			name:  "a failed tunnel without the list is the target closing the connection",
			serve: served{NavError: "net::ERR_TUNNEL_CONNECTION_FAILED"}, then: &served{NavError: "net::ERR_TUNNEL_CONNECTION_FAILED"},
			kind: Unreadable, err: "closed the connection",
			check: func(t *testing.T, _ rendered, run *navRun) { leasedWith(t, run, false, true) },
		},
		{
			name:  "a refusal of the browser to navigate is the service's failure",
			serve: served{}, setup: func(b *scriptedBrowser) {
				b.handle("Page.navigate", cdptest.Error(-32000, "Cannot navigate to invalid URL"))
			},
			err: "navigating",
		},
		{
			name:  "a navigation that never answers runs into the timeout",
			serve: served{}, limit: 400 * time.Millisecond,
			setup: func(b *scriptedBrowser) { b.handle("Page.navigate", cdptest.Silent) },
			kind:  TimedOut, err: "did not answer within the `timeout`",
		},
	})
}

func TestTheEgressGuardsWordOnTheDocumentIsTheCallersError(t *testing.T) {
	t.Parallel()
	guarded := func(word string) served {
		return served{Headers: map[string]string{"Content-Type": "text/html", "X-Glimpse-Guard": word,
			guard.MarkHeader: testMarks.Mark(word, "example.test", "")}}
	}
	forged := func(word, mark string) served {
		return served{Headers: map[string]string{"Content-Type": "text/html", "X-Glimpse-Guard": word, guard.MarkHeader: mark}}
	}
	// The guard answers plain http itself; an https answer comes through a
	// tunnel from the target alone, so its header means nothing.
	const plain = "http://example.test/start"
	runNavCases(t, []navCase{
		{name: "an address the rule refuses is EFORBIDDENURL", target: plain, serve: guarded("refused"), kind: Forbidden},
		{name: "a host that does not resolve is EUNRESOLVABLE", target: plain, serve: guarded("unresolvable"), kind: Unresolvable},
		{name: "a target that drops the connection is unreadable", target: plain, serve: guarded("unreachable"), kind: Unreadable, err: "refused or dropped"},
		{name: "a target that does not accept in time is ETIMEOUT", target: plain, serve: guarded("timeout"), kind: TimedOut, err: "in time"},
		{name: "a word the guard never says is the service's failure", target: plain, serve: guarded("overloaded"), err: "egress guard could not fetch"},
		{name: "an https target's own guard header is only a header", serve: guarded("refused")},
		{name: "a target's word without a mark is only a header", target: plain, serve: forged("refused", "")},
		{name: "a target's word with a mark it made up is only a header", target: plain, serve: forged("timeout", "bm90IGEgbWFyaw")},
		{name: "a mark for another host is only a header", target: plain, serve: forged("refused", testMarks.Mark("refused", "elsewhere.test", ""))},
		{name: "a listing without a mark is not rendered again", target: plain, serve: forged("blocked", ""),
			check: func(t *testing.T, _ rendered, run *navRun) { leasedWith(t, run, false) }},
		{
			name:   "a document on the ad-block list is rendered again without the list",
			target: plain, serve: guarded("blocked"), then: &served{},
			check: func(t *testing.T, got rendered, run *navRun) {
				leasedWith(t, run, false, true)
				stoppedLoading(t, run.browsers[0])
				if got.page.Response.StatusCode != 200 {
					t.Errorf("the second render's response is %+v", got.page.Response)
				}
			},
		},
		{
			name:  "the guard's own headers never reach the answer",
			serve: served{Headers: map[string]string{"Content-Type": "text/html", "X-Glimpse-Egress": "s1"}},
			check: func(t *testing.T, got rendered, _ *navRun) {
				if _, ok := got.page.Response.Headers["x-glimpse-egress"]; ok {
					t.Error("a header of glimpse's own reached the answer")
				}
			},
		},
	})
}

func TestFilesAreDescribedByTheirHeaders(t *testing.T) {
	t.Parallel()
	pdfHeaders := map[string]string{"Content-Type": "application/pdf", "Content-Length": "1234",
		"Content-Disposition": `attachment; filename="report.pdf"`, "Last-Modified": "Tue, 03 Mar 2026 10:00:00 GMT"}
	download := func(t *testing.T, got rendered, _ *navRun) {
		t.Helper()
		f := got.page.File
		if f == nil || f.MediaType != "application/pdf" || f.Size != 1234 || f.Shown || !strings.Contains(f.Disposition, "report.pdf") || f.LastModified == "" {
			t.Fatalf("the file is %+v; want the PDF's headers, not shown", f)
		}
		if got.page.Doc != nil {
			t.Error("a download was read as a document")
		}
	}
	runNavCases(t, []navCase{
		{name: "a download is a file with its headers", serve: served{Download: true, Headers: pdfHeaders, MimeType: "application/pdf"}, check: download},
		{
			name:  "a download the browser aborts is still a file",
			serve: served{NavError: "net::ERR_ABORTED", Events: true, Headers: pdfHeaders, MimeType: "application/pdf"},
			check: download,
		},
		{
			name:  "an aborted navigation that is not a file is unreadable",
			serve: served{NavError: "net::ERR_ABORTED"}, kind: Unreadable, err: "not a page",
		},
		{
			name:  "a download whose response never comes is unreadable",
			serve: served{Download: true, NoAnswer: true}, kind: Unreadable, err: "file download",
		},
		{
			name:  "an image the browser shows is a file that can be captured",
			serve: served{Headers: map[string]string{"Content-Type": "image/png", "Content-Length": "99"}, MimeType: "image/png"},
			check: func(t *testing.T, got rendered, _ *navRun) {
				if f := got.page.File; f == nil || !f.Shown || f.MediaType != "image/png" || f.Size != 99 {
					t.Errorf("the file is %+v; want a shown png of 99 bytes", f)
				}
			},
		},
		{
			name:  "a download keeps the target's fragment",
			serve: served{Download: true, Headers: pdfHeaders, Final: "https://cdn.example.test/report.pdf"},
			query: "%23page%3D2",
			check: func(t *testing.T, got rendered, _ *navRun) {
				if got.page.URL.String() != "https://cdn.example.test/report.pdf#page=2" {
					t.Errorf("the file's URL is %s", got.page.URL)
				}
			},
		},
	})
}

// shaped answers documentShape with shape.
func shaped(shape string) func(c *cdptest.Call, p evalParams) bool {
	return func(c *cdptest.Call, p evalParams) bool {
		if !strings.Contains(p.Expression, "2166136261") {
			return false
		}
		_ = c.Reply(value(shape))
		return true
	}
}

// earlyRead checks that a lean render read its document early for reason,
// at once for a quiet document and at earlyCap otherwise.
func earlyRead(reason string) func(t *testing.T, got rendered, run *navRun) {
	return func(t *testing.T, got rendered, run *navRun) {
		t.Helper()
		if v := testutil.ToFloat64(run.r.m.EarlyReads.WithLabelValues(reason)); v != 1 {
			t.Errorf("early reads (%s) counted %v; want 1", reason, v)
		}
		if reason == metrics.EarlyQuiet && run.took >= earlyCap {
			t.Errorf("the render took %v; a quiet document is read before the early cap (%v)", run.took, earlyCap)
		}
		if reason == metrics.EarlyCap && run.took < earlyCap {
			t.Errorf("the render took %v; want it to wait for the early cap (%v)", run.took, earlyCap)
		}
	}
}

// took checks that a render waited at least least, and was not cut short.
func took(least time.Duration) func(t *testing.T, got rendered, run *navRun) {
	return func(t *testing.T, got rendered, run *navRun) {
		t.Helper()
		if run.took < least {
			t.Errorf("the render took %v; want it to wait at least %v", run.took, least)
		}
		if got.page.CutShort {
			t.Error("the page was cut short")
		}
	}
}

func TestTheRenderWaitsAsWaitUntilSays(t *testing.T) {
	t.Parallel()
	var counter atomic.Int64
	changing := func(c *cdptest.Call, p evalParams) bool {
		if !strings.Contains(p.Expression, "2166136261") {
			return false
		}
		n := counter.Add(1) // the page's scripts keep rewriting the head
		_ = c.Reply(value(fmt.Sprintf("%x:%d", n, n)))
		return true
	}
	runNavCases(t, []navCase{
		{name: "domcontentloaded reads the page without its load event", serve: served{NoLoad: true}, query: "&waitUntil=domcontentloaded"},
		{name: "load reads the page at its load event", serve: served{}, query: "&waitUntil=load"},
		{
			name:  "a lean render reads a document that keeps its shape before its load event",
			serve: served{NoLoad: true},
			check: func(t *testing.T, got rendered, run *navRun) {
				if got.page.CutShort {
					t.Error("a document read early was reported cut short")
				}
				if v := testutil.ToFloat64(run.r.m.EarlyReads.WithLabelValues(metrics.EarlyQuiet)); v != 1 {
					t.Errorf("early reads after a quiet document counted %v; want 1", v)
				}
			},
		},
		{
			name:  "a lean render reads a document that keeps changing after the early cap",
			serve: served{NoLoad: true, Eval: changing}, limit: renderLimit, // a load budget well past the cap
			check: func(t *testing.T, _ rendered, run *navRun) {
				if v := testutil.ToFloat64(run.r.m.EarlyReads.WithLabelValues(metrics.EarlyCap)); v != 1 {
					t.Errorf("early reads at the cap counted %v; want 1", v)
				}
			},
		},
		{
			name: "a lean render of a document with its content does not wait for other sites' scripts",
			serve: served{NoLoad: true, Eval: shaped("5f3a:120:c"), Subresources: []subresource{
				{ID: "S1", Type: "Script", URL: "https://www.tags.test/gtm.js"},
				{ID: "X1", Type: "XHR", URL: "https://collect.pixel.test/beacon"},
			}},
			check: func(t *testing.T, got rendered, run *navRun) {
				earlyRead(metrics.EarlyQuiet)(t, got, run)
				stoppedLoading(t, run.browsers[0])
			},
		},
		{
			// The page's event loop never turned between two looks (a
			// long task, a starved machine): its own timers may not
			// have run, and the unchanged shape says nothing.
			name:  "a lean render does not read a document early while its page is too busy to run its timers",
			serve: served{NoLoad: true, Eval: shaped("~5f3a:120:c")}, limit: renderLimit,
			check: earlyRead(metrics.EarlyCap),
		},
		{
			name: "a lean render of a document without its content waits for other sites' scripts",
			serve: served{NoLoad: true, Eval: shaped("5f3a:120"), Subresources: []subresource{
				{ID: "S1", Type: "Script", URL: "https://app.static-host.test/bundle.js"},
			}},
			check: earlyRead(metrics.EarlyCap),
		},
		{
			name: "a lean render waits for the scripts of the document's own site",
			serve: served{NoLoad: true, Eval: shaped("5f3a:120:c"), Subresources: []subresource{
				{ID: "S1", Type: "Script", URL: "https://static.example.test/app.js"},
			}},
			check: earlyRead(metrics.EarlyCap),
		},
		{
			name:  "a page that never loads is read when its load budget is spent",
			serve: served{NoLoad: true, NoDCL: true}, limit: 2 * time.Second,
			check: func(t *testing.T, got rendered, run *navRun) {
				if !got.page.CutShort {
					t.Error("a page read before it loaded was not reported cut short")
				}
				stoppedLoading(t, run.browsers[0])
			},
		},
		{
			name:  "auto waits for an XHR that started before load",
			serve: served{Subresources: []subresource{{ID: "X1", Type: "XHR", Finish: 300 * time.Millisecond}}},
			check: took(300 * time.Millisecond),
		},
		{
			name:  "auto reads the page a second after load when an XHR never ends",
			serve: served{Subresources: []subresource{{ID: "X1", Type: "Fetch"}}},
			check: took(time.Second),
		},
		{
			name:  "networkidle0 waits for every request, then half a second of quiet",
			serve: served{Subresources: []subresource{{ID: "I1", Type: "Image", Finish: 300 * time.Millisecond}}}, query: "&waitUntil=networkidle0",
			check: took(800 * time.Millisecond),
		},
		{
			name: "networkidle2 lets two requests run on",
			serve: served{Subresources: []subresource{{ID: "I1", Type: "Image"}, {ID: "I2", Type: "Image"},
				{ID: "S1", Type: "Script", Finish: 200 * time.Millisecond}}},
			query: "&waitUntil=networkidle2",
			check: took(700 * time.Millisecond),
		},
		{
			name:  "the load event may overtake the reply to the navigation",
			serve: served{LoadFirst: true}, query: "&waitUntil=load",
		},
	})
}

func TestTheDocumentIsReadEvenWhenItIsReplaced(t *testing.T) {
	t.Parallel()
	// replaced fails the first n reads as Chromium does when a navigation
	// replaces the document under a call, announcing the new document.
	replaced := func(n int) func(c *cdptest.Call, p evalParams) bool {
		var mu sync.Mutex
		return func(c *cdptest.Call, p evalParams) bool {
			if !strings.Contains(p.Expression, "root.outerHTML") {
				return false
			}
			mu.Lock()
			defer mu.Unlock()
			if n == 0 {
				return false
			}
			n--
			_ = c.Event("Page.domContentEventFired", `{"timestamp":5}`)
			_ = c.Fail(-32000, "Execution context was destroyed.")
			return true
		}
	}
	failing := func(reply func(c *cdptest.Call)) func(c *cdptest.Call, p evalParams) bool {
		return func(c *cdptest.Call, p evalParams) bool {
			if !strings.Contains(p.Expression, "root.outerHTML") {
				return false
			}
			reply(c)
			return true
		}
	}
	runNavCases(t, []navCase{
		{name: "a document replaced once is read in its new form", serve: served{Eval: replaced(1)}},
		{name: "a page that keeps navigating away is unreadable", serve: served{Eval: replaced(2)}, kind: Unreadable, err: "kept navigating"},
		{
			name:  "a read the page refuses is the service's failure",
			serve: served{Eval: failing(func(c *cdptest.Call) { _ = c.Fail(-32000, "Object reference chain is too long") })},
			err:   "reading the page",
		},
		{
			name:  "a read that throws is the page's failure",
			serve: served{Eval: failing(func(c *cdptest.Call) { _ = c.Reply(exception("RangeError: Invalid string length")) })},
			kind:  Unreadable, err: "Invalid string length",
		},
		{
			name:  "a read that gives nothing is the page's failure",
			serve: served{Eval: failing(func(c *cdptest.Call) { _ = c.Reply(`{"result":{"type":"undefined"}}`) })},
			kind:  Unreadable, err: "returned nothing",
		},
		{
			name: "a client-rendered page gets a short wait for its head",
			serve: served{Eval: func(c *cdptest.Call, p evalParams) bool {
				if strings.HasPrefix(p.Expression, "!!(document.title") {
					_ = c.Reply(value(false)) // no title yet: scripts fill it in
					return true
				}
				return false
			}},
			check: func(t *testing.T, _ rendered, run *navRun) {
				for _, m := range run.browsers[0].sent("Runtime.evaluate") {
					if strings.Contains(string(m.Params), "MutationObserver") {
						return
					}
				}
				t.Error("a page without a title was read without waiting for its head")
			},
		},
		{
			name:  "a page with its metadata switched off is not read",
			serve: served{}, query: "&meta=false&screenshot",
			setup: func(b *scriptedBrowser) {
				b.handle("Page.captureScreenshot", cdptest.Result(`{"data":"iVBORw0KGgo="}`))
			},
			check: func(t *testing.T, got rendered, _ *navRun) {
				if got.page.Doc != nil {
					t.Error("the DOM was read for an answer that needs none")
				}
			},
		},
	})
}

// duringTheScroll answers the scroll-through of a render with pixels after
// starting the page's requests, as a page whose scroll loads more does:
// each starts then, and ends after its Finish (0: never).
func duringTheScroll(subs ...subresource) func(c *cdptest.Call, p evalParams) bool {
	return func(c *cdptest.Call, p evalParams) bool {
		if !strings.Contains(p.Expression, "a reader scrolling through") {
			return false
		}
		requestSubresources(c, subs)
		_ = c.Reply(value(map[string]any{"steps": 3, "height": 2400}))
		return true
	}
}

// The scroll-through is told the site of the document it scrolls, where
// the target ended up, as its registrable domain: the resources of that
// site are the page's own.
func TestTheScrollThroughKnowsTheDocumentsSite(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var scroll string
	runNavCases(t, []navCase{{
		name: "a target redirected to a deep host of another site",
		serve: served{
			Redirects: []hop{{URL: startURL, Status: 301}},
			Final:     "https://www.news.example.co.uk/story",
			Eval: func(c *cdptest.Call, p evalParams) bool {
				if !strings.Contains(p.Expression, "a reader scrolling through") {
					return false
				}
				mu.Lock()
				scroll = p.Expression
				mu.Unlock()
				_ = c.Reply(value(map[string]any{"steps": 1, "height": 800}))
				return true
			},
		},
		query: "&pdf=true",
		check: func(t *testing.T, _ rendered, _ *navRun) {
			mu.Lock()
			defer mu.Unlock()
			if !strings.Contains(scroll, `"site":"example.co.uk"`) {
				t.Errorf("the scroll-through was not told the document's site, example.co.uk: %.200q", scroll[max(0, len(scroll)-200):])
			}
		},
	}})
}

func TestARenderWithPixelsWaitsForTheNetworkAfterItsScroll(t *testing.T) {
	t.Parallel()
	runNavCases(t, []navCase{
		{
			name:  "a request the scroll started is waited for, then the network's quiet",
			serve: served{Eval: duringTheScroll(subresource{ID: "L1", Type: "Image", Finish: 300 * time.Millisecond})},
			query: "&pdf=true",
			check: took(300*time.Millisecond + scrolledQuiet),
		},
		{
			name:  "a full-page screenshot waits the same way",
			serve: served{Eval: duringTheScroll(subresource{ID: "L1", Type: "Fetch", Finish: 200 * time.Millisecond})},
			query: "&screenshot.fullPage=true",
			check: took(200*time.Millisecond + scrolledQuiet),
		},
		{
			name:  "a request that never ends holds the capture no longer than the bound",
			serve: served{Eval: duringTheScroll(subresource{ID: "L1", Type: "Image"})},
			query: "&pdf=true",
			check: func(t *testing.T, got rendered, run *navRun) {
				took(autoSettle)(t, got, run)
				if run.took > autoSettle+2*time.Second {
					t.Errorf("the render took %v; the network's quiet is bounded by %v", run.took, autoSettle)
				}
			},
		},
		{
			name: "a browser lost while the network's quiet is awaited is replaced at once, not after the bound",
			serve: served{Eval: func(c *cdptest.Call, p evalParams) bool {
				if !duringTheScroll(subresource{ID: "L1", Type: "Image"})(c, p) {
					return false
				}
				time.AfterFunc(100*time.Millisecond, c.Drop)
				return true
			}},
			then:  &served{},
			query: "&pdf=true",
			check: func(t *testing.T, got rendered, run *navRun) {
				retried(1)(t, got, run)
				if run.took >= autoSettle {
					t.Errorf("the render took %v: it waited out the quiet's bound on a browser that was gone", run.took)
				}
			},
		},
		{
			name:  "an event stream the scroll opened does not count as the network being busy",
			serve: served{Eval: duringTheScroll(subresource{ID: "E1", Type: "EventSource"})},
			query: "&pdf=true",
			check: func(t *testing.T, got rendered, run *navRun) {
				if run.took >= autoSettle {
					t.Errorf("the render took %v: it waited for an event stream, which never ends", run.took)
				}
			},
		},
	})
}

func TestTheQuietCountsFromTheNetworksLastEvent(t *testing.T) {
	var s netState
	s.last = time.Now().Add(-2 * idleFor)
	if wait, ok := s.quietFor(idleFor); !ok || wait != 0 {
		t.Errorf("a network quiet for twice the period must wait %v more (ok %t); want none", wait, ok)
	}
	s.last = time.Now().Add(-idleFor / 5)
	if wait, ok := s.quietFor(idleFor); !ok || wait < idleFor/2 || wait > idleFor {
		t.Errorf("a network quiet for a fifth of the period must wait %v more (ok %t); want the rest", wait, ok)
	}
	event := func(method, id, typ string) cdp.Event {
		return cdp.Event{Method: method, Params: []byte(fmt.Sprintf(`{"requestId":%q,"type":%q}`, id, typ))}
	}
	s.note(event("Network.requestWillBeSent", "R1", "Script"))
	if _, ok := s.quietFor(idleFor); ok {
		t.Error("a request in flight counts as quiet")
	}
	s.note(event("Network.responseReceived", "R1", "Script"))
	s.note(event("Network.loadingFailed", "R1", ""))
	if wait, ok := s.quietFor(idleFor); !ok || wait < idleFor*9/10 {
		t.Errorf("a request that just ended leaves %v to wait (ok %t); want the whole period", wait, ok)
	}
}

// At the end of a scroll-through, what the page may still add through the
// network is a request to its own site that has not ended and either
// started after the scroll or is one of its scripts' fetches (a list's
// part asked for before the scroll reached the end): not a picture or a
// script from before the scroll, nor anything to another site.
// sentRequest notes in s that the page sent request id of kind to u.
func sentRequest(s *netState, id, kind, u string) {
	s.note(cdp.Event{Method: "Network.requestWillBeSent", Params: []byte(fmt.Sprintf(`{"requestId":%q,"type":%q,"request":{"url":%q}}`, id, kind, u))})
}

// endedRequest notes in s that request id ended.
func endedRequest(s *netState, id string) {
	s.note(cdp.Event{Method: "Network.loadingFinished", Params: []byte(fmt.Sprintf(`{"requestId":%q}`, id))})
}

func TestTheScrollThroughWaitsOnlyForTheSitesRequestsThatMayAddToThePage(t *testing.T) {
	var s netState
	sent := func(id, kind, u string) { sentRequest(&s, id, kind, u) }
	ended := func(id string) { endedRequest(&s, id) }
	sent("picture", "Image", "https://news.example.com/hero.jpg")
	sent("script", "Script", "https://www.example.com/app.js")
	time.Sleep(5 * time.Millisecond)
	scrolled := time.Now()
	time.Sleep(5 * time.Millisecond)
	sent("ads", "Fetch", "https://ads.example.net/slot")
	sent("frame", "Document", "data:text/html,hi")
	if n := s.awaited(scrolled, "example.com"); n != 0 {
		t.Fatalf("%d requests count as the page's to add; want none (a picture and a script from before the scroll, a fetch to another site, a frame with no site)", n)
	}
	if _, ok := awaitFetches(t.Context(), &s, "example.com", scrolled, false, time.Second); ok {
		t.Error("the wait waited with nothing of the site's in flight")
	}
	sent("part", "XHR", "https://www.example.com/api/items?page=1")
	sent("next", "Image", "https://www.example.com/api/items?page=2")
	if n := s.awaited(scrolled, "example.com"); n != 2 {
		t.Fatalf("%d requests count as the page's to add; want its XHR and its request after the scroll", n)
	}
	ended("part")
	// The list's part the page asked for before the scroll.
	sent("earlier", "Fetch", "https://news.example.com/api/items?page=0")
	s.mu.Lock()
	f := s.inflight["earlier"]
	f.start = scrolled.Add(-time.Second)
	s.inflight["earlier"] = f
	s.mu.Unlock()
	if n := s.awaited(scrolled, "example.com"); n != 2 {
		t.Fatalf("%d requests count as the page's to add; want its fetch from before the scroll and its request after", n)
	}
	ended("earlier")
	go func() {
		time.Sleep(100 * time.Millisecond)
		ended("next")
	}()
	if waited, ok := awaitFetches(t.Context(), &s, "example.com", scrolled, false, 5*time.Second); !ok || waited < 90*time.Millisecond || waited > 4*time.Second {
		t.Errorf("the wait took %v (ok %t); want until the request ended, 100 ms", waited, ok)
	}
	sent("stuck", "Fetch", "https://example.com/api/items?page=3")
	if waited, ok := awaitFetches(t.Context(), &s, "example.com", scrolled, false, 100*time.Millisecond); !ok || waited < 90*time.Millisecond {
		t.Errorf("a request that never ends was waited for %v (ok %t); want the bound, 100 ms", waited, ok)
	}
	if _, ok := awaitFetches(t.Context(), nil, "example.com", scrolled, false, time.Second); ok {
		t.Error("without the network known, the wait waited")
	}
}

// A part of a list that the page asked its site for after the scroll and
// has had, while the page shows no change yet, is one it may be adding:
// the scroll-through goes on. Not when the page has changed since the
// scroll, nor for a picture, nor for another site's fetch.
func TestTheScrollThroughGoesOnForAPartThatHasJustCome(t *testing.T) {
	var s netState
	sent := func(id, kind, u string) { // and had at once
		sentRequest(&s, id, kind, u)
		endedRequest(&s, id)
	}
	sent("before", "Fetch", "https://www.example.com/api/items?page=1")
	time.Sleep(5 * time.Millisecond)
	scrolled := time.Now()
	time.Sleep(5 * time.Millisecond)
	sent("picture", "Image", "https://www.example.com/hero.jpg")
	sent("ads", "XHR", "https://ads.example.net/slot")
	if _, ok := awaitFetches(t.Context(), &s, "example.com", scrolled, false, time.Second); ok {
		t.Error("the scroll-through went on for a fetch from before the scroll, a picture and another site's XHR")
	}
	sent("part", "XHR", "https://www.example.com/api/items?page=2")
	if waited, ok := awaitFetches(t.Context(), &s, "example.com", scrolled, false, time.Second); !ok || waited > 0 {
		t.Errorf("after the part came, the scroll-through went on %t, after %v; want at once", ok, waited)
	}
	if _, ok := awaitFetches(t.Context(), &s, "example.com", scrolled, true, time.Second); ok {
		t.Error("the scroll-through went on for a part the page has shown")
	}
}

// While the network is followed, a catch-up notes every event that had
// arrived before it, however busy the follower has been.
func TestTheFollowersCatchUpNotesEveryEventAlreadyReceived(t *testing.T) {
	for range 20 {
		events := make(chan cdp.Event, 500)
		for i := range 500 {
			events <- cdp.Event{Method: "Network.requestWillBeSent", Params: []byte(fmt.Sprintf(`{"requestId":"R%d","type":"Fetch","request":{"url":"https://example.com/%d"}}`, i, i))}
		}
		n := &navigation{events: events}
		stop := n.follow()
		n.net.catchUp()
		got := n.net.awaited(time.Time{}, "example.com")
		stop()
		if got != 500 {
			t.Fatalf("after the catch-up, %d of the 500 requests received were known", got)
		}
		if n.net.catchUp != nil {
			t.Fatal("the catch-up outlived its follower")
		}
	}
}

// A scroll-through that paused at the end of the page is told to finish or
// to go on; when its world is gone by then (the page replaced its
// document meanwhile), the capture goes on with the page as it is: the
// step is best effort, and its failure is not the render's.
func TestAScrollThroughWhoseWorldIsGoneAfterItsPauseStillCaptures(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []string
	runNavCases(t, []navCase{{
		name: "told to finish, the world is gone",
		serve: served{Eval: func(c *cdptest.Call, p evalParams) bool {
			switch {
			case strings.Contains(p.Expression, "a reader scrolling through"):
				_ = c.Reply(value(map[string]any{"paused": true, "since": 5, "steps": 2, "height": 1600}))
			case strings.HasPrefix(p.Expression, "globalThis.revealer."):
				mu.Lock()
				asked = append(asked, p.Expression)
				mu.Unlock()
				_ = c.Reply(exception("TypeError: Cannot read properties of undefined (reading 'finish')"))
			default:
				return false
			}
			return true
		}},
		query: "&pdf=true",
		check: func(t *testing.T, got rendered, _ *navRun) {
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 1 || asked[0] != "globalThis.revealer.finish()" {
				t.Errorf("after a pause with nothing of the page's in flight, the step was told %q; want to finish, once", asked)
			}
			if got.page == nil {
				t.Error("no page to capture after the scroll-through failed")
			}
		},
	}})
}
