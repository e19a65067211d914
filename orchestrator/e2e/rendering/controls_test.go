package rendering_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// Pages for the rendering controls. Titles hold plain words, since the
// title rules cut a "| Site" or "- Site" suffix.
const (
	latePage = `<!doctype html><html><head><title>waiting</title></head><body>
<script>setTimeout(() => { const d = document.createElement("div"); d.id = "late"; document.body.append(d); document.title = "late element arrived"; }, 1500)</script>
</body></html>`
	timerPage = `<!doctype html><html><head><title>before the timer</title></head><body>
<script>setTimeout(() => { document.title = "after the timer"; }, 1000)</script></body></html>`
	schemePage = `<!doctype html><html><head><title>unset</title><style>
h1 { color: rgb(0, 0, 0) } @media (prefers-color-scheme: dark) { h1 { color: rgb(255, 255, 255) } }</style></head>
<body><h1>scheme</h1><script>
document.title = (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light") + " scheme " +
  getComputedStyle(document.querySelector("h1")).color + " on " + (matchMedia("print").matches ? "print" : "screen");
</script></body></html>`
	scriptTitlePage = `<!doctype html><html><head><script>document.title = "built by script";</script></head><body><p>Text.</p></body></html>`
	sizePage        = `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>unset</title></head><body><script>
document.title = ["w" + innerWidth, "h" + innerHeight, "dpr" + devicePixelRatio, "touch" + navigator.maxTouchPoints,
  screen.orientation.type, /iPhone/.test(navigator.userAgent) ? "iphone" : /iPad/.test(navigator.userAgent) ? "ipad" : /Android/.test(navigator.userAgent) ? "android" : "desktop",
  (navigator.userAgent.match(/Chrome\/(\d+)\./) || ["", "none"])[1]].join(" ");
</script></body></html>`
	clickPage = `<!doctype html><html><head><title>not clicked</title></head><body>
<button id="go" onclick="document.title = event.isTrusted ? 'clicked by the mouse' : 'clicked by an event'">Go</button>
<div id="hidden" style="display:none" onclick="document.title = 'hidden clicked'">x</div>
<button id="open" onclick="document.getElementById('menu').hidden = false">Menu</button>
<ul id="menu" hidden><li><button id="item" onclick="document.title = event.isTrusted ? 'item chosen by the mouse' : 'item chosen by an event'">Item</button></li></ul>
</body></html>`
	scrollPage = `<!doctype html><html><head><title>at the top</title></head><body>
<div style="height: 4000px">tall</div><footer id="end">end</footer>
<script>addEventListener("scroll", () => { document.title = scrollY > 1000 ? "scrolled down" : "at the top"; });</script>
</body></html>`
	plainPage   = `<!doctype html><html><head><title>plain page</title></head><body><h1>Heading</h1></body></html>`
	animatePage = `<!doctype html><html><head><title>animated</title><style>
@keyframes appear { from { opacity: 0 } to { opacity: 1 } }
#box { animation: appear 30s linear forwards; opacity: 0 }</style></head><body><div id="box">box</div></body></html>`
	consentPage = `<!doctype html><html><head><title>consent</title></head><body>
<div id="onetrust-banner-sdk">We use cookies</div><div id="CybotCookiebotDialog">Allow all</div><p id="text">Text.</p></body></html>`
	// antiFlickerPage is kept transparent by Google's anti-flicker snippet
	// until a container loads, which here never comes.
	antiFlickerPage = `<!doctype html><html class="async-hide"><head><title>hidden</title>
<style>.async-hide { opacity: 0 !important }</style></head><body><p>Text.</p></body></html>`
)

// adPage loads an image from a host on the test block list, on the same
// page server, so the server counts whether the browser asked for it.
func adPage(w http.ResponseWriter, r *http.Request) {
	_, port, _ := strings.Cut(r.Host, ":")
	w.Header().Set("content-type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><html><head><title>page with an ad</title></head><body>
<script src="http://pixel.ads-test.localhost:%s/ad.js"></script><script src="/own.js"></script></body></html>`, port)
}

// script answers an empty script: a subresource that a metadata render
// loads, where it fails pictures before they are asked for.
func script(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("content-type", "text/javascript")
}

func gif(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("content-type", "image/gif")
	// A 1×1 transparent GIF.
	_, _ = w.Write([]byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff\x21\xf9\x04\x01\x00\x00\x00\x00\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00\x3b"))
}

func TestRenderingControlsInTheBrowser(t *testing.T) {
	// The page's "ads" come from a host under .localhost, which resolves
	// to loopback and is added to the list.
	app := e2e.StartApp(t, func(c *orchestrator.Config) { c.AdblockHosts = []string{"ads-test.localhost"} })
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/late": e2e.HTML(latePage), "/timer": e2e.HTML(timerPage), "/scheme": e2e.HTML(schemePage),
		"/script-title": e2e.HTML(scriptTitlePage), "/size": e2e.HTML(sizePage), "/click": e2e.HTML(clickPage), "/anti-flicker": e2e.HTML(antiFlickerPage),
		"/scroll": e2e.HTML(scrollPage), "/plain": e2e.HTML(plainPage), "/animate": e2e.HTML(animatePage),
		"/consent": e2e.HTML(consentPage), "/ads": adPage, "/ad.js": script, "/own.js": script,
		"/to-listed": func(w http.ResponseWriter, r *http.Request) {
			_, port, _ := strings.Cut(r.Host, ":")
			http.Redirect(w, r, "http://www.ads-test.localhost:"+port+"/plain", http.StatusFound)
		},
	})
	pages0, contexts0 := app.Settled(-1, -1)
	_, port, _ := strings.Cut(ps.Listener.Addr().String(), ":")
	// The subtests that only render run side by side once the others
	// have run alone: the adblock ones count the page server's hits and
	// the app's metrics, and the two whose error must name the step the
	// deadline caught are timed too closely to share the machine. The
	// browser is counted after all of them.
	t.Cleanup(func() {
		if p, c := app.Settled(pages0, contexts0); p != pages0 || c != contexts0 {
			t.Errorf("after the renders the browser has %d pages and %d contexts, want %d and %d", p, c, pages0, contexts0)
		}
	})

	// render asks for a fresh browser render of path with the extra query.
	render := func(t *testing.T, path, extra string) e2e.Answer {
		t.Helper()
		q := "force=true&prerender=true&ping=false"
		if extra != "" {
			q += "&" + extra
		}
		return app.Get(ps.URL+path, q)
	}
	title := func(t *testing.T, a e2e.Answer) string {
		t.Helper()
		if a.HTTP != http.StatusOK {
			t.Fatalf("answer %d: %s", a.HTTP, a.Raw)
		}
		s, _ := a.Field("title").(string)
		return s
	}
	failure := func(t *testing.T, a e2e.Answer, status int, code, param string, msg ...string) {
		t.Helper()
		if a.HTTP != status || a.Code != code {
			t.Fatalf("answer %d %s, want %d %s: %s", a.HTTP, a.Code, status, code, a.Raw)
		}
		var body struct {
			Data map[string]any `json:"data"`
		}
		_ = json.Unmarshal(a.Raw, &body)
		if param != "" {
			if _, ok := body.Data[param]; !ok && !strings.Contains(a.Message, "`"+param+"`") {
				t.Errorf("the error names neither %s in data nor in the message: %s", param, a.Raw)
			}
		}
		for _, m := range msg {
			if !strings.Contains(a.Message, m) {
				t.Errorf("message %q does not contain %q", a.Message, m)
			}
		}
	}

	t.Run("waitForSelector waits for an element added after 1.5 s", func(t *testing.T) {
		t.Parallel()
		if got := title(t, render(t, "/late", "")); got != "waiting" {
			t.Errorf("without waiting the title is %q, want the page's first title", got)
		}
		start := time.Now()
		if got := title(t, render(t, "/late", "waitForSelector=%23late")); got != "late element arrived" {
			t.Errorf("title %q, want the one set with the element", got)
		}
		if took := time.Since(start); took < 1500*time.Millisecond {
			t.Errorf("the answer came after %v, before the element could exist", took)
		}
	})
	t.Run("waitForSelector that never matches ends in ETIMEOUT naming it", func(t *testing.T) {
		a := render(t, "/plain", "waitForSelector=%23never&timeout=3s")
		failure(t, a, http.StatusGatewayTimeout, apierr.CodeTimeout, "waitForSelector", "`#never`")
	})
	t.Run("waitForSelector with a selector the browser cannot parse is EINVALQUERY", func(t *testing.T) {
		t.Parallel()
		a := render(t, "/plain", "waitForSelector="+url.QueryEscape("div[["))
		failure(t, a, http.StatusBadRequest, apierr.CodeInvalidQuery, "waitForSelector", "not a valid CSS selector")
	})
	t.Run("waitForTimeout waits before the page is read", func(t *testing.T) {
		t.Parallel()
		start := time.Now()
		if got := title(t, render(t, "/timer", "waitForTimeout=1500")); got != "after the timer" {
			t.Errorf("title %q, want the one set after a second", got)
		}
		if took := time.Since(start); took < 1500*time.Millisecond {
			t.Errorf("the answer came after %v, before waitForTimeout was over", took)
		}
	})
	t.Run("colorScheme=dark flips a prefers-color-scheme page", func(t *testing.T) {
		t.Parallel()
		if got := title(t, render(t, "/scheme", "")); got != "light scheme rgb(0, 0, 0) on screen" {
			t.Errorf("by default the title is %q", got)
		}
		if got := title(t, render(t, "/scheme", "colorScheme=dark")); got != "dark scheme rgb(255, 255, 255) on screen" {
			t.Errorf("with colorScheme=dark the title is %q", got)
		}
		if got := title(t, render(t, "/scheme", "colorScheme=dark&mediaType=print")); got != "dark scheme rgb(255, 255, 255) on print" {
			t.Errorf("with print media the title is %q; the color scheme and the media type must both hold", got)
		}
	})
	t.Run("javascript=false leaves a script-built title unset", func(t *testing.T) {
		t.Parallel()
		if got := title(t, render(t, "/script-title", "")); got != "built by script" {
			t.Errorf("with JavaScript the title is %q", got)
		}
		// A page without a title makes the render wait for scripts to
		// give it one; with JavaScript off none can (see the report on
		// waitForHead). The timeout keeps a hang short.
		start := time.Now()
		a := render(t, "/script-title", "javascript=false&timeout=10s")
		if a.HTTP != http.StatusOK {
			t.Fatalf("with javascript=false the render failed after %v: %d %s "+
				"(render.go's waitForHead waits for page timers that never fire with JavaScript off)",
				time.Since(start).Round(time.Millisecond), a.HTTP, a.Raw)
		}
		if got := a.Field("title"); got != nil && got != "" {
			t.Errorf("with javascript=false the title is %v, want none", got)
		}
	})
	t.Run("javascript=false still applies styles and scripts from the request", func(t *testing.T) {
		t.Parallel()
		a := render(t, "/plain", "javascript=false&styles="+url.QueryEscape("h1 { color: rgb(7, 8, 9) }")+
			"&scripts="+url.QueryEscape(`document.title = getComputedStyle(document.querySelector("h1")).color`))
		if got := title(t, a); got != "rgb(7, 8, 9)" {
			t.Errorf("title %q", got)
		}
	})
	t.Run("viewport and device change the page's window", func(t *testing.T) {
		t.Parallel()
		for _, c := range []struct {
			query string
			want  []string // words the title must have
		}{
			{"", []string{"w1280", "h800", "dpr1", "touch0", "desktop"}},
			{"device=Macbook%20Pro%2013", []string{"w1280", "h800", "dpr2", "touch0", "desktop"}},
			{"device=iPhone%20X", []string{"w375", "h812", "dpr3", "touch5", "portrait-primary", "iphone"}},
			{"device=iPad%20landscape", []string{"w1024", "h768", "dpr2", "touch5", "landscape-primary", "ipad"}},
			{"device=Galaxy%20S9", []string{"w320", "h658", "dpr4.5", "touch5", "android"}},
			{"viewport.width=500&viewport.height=700", []string{"w500", "h700", "dpr1", "touch0"}},
			{"viewport.width=640&viewport.deviceScaleFactor=2&viewport.hasTouch=true", []string{"w640", "dpr2", "touch5"}},
			// Microlink's iPhone 15: the viewport Safari leaves the page.
			{"device=iPhone%2015", []string{"w393", "h659", "dpr3", "touch5", "portrait-primary", "iphone", "none"}},
			{"device=iPhone%2015&viewport.isLandscape=true", []string{"w659", "h393", "dpr3", "landscape-primary", "iphone"}},
			{"device=Pixel%208", []string{"w412", "h915", "dpr2.625", "touch5", "portrait-primary", "android"}},
			{"device=laptop", []string{"w1366", "h768", "dpr1", "touch0", "desktop"}},
		} {
			words := strings.Fields(title(t, render(t, "/size", c.query)))
			has := map[string]bool{}
			for _, w := range words {
				has[w] = true
			}
			for _, w := range c.want {
				if !has[w] {
					t.Errorf("%q: the page reports %q, without %q", c.query, words, w)
				}
			}
			if (strings.Contains(c.query, "Pixel") || strings.Contains(c.query, "laptop")) && len(words) == 7 {
				if _, err := strconv.Atoi(words[6]); err != nil {
					t.Errorf("%q: the user agent names no Chrome version: %q", c.query, words)
				}
			}
		}
	})
	t.Run("click acts on the page before capture", func(t *testing.T) {
		t.Parallel()
		if got := title(t, render(t, "/click", "click=%23go")); got != "clicked by the mouse" {
			t.Errorf("title %q, want a real mouse click", got)
		}
		if got := title(t, render(t, "/click", "click=%23hidden")); got != "hidden clicked" {
			t.Errorf("a hidden element: title %q, want its handler run", got)
		}
		if got := title(t, render(t, "/click", "click.0=%23open&click.1=%23item")); got != "item chosen by the mouse" {
			t.Errorf("a menu opened by the first click: title %q, want the second click on the shown item", got)
		}
	})
	t.Run("click on a selector that matches nothing is EINVALQUERY", func(t *testing.T) {
		t.Parallel()
		a := render(t, "/click", "click=%23missing")
		failure(t, a, http.StatusBadRequest, apierr.CodeInvalidQuery, "click", "`#missing`", "matches no element")
	})
	t.Run("scroll brings the element into view before capture", func(t *testing.T) {
		t.Parallel()
		if got := title(t, render(t, "/scroll", "scroll=%23end")); got != "scrolled down" {
			t.Errorf("title %q", got)
		}
		a := render(t, "/scroll", "scroll=%23nowhere")
		failure(t, a, http.StatusBadRequest, apierr.CodeInvalidQuery, "scroll", "`#nowhere`")
	})
	t.Run("scripts run in order and styles show in the computed style", func(t *testing.T) {
		t.Parallel()
		if got := title(t, render(t, "/plain", "scripts.0="+url.QueryEscape(`document.title = "a"`)+
			"&scripts.1="+url.QueryEscape(`document.title += "b"`))); got != "ab" {
			t.Errorf("title %q, want both scripts in order", got)
		}
		a := render(t, "/plain", "styles="+url.QueryEscape("h1 { color: rgb(1, 2, 3) }")+
			"&scripts="+url.QueryEscape(`document.title = getComputedStyle(document.querySelector("h1")).color`))
		if got := title(t, a); got != "rgb(1, 2, 3)" {
			t.Errorf("title %q, want the injected color", got)
		}
		a = render(t, "/plain", "scripts="+url.QueryEscape(`new Promise(r => setTimeout(() => { document.title = "awaited"; r(); }, 300))`))
		if got := title(t, a); got != "awaited" {
			t.Errorf("title %q, want the script's promise awaited", got)
		}
	})
	t.Run("the injected styles leave the DOM as the page has it", func(t *testing.T) {
		t.Parallel()
		a := render(t, "/plain", "styles="+url.QueryEscape("h1 { color: red }")+
			"&scripts="+url.QueryEscape(`document.title = String(document.querySelectorAll("style").length)`))
		if got := title(t, a); got != "0" {
			t.Errorf("the page has %s style elements after the injection, want 0", got)
		}
	})
	t.Run("a script that throws is EINVALQUERY with the error", func(t *testing.T) {
		t.Parallel()
		a := render(t, "/plain", "scripts="+url.QueryEscape(`throw new Error("boom")`))
		failure(t, a, http.StatusBadRequest, apierr.CodeInvalidQuery, "scripts", "boom")
	})
	t.Run("a script that never ends is stopped at the timeout", func(t *testing.T) {
		for _, js := range []string{`while (true) {}`, `new Promise(() => {})`} {
			a := render(t, "/plain", "timeout=3s&scripts="+url.QueryEscape(js))
			failure(t, a, http.StatusGatewayTimeout, apierr.CodeTimeout, "", "`scripts`")
		}
		if got := title(t, render(t, "/plain", "")); got != "plain page" {
			t.Errorf("the next render's title is %q", got)
		}
	})
	t.Run("animations=false ends animations and asks for reduced motion", func(t *testing.T) {
		t.Parallel()
		probe := "scripts=" + url.QueryEscape(`document.title = getComputedStyle(document.getElementById("box")).opacity + " " + matchMedia("(prefers-reduced-motion: reduce)").matches`)
		if got := title(t, render(t, "/animate", probe)); !strings.HasPrefix(got, "0") || !strings.HasSuffix(got, "false") {
			t.Errorf("with animations the title is %q, want the box still fading in", got)
		}
		if got := title(t, render(t, "/animate", "animations=false&"+probe)); got != "1 true" {
			t.Errorf("with animations=false the title is %q, want the box at its end state", got)
		}
	})
	t.Run("adblock hides consent banners the page hosts itself", func(t *testing.T) {
		probe := "scripts=" + url.QueryEscape(`document.title = ["onetrust-banner-sdk", "CybotCookiebotDialog", "text"].map(id => getComputedStyle(document.getElementById(id)).display).join(" ")`)
		if got := title(t, render(t, "/consent", probe)); got != "none none block" {
			t.Errorf("with adblock the displays are %q, want the banners hidden and the text shown", got)
		}
		if got := title(t, render(t, "/consent", "adblock=false&"+probe)); got != "block block block" {
			t.Errorf("with adblock=false the displays are %q", got)
		}
	})
	t.Run("adblock shows a page an anti-flicker snippet keeps transparent", func(t *testing.T) {
		probe := "scripts=" + url.QueryEscape(`document.title = getComputedStyle(document.documentElement).opacity`)
		if got := title(t, render(t, "/anti-flicker", probe)); got != "1" {
			t.Errorf("with adblock the page's opacity is %q, want 1", got)
		}
		if got := title(t, render(t, "/anti-flicker", "adblock=false&"+probe)); got != "0" {
			t.Errorf("with adblock=false the page's opacity is %q, want the page's own 0", got)
		}
	})
	t.Run("adblock blocks a request to a listed host", func(t *testing.T) {
		ad, own := ps.Hits["/ad.js"], ps.Hits["/own.js"]
		ad0, own0 := ad.Load(), own.Load()
		blocked0 := e2e.Gathered(t, app.Registry, "glimpse_sidecar_adblock_blocked_total")
		if got := title(t, render(t, "/ads", "")); got != "page with an ad" {
			t.Errorf("title %q", got)
		}
		if n := ad.Load() - ad0; n != 0 {
			t.Errorf("the listed host was asked %d times, want 0", n)
		}
		if e2e.Gathered(t, app.Registry, "glimpse_sidecar_adblock_blocked_total") <= blocked0 {
			t.Error("glimpse_sidecar_adblock_blocked_total did not count the blocked request")
		}
		if own.Load() == own0 {
			t.Error("the page's own script was not loaded; blocking is too broad")
		}
		title(t, render(t, "/ads", "adblock=false"))
		if ad.Load() == ad0 {
			t.Error("with adblock=false the script on the listed host was not loaded; the test page does not show blocking")
		}
	})
	t.Run("adblock also blocks while headers are forwarded", func(t *testing.T) {
		ad := ps.Hits["/ad.js"]
		ad0 := ad.Load()
		title(t, render(t, "/ads", "headers.x-test=1"))
		if n := ad.Load() - ad0; n != 0 {
			t.Errorf("the listed host was asked %d times, want 0", n)
		}
	})
	t.Run("a target that redirects to a listed host still renders", func(t *testing.T) {
		if got := title(t, render(t, "/to-listed", "")); got != "plain page" {
			t.Errorf("title %q", got)
		}
	})
	t.Run("a page on a listed host still renders with its own assets", func(t *testing.T) {
		for _, extra := range []string{"", "&headers.x-test=1"} {
			ad, own := ps.Hits["/ad.js"], ps.Hits["/own.js"]
			ad0, own0 := ad.Load(), own.Load()
			a := app.Get("http://www.ads-test.localhost:"+port+"/ads", "force=true&prerender=true&ping=false"+extra)
			if got := title(t, a); got != "page with an ad" {
				t.Errorf("%q: title %q", extra, got)
			}
			if own.Load() == own0 || ad.Load() == ad0 {
				t.Errorf("%q: the listed site's own scripts were blocked on its own page", extra)
			}
		}
	})
}
