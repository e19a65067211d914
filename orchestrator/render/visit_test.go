package render

import (
	"strings"
	"testing"
	"time"
)

func TestAPageThatLoadsIsReadWithItsAnswer(t *testing.T) {
	b := newBrowser(t, served{
		Headers: map[string]string{"Content-Type": "text/html; charset=utf-8", "Set-Cookie": "sid=1", "X-Served-By": "a\nb"},
		Href:    "https://example.test/article#top",
	})
	r, _ := newRenderer(&browsers{next: []*scriptedBrowser{b}})
	got := render(t, r, "url=https://example.test/article&prerender=true", 5*time.Second)
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
