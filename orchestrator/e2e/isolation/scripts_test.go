package isolation_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// hostileScriptPage makes whatever a caller's script reads or throws in
// its world a string of 1.2 M non-ASCII characters (7 MB as the browser
// sends it, over pageReadLimit), and takes away the String methods a
// wrapper around the script might use to cut it.
const hostileScriptPage = `<!doctype html><html><head><title>hostile</title><script>
const huge = "\u00e9".repeat(1200000);
Object.defineProperty(Document.prototype, "title", {get() { return huge; }, set(v) {}});
String.prototype.slice = String.prototype.substring = String.prototype.substr = function () { return huge; };
Error.prototype.toString = function () { return huge; };
</script></head><body><p>A page that shapes what the caller's scripts give.</p></body></html>`

// A caller's script on a page that shapes what it returns or throws
// gives back nothing that passes the read limit of the page's connection:
// the render answers as it would without the page's doing, once, and the
// renders beside it on the same sidecar are not touched.
func TestWhatACallersScriptGivesStaysInThePage(t *testing.T) {
	app := e2e.StartApp(t, func(c *orchestrator.Config) {
		c.PageReadLimit = pageReadLimit
		c.SidecarConcurrency = 5
	})
	site := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/hostile": e2e.HTML(hostileScriptPage),
		"/calm":    slowPage("calm page"),
	})
	cases := []struct {
		name   string
		script string
		status int
		code   string
	}{
		{"a script that reads a getter the page made huge", `document.title`, http.StatusOK, ""},
		{"a script that returns a huge value of its own", `"\u00e9".repeat(1200000)`, http.StatusOK, ""},
		{"a promise that settles into a huge value", `new Promise(r => setTimeout(() => r(document.title), 50))`, http.StatusOK, ""},
		{"a script that throws an error the page made huge to describe", `throw new Error("short")`, http.StatusBadRequest, "EINVALQUERY"},
		{"a script that throws a huge string", `throw document.title`, http.StatusBadRequest, "EINVALQUERY"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var wg sync.WaitGroup
			calm := make([]e2e.Reply, 4)
			for j := range calm {
				wg.Go(func() {
					calm[j] = app.TryDo(e2e.Query(site.URL+"/calm?case="+string(rune('a'+i))+"&n="+string(rune('a'+j)), "prerender=true&force=true"))
				})
			}
			time.Sleep(400 * time.Millisecond)
			hits := site.Hits["/hostile"].Load()
			r := app.TryGet(site.URL+"/hostile?case="+string(rune('a'+i)), "prerender=true&force=true&scripts="+url.QueryEscape(tc.script))
			wg.Wait()

			if r.Err != nil || r.HTTP != tc.status || r.Code != tc.code {
				t.Errorf("the render answered %s; want %d %s", r, tc.status, tc.code)
			}
			if tc.status == http.StatusOK && r.Field("title") != "hostile" {
				t.Errorf("the render read the title %v; want the document's own, hostile", r.Field("title"))
			}
			if len(r.Message) > 1000 || strings.Contains(r.Message, "\u00e9\u00e9\u00e9") {
				t.Errorf("the error message carries what the page made of the exception (%d bytes)", len(r.Message))
			}
			if n := site.Hits["/hostile"].Load() - hits; n != 1 {
				t.Errorf("the hostile page was fetched %d times; want once", n)
			}
			for j, c := range calm {
				if c.Err != nil || c.HTTP != http.StatusOK || c.Field("title") != "calm page" {
					t.Errorf("calm render %d beside it answered %s; want 200 with its title", j, c)
				}
			}
		})
	}
}
