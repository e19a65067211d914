package render

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/cdp/cdptest"
)

// withPageConnection gives b's lease a page on a connection of its own,
// as the pool's leases have, with the given read limit.
func withPageConnection(t *testing.T, b *scriptedBrowser, limit int64) *cdp.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cdptest.WaitLimit)
	defer cancel()
	pc, err := cdp.Dial(ctx, b.srv.URL(), cdp.WithPageTarget(pageTarget), cdp.WithReadLimit(limit),
		cdp.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatalf("dialling the scripted page: %v", err)
	}
	t.Cleanup(func() { pc.Close() })
	b.lease.page = pc.Browser()
	return pc
}

func TestGlimpsesScriptsRunInItsOwnWorld(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, served{})
	r, _ := newRenderer(&browsers{next: []*scriptedBrowser{b}})
	if got := render(t, r, "url="+startURL+"&prerender=true&click=%23go&scroll=%23end&data.c.attr=markdown", renderLimit); got.err != nil {
		t.Fatalf("the render failed: %v", got.err)
	}
	evals := b.sent("Runtime.evaluate")
	if len(evals) == 0 {
		t.Fatal("the render evaluated nothing")
	}
	named := 0
	for _, m := range evals {
		p := paramsOf[evalParams](t, m)
		if p.ContextID == 0 && p.ObjectGroup == scrollListenerGroup && (p.Expression == "window" || p.Expression == "document") {
			named++ // names, not scripts: the page's own objects, for their listeners (hearsScroll)
			continue
		}
		if p.ContextID != glimpseContext {
			t.Errorf("glimpse's script %.60q ran in context %d; want its own world's %d", p.Expression, p.ContextID, glimpseContext)
		}
	}
	if named != 2 {
		t.Errorf("the scroll-through named %d of the page's objects in its main world; want its window and its document", named)
	}
	for _, m := range b.sent("Page.createIsolatedWorld") {
		if p := paramsOf[map[string]any](t, m); p["frameId"] != string(pageTarget) || p["worldName"] != glimpseWorld {
			t.Errorf("a world was made with %s; want glimpse's on the main frame", jsonOf(p))
		}
	}
}

func TestAPageOverItsConnectionsLimitIsItsOwnFailure(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("\u00e9", 64<<10)
	cases := []struct {
		name string
		eval func(c *cdptest.Call, p evalParams) bool
	}{
		{"a DOM read over the limit", func(c *cdptest.Call, p evalParams) bool {
			if !strings.Contains(p.Expression, "root.outerHTML") {
				return false
			}
			_ = c.Reply(value(map[string]any{"html": "<title>" + huge + "</title>", "href": startURL}))
			return true
		}},
		{"a wait for the head over the limit", func(c *cdptest.Call, p evalParams) bool {
			if !strings.HasPrefix(p.Expression, "!!(document.title") {
				return false
			}
			_ = c.Reply(value(huge))
			return true
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name+" fails the page alone, without a retry", func(t *testing.T) {
			t.Parallel()
			b := newBrowser(t, served{Eval: tc.eval, LoadFirst: true})
			withPageConnection(t, b, 64<<10)
			spare := newBrowser(t, served{})
			bs := &browsers{next: []*scriptedBrowser{b, spare}}
			r, m := newRenderer(bs)
			got := render(t, r, "url="+startURL+"&prerender=true", renderLimit)
			if kindOf(got.err) != Unreadable || !strings.Contains(got.err.Error(), "more than glimpse reads") {
				t.Fatalf("the render failed with %v (kind %v); want the page's own failure", got.err, kindOf(got.err))
			}
			if n := len(bs.leases()); n != 1 {
				t.Errorf("the render leased %d browsers; want one, without a retry", n)
			}
			if b.lease.IsLost() {
				t.Error("the browser's connection ended with the page's")
			}
			if v := testutil.ToFloat64(m.Retries); v != 0 {
				t.Errorf("retries counted %v; want 0", v)
			}
		})
	}
}

func TestGlimpsesScriptThatThrowsIsThePagesFailure(t *testing.T) {
	t.Parallel()
	for _, step := range []struct{ name, phrase, query string }{
		{"finding the element to click", "el.scrollIntoView({block: \"center\"", "&click=%23go"},
		{"finding the element to scroll to", "block: \"start\"", "&scroll=%23end"},
	} {
		t.Run(step.name, func(t *testing.T) {
			t.Parallel()
			b := newBrowser(t, served{Eval: func(c *cdptest.Call, p evalParams) bool {
				if !strings.Contains(p.Expression, step.phrase) {
					return false
				}
				_ = c.Reply(exception("TypeError: the page took this away"))
				return true
			}})
			r, _ := newRenderer(&browsers{next: []*scriptedBrowser{b}})
			got := render(t, r, "url="+startURL+"&prerender=true"+step.query, renderLimit)
			if kindOf(got.err) != Unreadable || !strings.Contains(got.err.Error(), "took this away") {
				t.Fatalf("the render failed with %v (kind %v); want the page's failure", got.err, kindOf(got.err))
			}
		})
	}
}
