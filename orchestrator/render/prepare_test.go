package render

import (
	"context"
	"testing"

	"github.com/glimpse/glimpse/cdp/cdptest"
	"github.com/glimpse/glimpse/pool"
)

func TestAPooledPageIsPreparedForRenders(t *testing.T) {
	t.Parallel()
	for _, refused := range []string{"", "Page.enable", "Network.enable", "Browser.setDownloadBehavior"} {
		name := "a page is prepared with its events on and downloads denied"
		if refused != "" {
			name = "a refused " + refused + " fails the page's preparation"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := newBrowser(t, served{})
			if refused != "" {
				b.handle(refused, cdptest.Error(-32000, "Not allowed"))
			}
			l := &pool.Lease{Session: b.lease.Page(), Browser: b.lease.Browser(), TargetID: pageTarget, ContextID: "C1"}
			err := PreparePage(context.Background(), l)
			if (err != nil) != (refused != "") {
				t.Fatalf("the preparation ended with %v", err)
			}
			if refused != "" {
				return
			}
			for _, m := range []string{"Page.enable", "Network.enable"} {
				if s := b.sent(m); len(s) != 1 || s[0].SessionID != pageSession {
					t.Errorf("%s was sent %v; want once on the page", m, s)
				}
			}
			d := b.sent("Browser.setDownloadBehavior")
			if len(d) != 1 || d[0].SessionID != "" || string(d[0].Params) != `{"behavior":"deny","browserContextId":"C1"}` {
				t.Errorf("downloads were set with %v; want them denied in the page's context", d)
			}
		})
	}
}

func TestReleasingAPageGivesItsBrowserBackOnce(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, served{})
	r, _ := newRenderer(&browsers{next: []*scriptedBrowser{b}})
	got := render(t, r, "url="+startURL, renderLimit)
	if got.err != nil {
		t.Fatal(got.err)
	}
	got.page.Release()
	got.page.Release()
	// The release inside the render counts once more: a lease's Release
	// is safe to repeat, and every path calls it.
	if n := b.lease.released.Load(); n != 3 {
		t.Errorf("the lease was released %d times; want the page's two and the render's own", n)
	}
	(&Page{}).Release() // a plain fetch's page holds no browser
}
