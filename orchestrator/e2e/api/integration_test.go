package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

func TestAPIAnswersTheTitleOfARealPage(t *testing.T) {
	app := e2e.StartApp(t, nil)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/article": e2e.HTML(e2e.ArticlePage)})
	for _, c := range []struct {
		name, prerender, mode string
	}{
		{"a static page is read without a browser by default", "auto", "fetch"},
		{"prerender=true always uses the browser", "true", "prerender"},
		{"prerender=false never does", "false", "fetch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			created := app.QuietPages()
			a := app.Get(ps.URL+"/article", "force=true&prerender="+c.prerender)
			if a.HTTP != 200 || a.Status != "success" {
				t.Fatalf("answer %d %s: %s", a.HTTP, a.Status, a.Raw)
			}
			if got := a.Field("title"); got != "A walk in the park" {
				t.Errorf("title = %v, want the title without the publisher suffix", got)
			}
			if got := a.Field("lang"); got != "en" {
				t.Errorf("lang = %v, want en", got)
			}
			if got := a.Field("url"); got != ps.URL+"/article" {
				t.Errorf("url = %v, want %s", got, ps.URL+"/article")
			}
			for _, h := range []string{"x-request-id", "x-response-time", "x-cache-status", "x-cache-ttl", "x-fetch-mode", "x-pricing-plan", "cache-control"} {
				if a.Header.Get(h) == "" {
					t.Errorf("header %s is missing", h)
				}
			}
			if got := a.Header.Get("x-fetch-mode"); got != c.mode {
				t.Errorf("x-fetch-mode = %q, want %s", got, c.mode)
			}
			// The warm pool refills after a lease, so a browser render shows
			// up in the sidecar's page count and a plain fetch does not.
			time.Sleep(300 * time.Millisecond)
			leased := app.Sidecar.Health().PagesCreated != created
			if leased != (c.mode == "prerender") {
				t.Errorf("a browser page was created: %t, want %t", leased, c.mode == "prerender")
			}
		})
	}
}

func TestScriptBuiltPageFallsBackToTheBrowser(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/shell": e2e.HTML(`<!doctype html><html><head></head><body><div id="root"></div>
<script>document.title = 'Built by script'; document.getElementById('root').textContent = 'Hello';</script></body></html>`)})
	a := app.Get(ps.URL+"/shell", "")
	if a.HTTP != 200 || a.Field("title") != "Built by script" || a.Header.Get("x-fetch-mode") != "prerender" {
		t.Fatalf("got %d, title %v, x-fetch-mode %q: %s", a.HTTP, a.Field("title"), a.Header.Get("x-fetch-mode"), a.Raw)
	}
	if n := ps.Hits["/shell"].Load(); n != 2 {
		t.Errorf("the page was fetched %d times, want 2 (a plain fetch, then the browser)", n)
	}
	a = app.Get(ps.URL+"/shell", "prerender=false&force=true")
	if a.HTTP != 200 || a.Field("title") != nil || a.Header.Get("x-fetch-mode") != "fetch" {
		t.Fatalf("prerender=false: got %d, title %v, x-fetch-mode %q", a.HTTP, a.Field("title"), a.Header.Get("x-fetch-mode"))
	}
}

func TestAPIRefusesLoopbackTargetsByDefault(t *testing.T) {
	app := e2e.StartApp(t, func(c *orchestrator.Config) { c.AllowTargets = nil })
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(e2e.ArticlePage)})
	a := app.Get(ps.URL+"/", "")
	if a.HTTP != 400 || a.Code != "EFORBIDDENURL" {
		t.Fatalf("got %d %s, want 400 EFORBIDDENURL: %s", a.HTTP, a.Code, a.Raw)
	}
	if n := ps.Hits["/"].Load(); n != 0 {
		t.Fatalf("the refused server was hit %d times", n)
	}
}

func TestManyRequestsLeaveNoPageOrContextBehind(t *testing.T) {
	app := e2e.StartApp(t, nil)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(e2e.ArticlePage)})
	pages0, contexts0 := app.Settled(-1, -1)

	for i := range 50 {
		a := app.Get(fmt.Sprintf("%s/?n=%d", ps.URL, i), "force=true&prerender=true")
		if a.HTTP != 200 {
			t.Fatalf("sequential request %d: %d %s", i, a.HTTP, a.Raw)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The race detector slows everything several times over; the
			// budget is for a loaded CI machine, not for speed.
			a := app.Get(fmt.Sprintf("%s/?c=%d", ps.URL, i), "force=true&prerender=true&timeout=60s")
			if a.HTTP != 200 {
				errs <- fmt.Sprintf("concurrent request %d: %d %s", i, a.HTTP, a.Raw)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	pages, contexts := app.Settled(pages0, contexts0)
	if pages != pages0 || contexts != contexts0 {
		t.Fatalf("after 100 requests the browser has %d pages and %d contexts; it started with %d and %d", pages, contexts, pages0, contexts0)
	}
}

func TestClientThatDisconnectsMidRenderLeavesNothingOpen(t *testing.T) {
	app := e2e.StartApp(t, nil)
	release := make(chan struct{})
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/slow": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
			}
			e2e.HTML(e2e.ArticlePage)(w, r)
		},
	})
	defer close(release)
	pages0, contexts0 := app.Settled(-1, -1)

	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, app.URL()+"/?prerender=true&url="+ps.URL+"/slow", nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the request finished (%d) although the client gave up", resp.StatusCode)
	}
	pages, contexts := app.Settled(pages0, contexts0)
	if pages != pages0 || contexts != contexts0 {
		t.Fatalf("after a client gave up the browser has %d pages and %d contexts; it started with %d and %d", pages, contexts, pages0, contexts0)
	}
}

func TestFullQueueAnswersBusyAtOnce(t *testing.T) {
	app := e2e.StartApp(t, func(c *orchestrator.Config) { c.SidecarConcurrency = 1; c.QueueSize = 1 })
	gate := make(chan struct{})
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/slow": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-gate:
			case <-time.After(15 * time.Second):
			}
			e2e.HTML(e2e.ArticlePage)(w, r)
		},
	})
	results := make(chan e2e.Answer, 3)
	for i := range 2 {
		go func() { results <- app.Get(fmt.Sprintf("%s/slow?i=%d", ps.URL, i), "prerender=true") }()
		time.Sleep(300 * time.Millisecond) // one holds the browser, one waits in the queue
	}
	start := time.Now()
	a := app.Get(ps.URL+"/slow?i=third", "prerender=true")
	if a.HTTP != 503 || a.Code != "EBUSY" {
		t.Fatalf("third request: %d %s, want 503 EBUSY: %s", a.HTTP, a.Code, a.Raw)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("EBUSY took %s; it must answer at once", d)
	}
	if a.Header.Get("retry-after") == "" {
		t.Error("EBUSY without retry-after")
	}
	close(gate)
	for range 2 {
		if r := <-results; r.HTTP != 200 {
			t.Errorf("an admitted request failed: %d %s", r.HTTP, r.Raw)
		}
	}
}

func TestMetadataSetByScriptAfterLoadIsRead(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/spa": e2e.HTML(`<!doctype html><html><head></head><body><div id=app></div>
<script>
window.addEventListener('load', () => setTimeout(() => {
  document.title = 'Rendered by script';
  const m = document.createElement('meta'); m.name = 'description'; m.content = 'Filled in after load.';
  document.head.appendChild(m);
  document.documentElement.lang = 'fr';
}, 300));
</script></body></html>`)})
	a := app.Get(ps.URL+"/spa", "")
	if a.HTTP != 200 {
		t.Fatalf("%d %s", a.HTTP, a.Raw)
	}
	if got := a.Field("title"); got != "Rendered by script" {
		t.Errorf("title = %v", got)
	}
	if got := a.Field("description"); got != "Filled in after load." {
		t.Errorf("description = %v", got)
	}
	if got := a.Field("lang"); got != "fr" {
		t.Errorf("lang = %v", got)
	}
}

func TestRedirectChains(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/hop/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/hop/"), "%d", &n)
		if n <= 0 {
			e2e.HTML(e2e.ArticlePage)(w, r)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
	srv := e2e.NewMuxServer(t, mux)
	cases := []struct {
		name string
		hops int
		code string
	}{
		{"ten hops are followed", 10, ""},
		{"eleven hops are too many", 11, "EMAXREDIRECTS"},
		{"endless redirects are too many", 1000, "EMAXREDIRECTS"},
	}
	for _, c := range cases {
		for _, mode := range []string{"auto", "true"} {
			t.Run(c.name+" with prerender="+mode, func(t *testing.T) {
				a := app.Get(fmt.Sprintf("%s/hop/%d", srv.URL, c.hops), "force=true&prerender="+mode)
				if c.code == "" {
					if a.HTTP != 200 || a.Field("url") != fmt.Sprintf("%s/hop/0", srv.URL) {
						t.Fatalf("got %d %s", a.HTTP, a.Raw)
					}
					return
				}
				if a.Code != c.code || a.HTTP != 400 {
					t.Fatalf("got %d %s, want 400 %s", a.HTTP, a.Raw, c.code)
				}
			})
		}
	}
}

func TestPageThatNeverLoadsTimesOut(t *testing.T) {
	app := e2e.StartApp(t, nil)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/never": func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		},
	})
	pages0, contexts0 := app.Settled(-1, -1)
	start := time.Now()
	a := app.Get(ps.URL+"/never", "timeout=2s&prerender=true")
	took := time.Since(start)
	if a.HTTP != 504 || a.Code != "ETIMEOUT" {
		t.Fatalf("got %d %s, want 504 ETIMEOUT", a.HTTP, a.Raw)
	}
	if took > 2500*time.Millisecond {
		t.Errorf("ETIMEOUT came after %s; the budget was 2s", took)
	}
	pages, contexts := app.Settled(pages0, contexts0)
	if pages != pages0 || contexts != contexts0 {
		t.Fatalf("after a time-out the browser has %d pages and %d contexts; it started with %d and %d", pages, contexts, pages0, contexts0)
	}
}

func TestStaleEntryIsServedAtOnceAndRefreshedInTheBackground(t *testing.T) {
	app := e2e.StartApp(t, nil)
	// prerender=false: each render is one plain fetch, so the page's hits
	// count renders; under load a fetch may otherwise be handed to a
	// browser, which fetches the page again. The page names no logo, so
	// the answer probes /favicon.ico, which the "/" pattern would also
	// count: it has its own route.
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/":            e2e.HTML(e2e.ArticlePage),
		"/favicon.ico": http.NotFound,
	})
	var shift atomic.Int64
	app.Server.SetClock(func() time.Time { return time.Now().Add(time.Duration(shift.Load())) })

	if a := app.Get(ps.URL+"/", "ttl=1m&staleTtl=0&prerender=false"); a.Header.Get("x-cache-status") != "MISS" {
		t.Fatalf("first request: %s", a.Header.Get("x-cache-status"))
	}
	shift.Store(int64(2 * time.Minute)) // past the ttl: served stale once
	start := time.Now()
	a := app.Get(ps.URL+"/", "ttl=1m&staleTtl=0&prerender=false")
	if a.HTTP != 200 || a.Header.Get("x-cache-status") != "STALE" {
		t.Fatalf("stale request: %d %s", a.HTTP, a.Header.Get("x-cache-status"))
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("the stale answer took %s; it must not wait for the refresh", d)
	}
	if a.Header.Get("cache-control") != "public, immutable, max-age=0" {
		t.Errorf("cache-control = %q for a stale answer", a.Header.Get("cache-control"))
	}
	e2e.PollUntil(t, 10*time.Second, "the background refresh fetching the page", func() bool { return ps.Hits["/"].Load() >= 2 })
	// The refresh stores its answer after the target answered it: wait
	// for it, or the clock below moves before the new answer is stored
	// and that answer is fresh at the later time. Counted after it, so
	// that a second refresh would be seen too.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := app.Server.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if n := ps.Hits["/"].Load(); n != 2 {
		t.Fatalf("the page was fetched %d times; the first render and the stale hit's one refresh make 2", n)
	}
	// Past the ttl without staleTtl: a normal miss.
	shift.Store(int64(2*time.Minute + 2*time.Minute))
	if a := app.Get(ps.URL+"/", "ttl=1m&prerender=false"); a.Header.Get("x-cache-status") != "MISS" {
		t.Fatalf("expired without staleTtl: %s", a.Header.Get("x-cache-status"))
	}
}

func TestAnAnswerCutShortByItsTimeoutServesNoCallerWithMoreTime(t *testing.T) {
	// Not parallel: the page is read when its load budget runs out, a
	// share of the timeout that renders beside it would eat into.
	app := e2e.Shared(t)
	var fetches atomic.Int64
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		// The page is here at once; a script on it never finishes, so the
		// page never loads and is read when its load budget runs out.
		"/": func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/" {
				http.NotFound(w, r) // the browser's favicon is not a fetch of the page
				return
			}
			fetches.Add(1)
			e2e.HTML(`<!doctype html><html lang="en"><head><title>Still loading</title></head><body><p>Words.</p><script async src="/hang"></script></body></html>`)(w, r)
		},
		"/hang": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/javascript")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		},
	})
	get := func(timeout string) e2e.Answer {
		t.Helper()
		a := app.Get(ps.URL+"/", "prerender=true&ping=false&timeout="+timeout)
		if a.HTTP != 200 || a.Field("title") != "Still loading" {
			t.Fatalf("timeout=%s: %d %s", timeout, a.HTTP, a.Raw)
		}
		return a
	}
	if a := get("3s"); a.Header.Get("x-cache-status") != "MISS" || fetches.Load() != 1 {
		t.Fatalf("the first render: x-cache-status %q after %d fetches", a.Header.Get("x-cache-status"), fetches.Load())
	}
	if a := get("3s"); a.Header.Get("x-cache-status") != "HIT" || fetches.Load() != 1 {
		t.Errorf("a caller with the same timeout: x-cache-status %q after %d fetches; want a HIT", a.Header.Get("x-cache-status"), fetches.Load())
	}
	if a := get("6s"); a.Header.Get("x-cache-status") != "MISS" || fetches.Load() != 2 {
		t.Errorf("a caller with more time: x-cache-status %q after %d fetches; want a render of its own, not the answer cut short at 3s",
			a.Header.Get("x-cache-status"), fetches.Load())
	}
}

// TestAnImageHostThatNeverAnswersCostsOneWaitNotOnePerRequest is the
// regression test of the asset-probe stall: a page whose first image
// candidate never answers held every request of it for the whole probe
// budget, one candidate after another.
func TestAnImageHostThatNeverAnswersCostsOneWaitNotOnePerRequest(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	// givenUp counts, per image, the requests that ended: the probe's
	// budget ran out and it hung up.
	var imageGivenUp, iconGivenUp atomic.Int64
	silent := func(n *atomic.Int64) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
			n.Add(1)
		}
	}
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/": e2e.HTML(`<!doctype html><html lang="en"><head><title>Stalling images</title>
<meta property="og:image" content="/silent.png"><link rel="icon" href="/silent-icon.png"></head><body><p>Words.</p></body></html>`),
		"/silent.png":      silent(&imageGivenUp),
		"/silent-icon.png": silent(&iconGivenUp),
	})
	first := app.Get(ps.URL+"/", "force=true")
	if first.HTTP != 200 || first.Field("title") != "Stalling images" {
		t.Fatalf("first: %d %s", first.HTTP, first.Raw)
	}
	// The probes finish within their own budget.
	e2e.PollUntil(t, 20*time.Second, "the probes of both silent images to give up", func() bool {
		return imageGivenUp.Load() > 0 && iconGivenUp.Load() > 0
	})
	for i := range 3 {
		start := time.Now()
		a := app.Get(ps.URL+"/", "force=true")
		if a.HTTP != 200 {
			t.Fatalf("request %d: %d %s", i, a.HTTP, a.Raw)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("request %d took %s; a host known not to answer must not be waited for again", i, d)
		}
	}
}
