package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html/charset"
	"golang.org/x/net/publicsuffix"

	"github.com/glimpse/glimpse/orchestrator/document"
	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/sidecar/guard"
)

// maxStaticBytes bounds a page read by the plain fetch; the head, where
// metadata lives, comes first.
const maxStaticBytes = 5 << 20

// errNeedsBrowser says the static page is not enough: the caller leases a
// browser instead.
var errNeedsBrowser = errors.New("the page needs a browser")

// staticFetcher is the prerender=auto fast path: a plain HTTP GET through a
// sidecar's egress guard (the same address rule as the browser, enforced at
// connect time), with the same redirect limit and forwarded headers.
type staticFetcher struct {
	client   *http.Client
	proxy    func() (*url.URL, bool) // a sidecar's egress proxy, with its token
	upstream string                  // the caller's proxy after the guard; "" for none
	marks    *guard.Marks            // the guard's marks; nil reads no word of the guard
}

func newStaticFetcher(proxy func() (*url.URL, bool), marks *guard.Marks) *staticFetcher {
	f := &staticFetcher{proxy: proxy, marks: marks}
	f.client = &http.Client{
		Transport: &http.Transport{
			Proxy: func(*http.Request) (*url.URL, error) {
				u, ok := f.proxy()
				if !ok {
					return nil, errNoEgress
				}
				return u, nil
			},
			// An https URL goes through the proxy as a CONNECT tunnel,
			// whose refusal the client reports without its headers: the
			// guard's word is read here so that it means what it means
			// for a plain http URL. Each CONNECT carries a nonce of its
			// own, which the guard's mark is bound to.
			GetProxyConnectHeader: func(context.Context, *url.URL, string) (http.Header, error) {
				h := http.Header{guard.NonceHeader: {newNonce()}}
				if f.upstream != "" {
					h.Set(upstreamHeader, f.upstream)
				}
				return h, nil
			},
			OnProxyConnectResponse: func(_ context.Context, _ *url.URL, req *http.Request, res *http.Response) error {
				if res.StatusCode == http.StatusOK {
					return nil
				}
				word := f.marks.Word(res.Header.Get, req.Host, req.Header.Get(guard.NonceHeader))
				return guardAnswer(&url.URL{Scheme: "https", Host: strings.TrimSuffix(req.Host, ":443")}, word)
			},
			MaxIdleConns:          64,
			MaxIdleConnsPerHost:   16,
			IdleConnTimeout:       60 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 15 * time.Second,
			DisableCompression:    false,
		},
		// Redirects are followed by hand: each hop is counted and gets the
		// caller's headers only if it stays on the target's site.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return f
}

// ErrEgress marks a fetch that failed on glimpse's own way out (no healthy
// sidecar, its egress proxy not answering or failing in a way it does not
// name), not at the address fetched: the service's failure, which a retry
// may mend, never the caller's or the target's.
var ErrEgress = errors.New("glimpse's way out to the web failed")

var errNoEgress = fmt.Errorf("%w: no healthy sidecar to fetch through", ErrEgress)

// guardAnswer is the error for the guard's refusal to fetch u, by the
// reason it gave: the address rule's and the target's as render errors,
// anything else as the service's own failure.
func guardAnswer(u *url.URL, reason string) error {
	if reason == "refused" || reason == "unresolvable" || reason == "unreachable" {
		return guardError(u.String(), reason)
	}
	return fmt.Errorf("%w: the egress guard could not reach %s: %q", ErrEgress, u.Host, reason)
}

// egressFailure reports whether a failed request never reached the egress
// proxy. A proxy that answered, even to refuse a tunnel, reached it.
func egressFailure(err error) bool {
	var op, dial *net.OpError
	return errors.As(err, &op) && op.Op == "proxyconnect" && errors.As(op.Err, &dial) && dial.Op == "dial"
}

// Source opens a resource along the page's own egress path.
type Source interface {
	Open(ctx context.Context, raw string) (body io.ReadCloser, header func(string) string, err error)
}

// Assets fetches what a page of target links to along the page's own
// egress path: through a sidecar's egress guard, with the caller's headers
// for the target's own site only.
func (r *Renderer) Assets(target *url.URL, headers http.Header) Source {
	return httpSource{f: r.static, site: siteOf(target), headers: headers}
}

// httpSource fetches assets the way the static page was fetched: through
// a sidecar's egress guard, with the caller's headers for the target's own
// site only.
type httpSource struct {
	f       *staticFetcher
	site    site
	headers http.Header
}

func (h httpSource) Open(ctx context.Context, raw string) (io.ReadCloser, func(string) string, error) {
	if h.f == nil {
		return nil, nil, errNoEgress
	}
	resp, _, _, err := h.f.get(ctx, raw, h.site, h.headers, "image/avif,image/webp,image/*,*/*;q=0.8")
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode >= 400 {
		resp.Body.Close()
		return nil, nil, fmt.Errorf("fetching %s answered HTTP %d", raw, resp.StatusCode)
	}
	return resp.Body, resp.Header.Get, nil
}

// get follows up to MaxRedirects hops and returns the last response, its
// URL and the redirects on the way.
func (f *staticFetcher) get(ctx context.Context, raw string, site site, hdr http.Header, accept string) (*http.Response, *url.URL, []Redirect, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, nil, nil, err
	}
	var chain []Redirect
	// Cookies set along the redirect chain (a login step in the target's
	// own query string) go with the next hops, as in a browser; the jar
	// lives for this one fetch only.
	jar, _ := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List})
	for hop := 0; ; hop++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, nil, nil, err
		}
		req.Header.Set("User-Agent", query.DesktopUserAgent)
		req.Header.Set("Accept", accept)
		req.Header.Set("Accept-Language", "en-US,en;q=0.9")
		if site.holds(u) {
			for k, vs := range hdr {
				req.Header[k] = vs
			}
		}
		for _, ck := range jar.Cookies(u) {
			req.AddCookie(ck)
		}
		if f.upstream != "" && u.Scheme == "http" {
			req.Header.Set(upstreamHeader, f.upstream)
		}
		// A plain http request goes to the guard as it is, so it carries
		// the nonce itself; the sidecar takes it off. An https one must
		// not: the target would read it inside the tunnel.
		nonce := ""
		if u.Scheme == "http" {
			nonce = newNonce()
			req.Header.Set(guard.NonceHeader, nonce)
		}
		resp, err := f.client.Do(req)
		if err != nil {
			if egressFailure(err) {
				return nil, nil, nil, fmt.Errorf("%w: %w", ErrEgress, err)
			}
			return nil, nil, nil, err
		}
		jar.SetCookies(u, resp.Cookies())
		if g := guardWord(f.marks, u.String(), resp.Header.Get, nonce); g != "" && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusBadGateway) {
			resp.Body.Close()
			return nil, nil, nil, guardAnswer(u, g)
		}
		switch resp.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
			http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		default:
			return resp, u, chain, nil
		}
		resp.Body.Close()
		chain = append(chain, Redirect{URL: u.String(), StatusCode: resp.StatusCode})
		if hop+1 > MaxRedirects {
			return nil, nil, nil, tooManyRedirects(hop + 1)
		}
		next, err := u.Parse(resp.Header.Get("Location"))
		if err != nil || (next.Scheme != "http" && next.Scheme != "https") {
			return nil, nil, nil, fmt.Errorf("the target redirected to an unusable location %q", resp.Header.Get("Location"))
		}
		u = next
	}
}

// fetchStatic reads the target without a browser. It returns
// errNeedsBrowser when the static page lacks the essentials: no title, a
// client-rendered shell, not HTML, or an error status that a browser may
// get past.
func (r *Renderer) fetchStatic(ctx context.Context, req *query.Request) (*Page, error) {
	start := time.Now()
	site := siteOf(req.Target)
	static := r.fetcher(req)
	resp, final, chain, err := static.get(ctx, req.Target.String(), site, req.Headers,
		"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, e // refused or too many redirects: a browser would meet the same
		}
		return nil, fmt.Errorf("%w: %v", errNeedsBrowser, err)
	}
	defer resp.Body.Close()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode < 300 && isFileType(mt) {
		// A file: this one fetch is all the answer needs, and a browser
		// would only download it again.
		return r.staticFile(req, resp, final, chain, site, start, static)
	}
	if resp.StatusCode >= 300 && req.Prerender == "false" && (mt == "text/html" || mt == "application/xhtml+xml") {
		if p := r.staticWall(req, resp, final, chain, static); p != nil {
			return p, nil
		}
	}
	if resp.StatusCode < 300 && isJSONType(mt) {
		return r.staticJSON(req, resp, final, chain, site, start)
	}
	if resp.StatusCode >= 300 || (mt != "text/html" && mt != "application/xhtml+xml") {
		return nil, fmt.Errorf("%w: HTTP %d, %s", errNeedsBrowser, resp.StatusCode, mt)
	}
	body, err := charset.NewReader(io.LimitReader(resp.Body, maxStaticBytes), resp.Header.Get("Content-Type"))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNeedsBrowser, err)
	}
	doc, err := meta.ParseDocument(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNeedsBrowser, err)
	}
	if lang := resp.Header.Get("Content-Language"); lang != "" && doc.Find("html").AttrOr("lang", "") == "" {
		// The rules read the document; a header-only language would be lost.
		doc.Find("html").SetAttr("lang", strings.TrimSpace(strings.Split(lang, ",")[0]))
	}
	res := meta.Extract(doc, final)
	if req.Prerender == "auto" && !staticEnough(doc, res) {
		return nil, errNeedsBrowser
	}
	if consentApplies(req) {
		r.hideListedConsent(doc)
	}
	r.m.Phase.WithLabelValues("navigate").Observe(time.Since(start).Seconds())
	final.Fragment = req.Target.Fragment
	answered := answeredBy(resp, chain)
	return &Page{
		URL: final, Doc: doc, Meta: &res, FetchMode: "fetch", log: r.log, m: r.m, Response: answered,
		Assets: httpSource{f: static, site: site, headers: req.Headers},
		Wall:   DetectWall(answered, setCookieNames(resp.Header.Values("Set-Cookie")...), doc),
	}, nil
}

// staticFile answers a file target from the plain fetch: its headers and
// its first bytes, read within the fetch's own deadline.
func (r *Renderer) staticFile(req *query.Request, resp *http.Response, final *url.URL, chain []Redirect, site site, start time.Time, static *staticFetcher) (*Page, error) {
	f := fileOf(resp.Header.Get("Content-Type"), resp.Header.Get)
	limit := maxFileHead
	if document.FormatOf(f.MediaType, meta.FileName(final, f.Disposition)) != "" {
		limit = MaxDocumentBytes
	}
	head, whole, err := readHead(resp, limit)
	if err != nil {
		// The headers are known; a body cut short only costs what its
		// first bytes would have told.
		r.log.Debug("the file target's first bytes could not be read", "err", err)
	}
	f.Head, f.Whole = head, whole && limit == MaxDocumentBytes
	r.m.Phase.WithLabelValues("navigate").Observe(time.Since(start).Seconds())
	final.Fragment = req.Target.Fragment
	return &Page{URL: final, File: f, FetchMode: "fetch", log: r.log, m: r.m, Response: answeredBy(resp, chain),
		Assets: httpSource{f: static, site: site, headers: req.Headers}}, nil
}

// answeredBy is what the target's server answered, as the payload repeats
// it.
func answeredBy(resp *http.Response, chain []Redirect) *Response {
	answered := &Response{StatusCode: resp.StatusCode, Headers: map[string]string{}, Redirects: chain}
	for k, vs := range resp.Header {
		addHeader(answered.Headers, k, vs...)
	}
	answered.Cookies = cookieNames(nil, resp.Header.Values("Set-Cookie")...)
	return answered
}

// staticEnough reports whether a page fetched without a browser already
// has its essentials: a title, and content that is not a script-built shell.
func staticEnough(doc *goquery.Document, res meta.Result) bool {
	if res.Title == nil {
		return false
	}
	body := doc.Find("body")
	text := strings.Join(strings.Fields(body.Clone().Find("script,style,noscript,template").Remove().End().Text()), " ")
	if len(text) >= 200 {
		return true
	}
	// Little text and a mount point or a "needs JavaScript" notice: the
	// page is built by script.
	shell := doc.Find(`#root, #app, #__next, #__nuxt, #___gatsby, [data-reactroot], app-root, [ng-app], [ng-version]`).Length() > 0
	noscript := strings.Contains(strings.ToLower(doc.Find("noscript").Text()), "javascript")
	return !shell && !noscript
}
