package observability_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// TestCacheLookupsAreCountedByResultAndSource follows one glimpse through
// every way it answers a request and reads glimpse_cache_requests_total
// after each: a render of its own, a hit from memory, a stale answer with
// its refresh, a bypass, and an identical request that joins a render
// already running. (A hit from the store replicas share is counted in the
// api package's tests, with two replicas on one store.)
func TestCacheLookupsAreCountedByResultAndSource(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a glimpse with Chromium; skipped with -short")
	}
	app := e2e.StartApp(t, nil)
	const page = `<!doctype html><html lang="en"><title>Counted</title><p>Text.</p></html>`
	gate := make(chan struct{})
	var held atomic.Int32
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/page": e2e.HTML(page),
		"/slow": func(w http.ResponseWriter, r *http.Request) {
			held.Add(1)
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
			e2e.HTML(page)(w, r)
		},
	})
	var shift atomic.Int64
	app.Server.SetClock(func() time.Time { return time.Now().Add(time.Duration(shift.Load())) })
	const q = "ttl=10m&staleTtl=4m&prerender=false"

	type outcome struct{ result, source string }
	outcomes := []outcome{
		{"hit", "memory"}, {"hit", "shared"}, {"stale", "memory"}, {"stale", "shared"},
		{"miss", "render"}, {"miss", "joined"}, {"bypass", "render"}, {"bypass", "joined"},
	}
	counts := func() map[outcome]float64 {
		out := map[outcome]float64{}
		for _, o := range outcomes {
			out[o] = e2e.Counter(t, app.Registry, "glimpse_cache_requests_total", map[string]string{"result": o.result, "source": o.source})
		}
		return out
	}
	expect := func(step string, before map[outcome]float64, rose ...outcome) {
		t.Helper()
		after := counts()
		for _, o := range outcomes {
			want := before[o]
			for _, r := range rose {
				if r == o {
					want++
				}
			}
			if after[o] != want {
				t.Errorf("%s: glimpse_cache_requests_total{result=%q,source=%q} is %v, want %v", step, o.result, o.source, after[o], want)
			}
		}
	}
	get := func(step, extra, wantStatus string) {
		t.Helper()
		a := app.Get(ps.URL+"/page", extra)
		if a.HTTP != 200 || a.Header.Get("x-cache-status") != wantStatus {
			t.Fatalf("%s: %d with x-cache-status %q, want 200 %s: %s", step, a.HTTP, a.Header.Get("x-cache-status"), wantStatus, a.Raw)
		}
	}

	before := counts()
	get("the first request", q, "MISS")
	expect("the first request", before, outcome{"miss", "render"})

	before = counts()
	get("the second request", q, "HIT")
	expect("the second request", before, outcome{"hit", "memory"})

	shift.Store(int64(7 * time.Minute)) // inside the refresh window
	before = counts()
	get("a request inside the refresh window", q, "STALE")
	expect("a request inside the refresh window", before, outcome{"stale", "memory"})
	e2e.PollUntil(t, 10*time.Second, "the background refresh to fetch the page", func() bool { return ps.Hits["/page"].Load() >= 2 })

	before = counts()
	get("a forced request", q+"&force=true", "BYPASS")
	expect("a forced request", before, outcome{"bypass", "render"})

	// Two identical requests while the page is held: the second joins the
	// first one's render instead of starting its own.
	before = counts()
	replies := make(chan e2e.Reply, 2)
	ask := func() { replies <- app.TryGet(ps.URL+"/slow", q) }
	go ask()
	e2e.PollUntil(t, 20*time.Second, "the first request to reach the page", func() bool { return held.Load() == 1 })
	go ask()
	// The second request reaches the running render within moments; the
	// page is held long enough for a loaded machine too.
	time.Sleep(2 * time.Second)
	close(gate)
	for range 2 {
		if r := <-replies; r.Err != nil || r.HTTP != 200 {
			t.Fatalf("a request for the held page: %s", r)
		}
	}
	if n := held.Load(); n != 1 {
		t.Fatalf("the held page was fetched %d times; the second request should have joined the first one's render", n)
	}
	expect("two identical requests at once", before, outcome{"miss", "render"}, outcome{"miss", "joined"})
}
