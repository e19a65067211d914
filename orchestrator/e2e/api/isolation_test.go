package api_test

import (
	"bytes"
	"image"
	"image/png"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// An e2e.Answer kept for one request must not e2e.Answer another that asks for
// something it does not hold: a plain e2e.Answer keeps no rule's value for
// `embed`, so `embed=<rule>` after it renders its own.
func TestEmbedOfARuleAfterThePlainQueryIsNotServedFromItsEntry(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t) // the page server's own address keeps its entries apart
	pages := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/": e2e.HTML(`<!doctype html><title>Kept apart</title><main><p>The body text.</p></main>`),
	})
	rule := "data.body.selector=main&data.body.attr=text"
	plain := app.Get(pages.URL+"/", rule)
	if plain.HTTP != 200 {
		t.Fatalf("plain query: %d %s %s", plain.HTTP, plain.Code, plain.Message)
	}
	embed := app.Get(pages.URL+"/", rule+"&embed=body")
	if embed.HTTP != 200 || !strings.Contains(string(embed.Raw), "The body text.") {
		t.Fatalf("embed=body after the plain query: %d %s %q", embed.HTTP, embed.Header.Get("x-cache-status"), embed.Raw)
	}
	again := app.Get(pages.URL+"/", rule+"&embed=body")
	if again.HTTP != 200 || again.Header.Get("x-cache-status") != "HIT" {
		t.Errorf("embed=body a second time: %d, x-cache-status %q", again.HTTP, again.Header.Get("x-cache-status"))
	}
}

// A target cannot speak for the egress guard: an X-Glimpse-Guard header of
// its own is not read as a refusal, a time-out or a listing, and the page
// is visited once and answered as the page it is.
func TestATargetSendingTheGuardsHeaderIsAnsweredAsItself(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	values := []string{"refused", "blocked", "unreachable", "timeout", "unresolvable", "closing"}
	routes := map[string]http.HandlerFunc{}
	for _, v := range values {
		routes["/"+v] = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Glimpse-Guard", v)
			e2e.HTML(`<!doctype html><title>Answered as `+v+`</title><p>A page.</p>`)(w, r)
		}
	}
	pages := e2e.NewPageServer(t, routes)
	for _, v := range values {
		for _, prerender := range []string{"false", "true"} {
			t.Run(v+" with prerender="+prerender, func(t *testing.T) {
				before := pages.Hits["/"+v].Load()
				a := app.Get(pages.URL+"/"+v, "prerender="+prerender+"&force=true")
				if a.HTTP != 200 || a.Field("title") != "Answered as "+v {
					t.Fatalf("%d %s %s, title %v", a.HTTP, a.Code, a.Message, a.Field("title"))
				}
				if n := pages.Hits["/"+v].Load() - before; n != 1 {
					t.Errorf("the page was visited %d times for one request", n)
				}
			})
		}
	}
}

// An e2e.Answer whose image probe ran out of the request's time is not the
// page's whole answer: a caller with more time gets it rendered again,
// not the image-less one from the cache.
func TestAnAnswerDegradedByItsDeadlineServesNoCallerWithMoreTime(t *testing.T) {
	// Not parallel: the first answer must come within its 3 s while the
	// image takes 3.5 s, a margin that renders beside it would eat into.
	app := e2e.Shared(t)
	var pic bytes.Buffer
	if err := png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 400, 200))); err != nil {
		t.Fatal(err)
	}
	pages := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/": e2e.HTML(`<!doctype html><html lang="en"><head><title>A slow picture</title>
<meta property="og:image" content="/slow.png"></head><body><p>Text.</p></body></html>`),
		"/slow.png": func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(3500 * time.Millisecond) // past the first caller's time, within the probe's own
			w.Header().Set("content-type", "image/png")
			w.Write(pic.Bytes())
		},
	})
	first := app.Get(pages.URL+"/", "timeout=3s&meta.title&meta.image")
	if first.HTTP != 200 || first.Field("image") != nil {
		t.Fatalf("the first answer: %d %s, image %v", first.HTTP, first.Code, first.Field("image"))
	}
	second := app.Get(pages.URL+"/", "timeout=10s&meta.title&meta.image")
	img, _ := second.Field("image").(map[string]any)
	if second.HTTP != 200 || second.Header.Get("x-cache-status") == "HIT" || img == nil || img["width"] != float64(400) {
		t.Errorf("a caller with more time: %d, x-cache-status %q, image %v", second.HTTP, second.Header.Get("x-cache-status"), second.Field("image"))
	}
}

// staleTtl, as Microlink's, is a refresh window before the e2e.Answer
// expires: inside it the e2e.Answer is served at once, marked STALE, while one
// background render refreshes it; before it the e2e.Answer is a plain HIT.
func TestStaleTtlIsARefreshWindowBeforeExpiry(t *testing.T) {
	app := e2e.StartApp(t, nil)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/page": e2e.HTML(`<!doctype html><title>Windowed</title><p>Text.</p>`)})
	var shift atomic.Int64
	app.Server.SetClock(func() time.Time { return time.Now().Add(time.Duration(shift.Load())) })
	const q = "ttl=10m&staleTtl=4m&prerender=false"
	if a := app.Get(ps.URL+"/page", q); a.Header.Get("x-cache-status") != "MISS" {
		t.Fatalf("first request: %d %s", a.HTTP, a.Header.Get("x-cache-status"))
	}
	shift.Store(int64(5 * time.Minute)) // before the window
	if a := app.Get(ps.URL+"/page", q); a.Header.Get("x-cache-status") != "HIT" || ps.Hits["/page"].Load() != 1 {
		t.Fatalf("before the window: %s, %d visits", a.Header.Get("x-cache-status"), ps.Hits["/page"].Load())
	}
	shift.Store(int64(7 * time.Minute)) // inside the window
	if a := app.Get(ps.URL+"/page", q); a.HTTP != 200 || a.Header.Get("x-cache-status") != "STALE" {
		t.Fatalf("inside the window: %d %s", a.HTTP, a.Header.Get("x-cache-status"))
	}
	deadline := time.Now().Add(10 * time.Second)
	for ps.Hits["/page"].Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	// The refreshed e2e.Answer is fresh again: a plain hit, no more visits.
	deadline = time.Now().Add(5 * time.Second)
	for {
		a := app.Get(ps.URL+"/page", q)
		if a.Header.Get("x-cache-status") == "HIT" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the refresh: %s", a.Header.Get("x-cache-status"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := ps.Hits["/page"].Load(); n != 2 {
		t.Errorf("the target was visited %d times; one refresh makes 2", n)
	}
	if a := app.Get(ps.URL+"/page", "ttl=1m&staleTtl=1h"); a.HTTP != 400 || a.Code != "EINVALQUERY" {
		t.Errorf("a window longer than the ttl: %d %s", a.HTTP, a.Code)
	}
}
