package isolation_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// poisoned wraps a body in a page whose head first replaces, in the
// page's own world, what glimpse's scripts would use.
func poisoned(poison, title, body string) string {
	return `<!doctype html><html><head><script>` + poison + `</script><title>` + title + `</title></head><body>` + body + `</body></html>`
}

// Each page poisons a part of its own JavaScript world that glimpse's
// reading, waiting, clicking or measuring would otherwise trust; each
// still gets the answer an honest page gets, because glimpse's scripts run
// in a world of their own.
func TestPoisonedPrototypesDoNotReachGlimpsesScripts(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	const box = `<div id="box" style="position:absolute;left:10px;top:20px;width:123px;height:45px;background:red"></div>`
	const button = `<button id="go" style="position:absolute;left:10px;top:10px;width:80px;height:30px"
onclick="document.title = event.isTrusted ? 'clicked by the mouse' : 'clicked by an event'">Go</button>`
	cases := []struct {
		name  string
		page  string
		query string
		check func(t *testing.T, a e2e.Answer)
	}{
		{
			name: "an outerHTML getter that throws does not stop the DOM read",
			page: poisoned(`Object.defineProperty(Element.prototype, "outerHTML", {get() { throw new Error("no reading here"); }});`,
				"thrower", `<p>Text.</p>`),
			check: wantTitle("thrower"),
		},
		{
			name: "a slice that keeps everything and an inflated outerHTML leave the read its bound",
			page: poisoned(`String.prototype.slice = function () { return String(this) + "!".repeat(1e6); };
Object.defineProperty(Element.prototype, "outerHTML", {get() { return "<title>forged</title>".repeat(1e6); }});`,
				"bounded", `<p>Text.</p>`),
			check: wantTitle("bounded"),
		},
		{
			name: "a Promise that is not one does not cut the wait for the head short",
			page: poisoned(`window.Promise = function () { return {}; };`,
				"", `<script>setTimeout(() => { document.title = "named by a script"; }, 500);</script>`),
			check: wantTitle("named by a script"),
		},
		{
			// The article changes every 50 ms without changing its length
			// until the title is set, late enough that only a read that
			// waits for the document to settle sees it (after the 1.5 s
			// a page gets to name itself), and a second before the early
			// read's cap, which a busy machine's slow timers must not
			// reach first; a page still loading (its frame is slow) is
			// read early only once its document keeps its shape.
			name: "a Number.prototype that lies does not make a changing document look settled",
			page: poisoned(`Number.prototype.toString = function () { return "same"; };`, "",
				`<article id="a">tick</article><iframe src="/slow"></iframe><script>
const a = document.getElementById("a");
let i = 0;
const tick = setInterval(() => { a.textContent = "tick " + (++i % 7); }, 50);
setTimeout(() => { clearInterval(tick); document.title = "settled"; }, 2000);
</script>`),
			check: wantTitle("settled"),
		},
		{
			name: "a getBoundingClientRect that lies does not move the element screenshot",
			page: poisoned(`Element.prototype.getBoundingClientRect = function () { return {left: 0, top: 0, width: 0, height: 0, right: 0, bottom: 0}; };`,
				"boxed", box),
			query: "screenshot.element=%23box&meta=false",
			check: func(t *testing.T, a e2e.Answer) {
				t.Helper()
				shot, _ := a.Field("screenshot").(map[string]any)
				if a.HTTP != http.StatusOK || shot == nil || shot["width"] != float64(123) || shot["height"] != float64(45) {
					t.Errorf("the element screenshot answered %d %s %s with %v; want the box's 123x45", a.HTTP, a.Code, a.Message, shot)
				}
			},
		},
		{
			name: "a getBoundingClientRect that lies does not turn a click into a synthetic one",
			page: poisoned(`Element.prototype.getBoundingClientRect = function () { return {left: -500, top: -500, width: 1, height: 1, right: -499, bottom: -499}; };`,
				"not clicked", button),
			query: "click=%23go",
			check: wantTitle("clicked by the mouse"),
		},
		{
			name:  "a querySelector that finds nothing does not hide the element to click",
			page:  poisoned(`Document.prototype.querySelector = function () { return null; };`, "not clicked", button),
			query: "click=%23go&waitForSelector=%23go",
			check: wantTitle("clicked by the mouse"),
		},
	}
	site := map[string]http.HandlerFunc{"/slow": func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(4 * time.Second):
		case <-r.Context().Done():
		}
		e2e.HTML("<p>late frame</p>")(w, r)
	}}
	for i, tc := range cases {
		site["/"+string(rune('a'+i))] = e2e.HTML(tc.page)
	}
	ps := e2e.NewPageServer(t, site)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q := "prerender=true"
			if tc.query != "" {
				q += "&" + tc.query
			}
			tc.check(t, app.Get(ps.URL+"/"+string(rune('a'+i)), q))
		})
	}
}

func wantTitle(title string) func(t *testing.T, a e2e.Answer) {
	return func(t *testing.T, a e2e.Answer) {
		t.Helper()
		if a.HTTP != http.StatusOK || a.Field("title") != title {
			t.Errorf("the page answered %d %s %s with title %v; want 200 with %q", a.HTTP, a.Code, a.Message, a.Field("title"), title)
		}
	}
}
