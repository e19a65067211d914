package isolation_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// pageReadLimit scales the read limit of a page's connection down 64
// times, so a page can pass it with a few megabytes.
const pageReadLimit = 4 << 20

// floodPage poisons the prototypes glimpse's DOM read would trust in the
// page's own world and then grows its document to 1.2 M non-ASCII
// characters: within the read's bound of characters, but each travels as
// a six-byte escape, so the read's reply is over pageReadLimit.
const floodPage = `<!doctype html><html><head><title>flood</title><script>
String.prototype.slice = function () { return String(this); };
Object.defineProperty(Element.prototype, "outerHTML", {get() { return "\u00e9".repeat(5e6); }});
</script></head><body><script>
document.body.append(document.createTextNode("\u00e9".repeat(1200000)));
</script></body></html>`

// slowPage answers after a pause, so the renders of it are in flight on
// the sidecar when the flood arrives.
func slowPage(title string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(1500 * time.Millisecond)
		e2e.HTML(`<!doctype html><html><head><title>`+title+`</title></head><body><p>Calm.</p></body></html>`)(w, r)
	}
}

// A page whose DOM read passes its connection's read limit fails alone:
// its answer is EFETCH, it is not tried on another browser, and the four
// renders beside it on the same sidecar succeed.
func TestAPageOverTheReadLimitEndsOnlyItsOwnLease(t *testing.T) {
	app := e2e.StartApp(t, func(c *orchestrator.Config) {
		c.PageReadLimit = pageReadLimit
		c.SidecarConcurrency = 5
	})
	site := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/flood": e2e.HTML(floodPage),
		"/calm":  slowPage("calm page"),
	})
	retries := e2e.Gathered(t, app.Registry, "glimpse_pool_retries_total")

	var wg sync.WaitGroup
	calm := make([]e2e.Reply, 4)
	for i := range calm {
		wg.Go(func() {
			calm[i] = app.TryDo(e2e.Query(site.URL+"/calm?n="+string(rune('a'+i)), "prerender=true&force=true"))
		})
	}
	// The calm pages are leased and waiting for their server.
	time.Sleep(400 * time.Millisecond)
	flood := app.TryGet(site.URL+"/flood", "prerender=true&force=true")
	wg.Wait()

	if flood.Err != nil || flood.HTTP != http.StatusFailedDependency || flood.Code != "EFETCH" {
		t.Errorf("the flooding page answered %s; want 424 EFETCH", flood)
	}
	if n := site.Hits["/flood"].Load(); n != 1 {
		t.Errorf("the flooding page was fetched %d times; want once, without a retry", n)
	}
	if got := e2e.Gathered(t, app.Registry, "glimpse_pool_retries_total"); got != retries {
		t.Errorf("glimpse_pool_retries_total went from %v to %v; want no retry", retries, got)
	}
	for i, r := range calm {
		if r.Err != nil || r.HTTP != http.StatusOK || r.Field("title") != "calm page" {
			t.Errorf("calm render %d beside the flood answered %s; want 200 with its title", i, r)
		}
	}
	// The sidecar's browser is still the one it was, and serves.
	if a := app.Get(site.URL+"/calm?n=after", "prerender=true"); a.HTTP != http.StatusOK {
		t.Errorf("a render after the flood answered %d %s", a.HTTP, a.Code)
	}
	if snap := app.Pool.Snapshot(); len(snap.Sidecars) != 1 || snap.Sidecars[0].State != metrics.SidecarHealthy {
		t.Errorf("the pool after the flood: %+v; want its one sidecar healthy", snap)
	}
}
