package render

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// egressStandIn plays a sidecar's egress guard for the plain fetch: an
// HTTP proxy on loopback that answers for the tests' http targets by
// path, as the target's server would through the guard.
func egressStandIn(t *testing.T) *url.URL {
	t.Helper()
	words := strings.Repeat("A paragraph long enough to count as the page's own content. ", 5)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/article":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Language", "de-DE, en")
			_, _ = w.Write([]byte(`<html><head><title>Ein Artikel</title></head><body><p>` + words + `</p></body></html>`))
		case "/moved":
			http.Redirect(w, r, "/article", http.StatusMovedPermanently)
		case "/shell":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte(`<html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`))
		case "/untitled":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte(`<html><body><p>` + words + `</p></body></html>`))
		case "/report.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write([]byte("%PDF-1.7\n%%EOF\n"))
		case "/gone":
			http.NotFound(w, r)
		case "/slow":
			// The target answers at once and sends its page late.
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			time.Sleep(3 * time.Second)
			_, _ = w.Write([]byte(`<html><head><title>Late</title></head><body><p>` + words + `</p></body></html>`))
		case "/silent":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case "/refused":
			markAnswer(w, r, "refused")
			w.WriteHeader(http.StatusForbidden)
		}
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return u
}

func TestAPlainFetchAnswersWhenThePageAllowsIt(t *testing.T) {
	t.Parallel()
	proxy := egressStandIn(t)
	cases := []struct {
		name    string
		query   string
		egress  bool // a sidecar's egress is there to fetch through
		limit   time.Duration
		browser bool // a browser renders the page
		kind    Kind
		err     string
		check   func(t *testing.T, p *Page)
	}{
		{
			name: "a page with a title and its own text is answered by the fetch", query: "url=http://example.test/article%23part", egress: true,
			check: func(t *testing.T, p *Page) {
				if p.Meta == nil || p.Meta.Title == nil || *p.Meta.Title != "Ein Artikel" {
					t.Errorf("the fetch's metadata is %+v", p.Meta)
				}
				if lang := p.Doc.Find("html").AttrOr("lang", ""); lang != "de-DE" {
					t.Errorf("the document's language is %q; want the header's first", lang)
				}
				if p.URL.String() != "http://example.test/article#part" || p.Response.StatusCode != 200 {
					t.Errorf("the page is %s answered %d", p.URL, p.Response.StatusCode)
				}
			},
		},
		{
			name: "redirects of the fetch are followed and reported", query: "url=http://example.test/moved", egress: true,
			check: func(t *testing.T, p *Page) {
				if rs := p.Response.Redirects; len(rs) != 1 || rs[0] != (Redirect{URL: "http://example.test/moved", StatusCode: 301}) {
					t.Errorf("the redirects are %+v", rs)
				}
			},
		},
		{
			name: "a file is described from the fetch's first bytes", query: "url=http://example.test/report.pdf", egress: true,
			check: func(t *testing.T, p *Page) {
				if p.File == nil || p.File.MediaType != "application/pdf" || string(p.File.Head) != "%PDF-1.7\n%%EOF\n" || p.File.Shown {
					t.Errorf("the file is %+v", p.File)
				}
			},
		},
		{name: "a page built by script goes to a browser", query: "url=http://example.test/shell", egress: true, browser: true},
		{name: "a page without a title goes to a browser", query: "url=http://example.test/untitled", egress: true, browser: true},
		{name: "an error status goes to a browser, which may get past it", query: "url=http://example.test/gone", egress: true, browser: true},
		{name: "a fetch slower than its share of the time goes to a browser", query: "url=http://example.test/slow&timeout=6s", egress: true, limit: 6 * time.Second, browser: true},
		{
			name: "a target that sends nothing gets no browser after it", query: "url=http://example.test/silent&timeout=2s", egress: true, limit: 2 * time.Second,
			kind: TimedOut,
		},
		{name: "without a healthy sidecar the page goes to a browser", query: "url=http://example.test/article", browser: true},
		{
			name: "an address the guard refuses is EFORBIDDENURL without a browser", query: "url=http://example.test/refused", egress: true,
			kind: Forbidden,
		},
		{name: "a page built by script is answered as it is with prerender=false", query: "url=http://example.test/shell&prerender=false", egress: true},
		{
			name: "an error status with prerender=false is unreadable and says what to drop", query: "url=http://example.test/gone&prerender=false", egress: true,
			kind: Unreadable, err: "could not be read without a browser",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			leases := &browsers{next: []*scriptedBrowser{newBrowser(t, served{})}}
			r, _ := newRenderer(leases)
			r.static = newStaticFetcher(func() (*url.URL, bool) { return proxy, tc.egress }, testMarks)
			limit := tc.limit
			if limit == 0 {
				limit = renderLimit
			}
			got := render(t, r, tc.query, limit)
			if tc.kind != 0 || tc.err != "" {
				if got.err == nil || kindOf(got.err) != tc.kind || !strings.Contains(got.err.Error(), tc.err) {
					t.Fatalf("the render failed with %v (kind %v); want kind %v saying %q", got.err, kindOf(got.err), tc.kind, tc.err)
				}
			} else if got.err != nil {
				t.Fatalf("the render failed: %v", got.err)
			}
			want := "fetch"
			if tc.browser {
				want = "prerender"
			}
			if got.page != nil && got.page.FetchMode != want {
				t.Errorf("the page was read by %s; want %s", got.page.FetchMode, want)
			}
			if n := len(leases.leases()); (n == 1) != tc.browser {
				t.Errorf("the render leased %d browsers; want a browser %t", n, tc.browser)
			}
			if tc.check != nil {
				tc.check(t, got.page)
			}
		})
	}
}
