package orchestrator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// parseControlsQuery parses a query with a valid target before it.
func parseControlsQuery(t *testing.T, query string) (*Request, *Error) {
	t.Helper()
	raw := "url=https%3A%2F%2Fexample.com%2F"
	if query != "" {
		raw += "&" + query
	}
	req, err := ParseRequest(raw, Limits{})
	if err != nil {
		e := AsError(err)
		if e.Code == CodeFatal {
			t.Fatalf("parsing %q failed unexpectedly: %v", query, err)
		}
		return nil, e
	}
	return req, nil
}

func TestControlsAreParsedFromTheQuery(t *testing.T) {
	defaults := Controls{WaitUntil: "auto"}
	iPhone := Viewport{Emulate: true, Width: 393, Height: 852, DeviceScaleFactor: 3, IsMobile: true, HasTouch: true}
	cases := []struct {
		name  string
		query string
		want  func(c *Controls)
	}{
		{"no control leaves the defaults: auto, JavaScript, animations and adblock on", "", func(*Controls) {}},
		{"waitUntil takes each event in any case", "waitUntil=NetworkIdle0", func(c *Controls) { c.WaitUntil = "networkidle0" }},
		{"wait_until is the same parameter", "wait_until=domcontentloaded", func(c *Controls) { c.WaitUntil = "domcontentloaded" }},
		{"waitForSelector is trimmed", "waitForSelector=%20%23late%20", func(c *Controls) { c.WaitForSelector = "#late" }},
		{"waitForTimeout is milliseconds without a unit", "waitForTimeout=1500", func(c *Controls) { c.WaitForTimeout = 1500 * time.Millisecond }},
		{"waitForTimeout takes a unit", "wait_for_timeout=2s", func(c *Controls) { c.WaitForTimeout = 2 * time.Second }},
		{"waitForTimeout of zero waits not at all", "waitForTimeout=0", func(*Controls) {}},
		{"waitForTimeout may use most of a raised timeout", "waitForTimeout=40s&timeout=45s", func(c *Controls) { c.WaitForTimeout = 40 * time.Second }},
		{"a device sets its whole viewport", "device=iPhone%2015", func(c *Controls) { c.Device = "iPhone 15"; c.Viewport = iPhone }},
		{"a device name ignores case, spaces and dashes", "device=iphone-15", func(c *Controls) { c.Device = "iPhone 15"; c.Viewport = iPhone }},
		{"isLandscape turns a portrait device sideways", "device=iPhone%2015&viewport.isLandscape=true", func(c *Controls) {
			c.Device = "iPhone 15"
			c.Viewport = iPhone
			c.Viewport.Width, c.Viewport.Height, c.Viewport.IsLandscape = 852, 393, true
		}},
		{"a viewport option overrides the device's value", "device=iPhone%2015&viewport.width=400&viewport.deviceScaleFactor=1.5", func(c *Controls) {
			c.Device = "iPhone 15"
			c.Viewport = iPhone
			c.Viewport.Width, c.Viewport.DeviceScaleFactor = 400, 1.5
		}},
		{"an explicit size is kept as given in landscape", "device=iPhone%2015&viewport.isLandscape=true&viewport.height=500", func(c *Controls) {
			c.Device = "iPhone 15"
			c.Viewport = iPhone
			c.Viewport.Height, c.Viewport.IsLandscape = 500, true
		}},
		{"viewport options alone emulate the rest as the window has it", "viewport.width=500&viewport.is_mobile=true&viewport.has_touch=true", func(c *Controls) {
			c.Viewport = Viewport{Emulate: true, Width: 500, IsMobile: true, HasTouch: true}
		}},
		{"colorScheme takes dark", "colorScheme=Dark", func(c *Controls) { c.ColorScheme = "dark" }},
		{"color_scheme takes light", "color_scheme=light", func(c *Controls) { c.ColorScheme = "light" }},
		{"no-preference leaves the browser's default", "colorScheme=no-preference", func(*Controls) {}},
		{"javascript, animations and adblock switch off", "javascript=false&animations=false&adblock=false", func(c *Controls) {
			c.JavaScriptOff, c.AnimationsOff, c.AdblockOff = true, true, true
		}},
		{"javascript, animations and adblock set to true change nothing", "javascript=true&animations=true&adblock=true", func(*Controls) {}},
		{"click takes one selector", "click=%23accept", func(c *Controls) { c.Click = []string{"#accept"} }},
		{"click items apply bare first, then by index", "click.10=%23c&click=%23a&click.2=%23b", func(c *Controls) { c.Click = []string{"#a", "#b", "#c"} }},
		{"scroll takes a selector", "scroll=footer", func(c *Controls) { c.Scroll = "footer" }},
		{"styles and scripts keep their text as given", "styles=h1%20%7B%20color%3A%20red%20%7D&scripts.0=a()&scripts.1=b()", func(c *Controls) {
			c.Styles = []string{"h1 { color: red }"}
			c.Scripts = []string{"a()", "b()"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, e := parseControlsQuery(t, tc.query)
			if e != nil {
				t.Fatalf("refused: %s %s", e.Code, e.Message)
			}
			want := defaults
			tc.want(&want)
			if !reflect.DeepEqual(req.Controls, want) {
				t.Errorf("controls\n got %+v\nwant %+v", req.Controls, want)
			}
		})
	}
}

func TestBadControlsAreRefusedWithTheAcceptedValues(t *testing.T) {
	longSelector := strings.Repeat("a", maxSelector+1)
	bigStyle := strings.Repeat("a", maxInjected/2+1)
	cases := []struct {
		name, query, param string
		msg                []string
	}{
		{"an unknown waitUntil", "waitUntil=idle", "waitUntil", []string{"`auto`, `load`, `domcontentloaded`, `networkidle0` or `networkidle2`", "`idle`"}},
		{"an empty waitForSelector", "waitForSelector=", "waitForSelector", []string{"needs a CSS selector"}},
		{"a selector longer than the limit", "waitForSelector=" + longSelector, "waitForSelector", []string{"at most 1024"}},
		{"a waitForTimeout that is not a duration", "waitForTimeout=soon", "waitForTimeout", []string{"milliseconds (`1500`)", "`soon`"}},
		{"a negative waitForTimeout", "waitForTimeout=-5", "waitForTimeout", []string{"milliseconds"}},
		{"a waitForTimeout as long as the default timeout", "waitForTimeout=28s", "waitForTimeout", []string{"shorter than the request's `timeout` (28s)"}},
		{"a waitForTimeout longer than a given timeout", "waitForTimeout=6000&timeout=5s", "waitForTimeout", []string{"(6s)", "`timeout` (5s)"}},
		{"an unknown device lists the devices", "device=Nokia%203310", "device", []string{"`iPhone SE`", "`Pixel 8`", "`iPad Air`", "`MacBook Pro 14`", "`Nokia 3310`"}},
		{"an empty device", "device=", "device", []string{"must name a device"}},
		{"a bare viewport", "viewport=390x844", "viewport", []string{"`viewport.width`", "`viewport.isLandscape`"}},
		{"an unknown viewport option", "viewport.depth=3", "viewport.depth", []string{"not a viewport option", "`viewport.deviceScaleFactor`"}},
		{"a zero width", "viewport.width=0", "viewport.width", []string{"from 1 to 10000", "`0`"}},
		{"a fractional height", "viewport.height=600.5", "viewport.height", []string{"whole number"}},
		{"a width beyond the limit", "viewport.width=10001", "viewport.width", []string{"from 1 to 10000"}},
		{"a scale factor beyond the limit", "viewport.deviceScaleFactor=8", "viewport.deviceScaleFactor", []string{"from 0.1 to 5"}},
		{"a scale factor of zero", "viewport.device_scale_factor=0", "viewport.device_scale_factor", []string{"from 0.1 to 5"}},
		{"a viewport of too many device pixels", "viewport.width=8000&viewport.height=8000&viewport.deviceScaleFactor=2", "viewport.deviceScaleFactor", []string{"256 million device pixels", "at most 64 million"}},
		{"a boolean viewport option that is not a boolean", "viewport.isMobile=yes", "viewport.isMobile", []string{"`true` or `false`"}},
		{"an unknown color scheme", "colorScheme=blue", "colorScheme", []string{"`light`, `dark` or `no-preference`", "`blue`"}},
		{"javascript that is not a boolean", "javascript=off", "javascript", []string{"`true` or `false`"}},
		{"a bare adblock", "adblock", "adblock", []string{"`true` or `false`"}},
		{"animations that is not a boolean", "animations=0", "animations", []string{"`true` or `false`"}},
		{"an empty click", "click=", "click", []string{"needs a CSS selector"}},
		{"a click item without an index", "click.first=a", "click.first", []string{"`click.0`, `click.1`"}},
		{"too many clicks", clicks(11), "click.10", []string{"at most 10"}},
		{"an empty scroll", "scroll=%20", "scroll", []string{"needs a CSS selector"}},
		{"an empty style", "styles=", "styles", []string{"is empty", "`body { background: white }`"}},
		{"an empty script item", "scripts.0=%20", "scripts.0", []string{"is empty"}},
		{"styles and scripts beyond 64 KiB", "styles=" + bigStyle + "&scripts=" + bigStyle, "scripts", []string{"64 KiB"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, e := parseControlsQuery(t, tc.query)
			if e == nil {
				t.Fatalf("accepted with controls %+v", req.Controls)
			}
			if e.Code != CodeInvalidQuery || e.Status != http.StatusBadRequest {
				t.Errorf("code %s status %d, want EINVALQUERY 400", e.Code, e.Status)
			}
			if e.Param != tc.param {
				t.Errorf("param %q, want %q (message: %s)", e.Param, tc.param, e.Message)
			}
			for _, m := range tc.msg {
				if !strings.Contains(e.Message, m) {
					t.Errorf("message %q does not contain %q", e.Message, m)
				}
			}
		})
	}
}

func clicks(n int) string {
	var q []string
	for i := range n {
		q = append(q, fmt.Sprintf("click.%d=%%23b%d", i, i))
	}
	return strings.Join(q, "&")
}

func TestControlsGiveDifferentRequestsDifferentCacheKeys(t *testing.T) {
	pairs := []struct{ name, a, b string }{
		{"one selector with a space and two selectors", "click=a%20b", "click.0=a&click.1=b"},
		{"text that imitates the next field", "waitForSelector=x%22%2C%22WaitForTimeout%22%3A5", "waitForSelector=x&waitForTimeout=5"},
		{"adblock on and off", "", "adblock=false"},
		{"two devices", "device=Pixel%208", "device=Galaxy%20S24"},
		{"a style and the same text as a script", "styles=a", "scripts=a"},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			a, e := parseControlsQuery(t, p.a)
			if e != nil {
				t.Fatal(e)
			}
			b, e := parseControlsQuery(t, p.b)
			if e != nil {
				t.Fatal(e)
			}
			if cacheKey(a) == cacheKey(b) {
				t.Errorf("%q and %q share the cache key; controls print as %v and %v", p.a, p.b, a.Controls, b.Controls)
			}
		})
	}
	t.Run("the same controls spelt differently share the cache key", func(t *testing.T) {
		a, _ := parseControlsQuery(t, "device=iphone-15&wait_until=load")
		b, _ := parseControlsQuery(t, "waitUntil=LOAD&device=iPhone%2015")
		if a == nil || b == nil || cacheKey(a) != cacheKey(b) {
			t.Errorf("the keys differ for two spellings of one request")
		}
	})
}

func TestControlsThatOnlyABrowserHonoursSkipThePlainFetch(t *testing.T) {
	cases := []struct {
		query string
		want  bool
	}{
		{"", false},
		{"waitUntil=auto", false},
		{"javascript=false", false},
		{"adblock=false&animations=false", false},
		{"colorScheme=no-preference", false},
		{"waitUntil=load", true},
		{"waitForSelector=%23x", true},
		{"waitForTimeout=10", true},
		{"device=Laptop", true},
		{"viewport.width=300", true},
		{"colorScheme=dark", true},
		{"click=a", true},
		{"scroll=a", true},
		{"styles=a", true},
		{"scripts=a", true},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%q needs a browser: %t", tc.query, tc.want)
		t.Run(name, func(t *testing.T) {
			req, e := parseControlsQuery(t, tc.query)
			if e != nil {
				t.Fatal(e)
			}
			if got := req.Controls.needsBrowser(); got != tc.want {
				t.Errorf("needsBrowser() = %t", got)
			}
		})
	}
	t.Run("the zero controls need no browser", func(t *testing.T) {
		if (Controls{}).needsBrowser() {
			t.Error("zero controls need a browser")
		}
	})
}

func TestDevicePresets(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range devices {
		t.Run(d.Name+" is found by its name and its folded name", func(t *testing.T) {
			key := deviceKey(d.Name)
			if seen[key] {
				t.Fatalf("two presets fold to %q", key)
			}
			seen[key] = true
			for _, spelling := range []string{d.Name, strings.ToUpper(d.Name), strings.ReplaceAll(strings.ToLower(d.Name), " ", "-")} {
				got, ok := lookupDevice(spelling)
				if !ok || got.Name != d.Name {
					t.Errorf("lookupDevice(%q) = %q, %t", spelling, got.Name, ok)
				}
			}
			if !strings.Contains(deviceNames(), "`"+d.Name+"`") {
				t.Errorf("the device list for messages leaves out %s", d.Name)
			}
			if d.Width < 1 || d.Height < 1 || d.Scale <= 0 || d.UserAgent == "" || d.Platform == "" {
				t.Errorf("incomplete preset: %+v", d)
			}
			if d.Mobile && d.Width > d.Height {
				t.Errorf("a mobile preset is given in landscape: %dx%d", d.Width, d.Height)
			}
		})
	}
	if n := len(devices); n < 12 {
		t.Errorf("%d presets, want a dozen or more", n)
	}
	t.Run("a Chrome user agent claims the running Chromium's version", func(t *testing.T) {
		d, _ := lookupDevice("Pixel 8")
		ua := d.userAgentFor("HeadlessChrome/161.0.1234.5")
		if !strings.Contains(ua, "Chrome/161.0.0.0 Mobile Safari") || strings.Contains(ua, "{chrome}") {
			t.Errorf("user agent %q", ua)
		}
		if ua := d.userAgentFor("garbage"); strings.Contains(ua, "{chrome}") || !regexp.MustCompile(`Chrome/\d+\.0\.0\.0`).MatchString(ua) {
			t.Errorf("without a readable version the user agent is %q", ua)
		}
	})
	t.Run("a name that folds to nothing is not a device", func(t *testing.T) {
		if _, ok := lookupDevice(" - "); ok {
			t.Error("found a device for a name of punctuation")
		}
	})
}

func TestAdblockDecidesTheLease(t *testing.T) {
	blockTestHosts(t, "ads-test.localhost")
	cases := []struct {
		name, target, query string
		unfiltered          bool
	}{
		{"an ordinary target goes through the list", "https://news.example.com/a", "", false},
		{"adblock=false skips the list", "https://news.example.com/a", "adblock=false", true},
		{"a listed company's own page skips the list", "https://www.hotjar.com/pricing", "", true},
		{"a target on a test host skips the list", "http://www.ads-test.localhost:8080/", "", true},
		{"an address target goes through the list", "http://127.0.0.1:8080/", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := "url=" + url.QueryEscape(tc.target)
			if tc.query != "" {
				q += "&" + tc.query
			}
			req, err := ParseRequest(q, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got := renderUnfiltered(req); got != tc.unfiltered {
				t.Errorf("renderUnfiltered = %t, want %t", got, tc.unfiltered)
			}
		})
	}
	t.Run("test hosts block by suffix", func(t *testing.T) {
		if !adblockListed("pixel.ads-test.localhost") || !adblockListed("ADS-TEST.localhost.") || adblockListed("page.localhost") {
			t.Error("the test host does not block by suffix")
		}
		if !adblockListed("securepubads.g.doubleclick.net") {
			t.Error("the embedded list is not consulted")
		}
	})
	t.Run("a failed tunnel is a listed document only on a listed host", func(t *testing.T) {
		if !listedDocument("net::ERR_TUNNEL_CONNECTION_FAILED", "https://ad.doubleclick.net/x") {
			t.Error("a refused tunnel to a listed host is not recognised")
		}
		if listedDocument("net::ERR_TUNNEL_CONNECTION_FAILED", "https://example.com/") ||
			listedDocument("net::ERR_CONNECTION_REFUSED", "https://ad.doubleclick.net/x") {
			t.Error("another failure counts as a listed document")
		}
	})
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// blockTestHosts adds hosts to the ad block list for the rest of the test.
func blockTestHosts(t *testing.T, hosts ...string) {
	t.Helper()
	prev := adblockTestHosts.Swap(&hosts)
	t.Cleanup(func() { adblockTestHosts.Store(prev) })
}

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
  screen.orientation.type, /iPhone/.test(navigator.userAgent) ? "iphone" : /Android/.test(navigator.userAgent) ? "android" : "desktop",
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
)

// adPage loads an image from a host on the test block list, on the same
// page server, so the server counts whether the browser asked for it.
func adPage(w http.ResponseWriter, r *http.Request) {
	_, port, _ := strings.Cut(r.Host, ":")
	w.Header().Set("content-type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><html><head><title>page with an ad</title></head><body>
<img src="http://pixel.ads-test.localhost:%s/ad.gif" alt="ad"><img src="/own.gif" alt="own"></body></html>`, port)
}

func gif(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("content-type", "image/gif")
	// A 1×1 transparent GIF.
	_, _ = w.Write([]byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff\x21\xf9\x04\x01\x00\x00\x00\x00\x2c\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00\x3b"))
}

func TestRenderingControlsInTheBrowser(t *testing.T) {
	app := startApp(t, nil)
	blockTestHosts(t, "ads-test.localhost")
	ps := newPageServer(t, map[string]http.HandlerFunc{
		"/late": html(latePage), "/timer": html(timerPage), "/scheme": html(schemePage),
		"/script-title": html(scriptTitlePage), "/size": html(sizePage), "/click": html(clickPage),
		"/scroll": html(scrollPage), "/plain": html(plainPage), "/animate": html(animatePage),
		"/consent": html(consentPage), "/ads": adPage, "/ad.gif": gif, "/own.gif": gif,
		"/to-listed": func(w http.ResponseWriter, r *http.Request) {
			_, port, _ := strings.Cut(r.Host, ":")
			http.Redirect(w, r, "http://www.ads-test.localhost:"+port+"/plain", http.StatusFound)
		},
	})
	pages0, contexts0 := app.settled(-1, -1)
	_, port, _ := strings.Cut(ps.Listener.Addr().String(), ":")

	// render asks for a fresh browser render of path with the extra query.
	render := func(t *testing.T, path, extra string) answer {
		t.Helper()
		q := "force=true&prerender=true&ping=false"
		if extra != "" {
			q += "&" + extra
		}
		return app.get(ps.URL+path, q)
	}
	title := func(t *testing.T, a answer) string {
		t.Helper()
		if a.HTTP != http.StatusOK {
			t.Fatalf("answer %d: %s", a.HTTP, a.Raw)
		}
		s, _ := a.field("title").(string)
		return s
	}
	failure := func(t *testing.T, a answer, status int, code, param string, msg ...string) {
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
		failure(t, a, http.StatusGatewayTimeout, CodeTimeout, "waitForSelector", "`#never`")
	})
	t.Run("waitForSelector with a selector the browser cannot parse is EINVALQUERY", func(t *testing.T) {
		a := render(t, "/plain", "waitForSelector="+url.QueryEscape("div[["))
		failure(t, a, http.StatusBadRequest, CodeInvalidQuery, "waitForSelector", "not a valid CSS selector")
	})
	t.Run("waitForTimeout waits before the page is read", func(t *testing.T) {
		start := time.Now()
		if got := title(t, render(t, "/timer", "waitForTimeout=1500")); got != "after the timer" {
			t.Errorf("title %q, want the one set after a second", got)
		}
		if took := time.Since(start); took < 1500*time.Millisecond {
			t.Errorf("the answer came after %v, before waitForTimeout was over", took)
		}
	})
	t.Run("colorScheme=dark flips a prefers-color-scheme page", func(t *testing.T) {
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
		if got := a.field("title"); got != nil && got != "" {
			t.Errorf("with javascript=false the title is %v, want none", got)
		}
	})
	t.Run("javascript=false still applies styles and scripts from the request", func(t *testing.T) {
		a := render(t, "/plain", "javascript=false&styles="+url.QueryEscape("h1 { color: rgb(7, 8, 9) }")+
			"&scripts="+url.QueryEscape(`document.title = getComputedStyle(document.querySelector("h1")).color`))
		if got := title(t, a); got != "rgb(7, 8, 9)" {
			t.Errorf("title %q", got)
		}
	})
	t.Run("viewport and device change the page's window", func(t *testing.T) {
		for _, c := range []struct {
			query string
			want  []string // words the title must have
		}{
			{"", []string{"dpr1", "touch0", "desktop"}},
			{"viewport.width=500&viewport.height=700", []string{"w500", "h700", "dpr1", "touch0"}},
			{"viewport.width=640&viewport.deviceScaleFactor=2&viewport.hasTouch=true", []string{"w640", "dpr2", "touch5"}},
			{"device=iPhone%2015", []string{"w393", "h852", "dpr3", "touch5", "portrait-primary", "iphone", "none"}},
			{"device=iPhone%2015&viewport.isLandscape=true", []string{"w852", "h393", "dpr3", "landscape-primary", "iphone"}},
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
		a := render(t, "/click", "click=%23missing")
		failure(t, a, http.StatusBadRequest, CodeInvalidQuery, "click", "`#missing`", "matches no element")
	})
	t.Run("scroll brings the element into view before capture", func(t *testing.T) {
		if got := title(t, render(t, "/scroll", "scroll=%23end")); got != "scrolled down" {
			t.Errorf("title %q", got)
		}
		a := render(t, "/scroll", "scroll=%23nowhere")
		failure(t, a, http.StatusBadRequest, CodeInvalidQuery, "scroll", "`#nowhere`")
	})
	t.Run("scripts run in order and styles show in the computed style", func(t *testing.T) {
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
		a := render(t, "/plain", "styles="+url.QueryEscape("h1 { color: red }")+
			"&scripts="+url.QueryEscape(`document.title = String(document.querySelectorAll("style").length)`))
		if got := title(t, a); got != "0" {
			t.Errorf("the page has %s style elements after the injection, want 0", got)
		}
	})
	t.Run("a script that throws is EINVALQUERY with the error", func(t *testing.T) {
		a := render(t, "/plain", "scripts="+url.QueryEscape(`throw new Error("boom")`))
		failure(t, a, http.StatusBadRequest, CodeInvalidQuery, "scripts", "boom")
	})
	t.Run("a script that never ends is stopped at the timeout", func(t *testing.T) {
		for _, js := range []string{`while (true) {}`, `new Promise(() => {})`} {
			a := render(t, "/plain", "timeout=3s&scripts="+url.QueryEscape(js))
			failure(t, a, http.StatusGatewayTimeout, CodeTimeout, "", "`scripts`")
		}
		if got := title(t, render(t, "/plain", "")); got != "plain page" {
			t.Errorf("the next render's title is %q", got)
		}
	})
	t.Run("animations=false ends animations and asks for reduced motion", func(t *testing.T) {
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
	t.Run("adblock blocks a request to a listed host", func(t *testing.T) {
		ad, own := ps.hits["/ad.gif"], ps.hits["/own.gif"]
		ad0, own0 := ad.Load(), own.Load()
		blocked0 := monGathered(t, app.Registry, "glimpse_sidecar_adblock_blocked_total")
		if got := title(t, render(t, "/ads", "")); got != "page with an ad" {
			t.Errorf("title %q", got)
		}
		if n := ad.Load() - ad0; n != 0 {
			t.Errorf("the listed host was asked %d times, want 0", n)
		}
		if monGathered(t, app.Registry, "glimpse_sidecar_adblock_blocked_total") <= blocked0 {
			t.Error("glimpse_sidecar_adblock_blocked_total did not count the blocked request")
		}
		if own.Load() == own0 {
			t.Error("the page's own image was not loaded; blocking is too broad")
		}
		title(t, render(t, "/ads", "adblock=false"))
		if ad.Load() == ad0 {
			t.Error("with adblock=false the image on the listed host was not loaded; the test page does not show blocking")
		}
	})
	t.Run("adblock also blocks while headers are forwarded", func(t *testing.T) {
		ad := ps.hits["/ad.gif"]
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
			ad, own := ps.hits["/ad.gif"], ps.hits["/own.gif"]
			ad0, own0 := ad.Load(), own.Load()
			a := app.get("http://www.ads-test.localhost:"+port+"/ads", "force=true&prerender=true&ping=false"+extra)
			if got := title(t, a); got != "page with an ad" {
				t.Errorf("%q: title %q", extra, got)
			}
			if own.Load() == own0 || ad.Load() == ad0 {
				t.Errorf("%q: the listed site's own images were blocked on its own page", extra)
			}
		}
	})

	if p, c := app.settled(pages0, contexts0); p != pages0 || c != contexts0 {
		t.Errorf("after the renders the browser has %d pages and %d contexts, want %d and %d", p, c, pages0, contexts0)
	}
}
