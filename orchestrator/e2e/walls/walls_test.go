package walls_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// Every vendor's wall, read by a real Chromium, answers EPROXYNEEDED with
// the vendor in its message and the wall's status class, never a success
// with the challenge's title.
func TestBotWallsAnswerEPROXYNEEDEDNamingTheVendor(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	routes := map[string]http.HandlerFunc{}
	for i, s := range wallShapes {
		routes["/wall/"+string(rune('a'+i))] = s.handler()
	}
	ps := e2e.NewPageServer(t, routes)
	for i, s := range wallShapes {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			path := "/wall/" + string(rune('a'+i))
			for _, mode := range []string{"prerender=true", "", "prerender=false"} {
				a := app.Get(ps.URL+path, mode)
				want := http.StatusForbidden
				if s.status == http.StatusTooManyRequests {
					want = s.status
				}
				if a.HTTP != want || a.Status != "fail" || a.Code != "EPROXYNEEDED" || !strings.Contains(a.Message, s.vendor) {
					t.Fatalf("%s (%s): HTTP %d %s %s: %s; want %d EPROXYNEEDED naming %s", s.name, mode, a.HTTP, a.Status, a.Code, a.Message, want, s.vendor)
				}
				if a.Header.Get("x-cache-status") == "HIT" {
					t.Errorf("a wall was answered from the cache: %v", a.Header)
				}
			}
			// Never cached as the page: each request above reached the page.
			if got := ps.Hits[path].Load(); got < 3 {
				t.Errorf("the wall was fetched %d times for three requests; its answer was cached", got)
			}
		})
	}
}

// Pages that mention Cloudflare, carry its cookie or embed a CAPTCHA
// beside their content are the pages.
func TestPagesThatLookLikeWallsAnswerSuccess(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	routes := map[string]http.HandlerFunc{}
	for i, s := range lookAlikes {
		routes["/page/"+string(rune('a'+i))] = s.handler()
	}
	ps := e2e.NewPageServer(t, routes)
	for i, s := range lookAlikes {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			for _, mode := range []string{"prerender=true", ""} {
				a := app.Get(ps.URL+"/page/"+string(rune('a'+i)), mode+"&force=true")
				if a.HTTP != 200 || a.Status != "success" || a.Field("title") == nil {
					t.Fatalf("%s (%s): HTTP %d %s %s %s", s.name, mode, a.HTTP, a.Status, a.Code, a.Raw)
				}
				if w := a.Header.Get("x-glimpse-wall"); w != "" {
					t.Errorf("the page is marked as a %s wall", w)
				}
			}
		})
	}
}

// A screenshot alone (meta=false) of a wall is served, as what is there,
// with the vendor in x-glimpse-wall; it is neither cached nor cacheable
// downstream, and the wall is counted by vendor.
func TestAScreenshotOfAWallIsServedMarkedAndNotCached(t *testing.T) {
	t.Parallel()
	app := e2e.StartApp(t, nil)
	s := wallShapes[0] // Cloudflare's challenge
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/challenge": s.handler()})
	for i := range 2 {
		a := app.Get(ps.URL+"/challenge", "meta=false&screenshot=true")
		if a.HTTP != 200 || a.Status != "success" || !a.Has("screenshot") {
			t.Fatalf("request %d: HTTP %d %s %s", i+1, a.HTTP, a.Code, a.Raw)
		}
		if got := a.Header.Get("x-glimpse-wall"); got != "cloudflare" {
			t.Errorf("request %d: x-glimpse-wall is %q, want cloudflare", i+1, got)
		}
		if got := a.Header.Get("cache-control"); got != "no-store" {
			t.Errorf("request %d: cache-control is %q, want no-store", i+1, got)
		}
		if got := a.Header.Get("x-cache-status"); got != "MISS" {
			t.Errorf("request %d: x-cache-status is %q, want MISS", i+1, got)
		}
	}
	if got := ps.Hits["/challenge"].Load(); got != 2 {
		t.Errorf("the wall was fetched %d times for two requests, want 2: its screenshot was cached", got)
	}
	if got := e2e.Counter(t, app.Registry, "glimpse_render_bot_walls_total", map[string]string{"vendor": "cloudflare"}); got != 2 {
		t.Errorf("glimpse_render_bot_walls_total{vendor=cloudflare} = %v, want 2", got)
	}
	if got := e2e.Counter(t, app.Registry, "glimpse_render_bot_walls_total", map[string]string{"vendor": "akamai"}); got != 0 {
		t.Errorf("glimpse_render_bot_walls_total{vendor=akamai} = %v, want 0", got)
	}
}
