package lazy_test

import (
	"fmt"
	"image/color"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// consentArticle is the page under each banner.
const consentArticle = `<main><h1>Notes from the valley</h1>
<p>The valley road was cleared on Tuesday, and the first buses ran again by noon. Farmers on the upper slopes said the snow had been the heaviest in a decade.</p>
<p>The school stayed closed for a second day while the heating was repaired; lessons resume tomorrow.</p></main>`

// consentPage is an article whose script adds a banner after load, as a
// consent manager's script does.
func consentPage(style, banner, script string) string {
	return `<!doctype html><html lang="en"><head><title>Notes from the valley</title><style>
body { margin: 0; font: 16px sans-serif; background: #fff } main { padding: 20px } ` + style + `</style></head><body>` + consentArticle + `
<script>
addEventListener("load", () => setTimeout(() => {
  document.body.insertAdjacentHTML("beforeend", ` + "`" + banner + "`" + `);
  ` + script + `
}, 200));
</script></body></html>`
}

// The banners, each of another consent manager's shape, written for the
// test: what each manager's markup is like, not its code.
var consentBanners = []struct {
	name, path, marker string
	manager            string // the label of glimpse_render_consent_dismissed_total it counts under
	colour             color.RGBA
	page               string
}{
	{
		name: "a manager's bottom banner over a dark filter, with its own refusal button", path: "/banner", marker: "ALPHA", manager: "onetrust",
		colour: color.RGBA{255, 0, 255, 255},
		page: consentPage(``, `<div id="onetrust-consent-sdk"><div class="onetrust-pc-dark-filter" style="position:fixed;inset:0;background:rgba(0,0,0,.5);z-index:9"></div>
<div id="onetrust-banner-sdk" style="position:fixed;left:0;right:0;bottom:0;height:260px;background:rgb(255,0,255);z-index:10">
<p>We and our partners store cookies on your device to improve your experience. ALPHA notice.</p>
<button id="onetrust-accept-btn-handler">Accept All Cookies</button> <button id="onetrust-reject-all-handler">Reject All</button></div></div>`,
			`document.getElementById("onetrust-accept-btn-handler").onclick = () => { fetch("/choice?v=accept"); };
  document.getElementById("onetrust-reject-all-handler").onclick = () => { fetch("/choice?v=reject"); document.getElementById("onetrust-consent-sdk").remove(); };`),
	},
	{
		name: "a manager's centred popup that locks scrolling", path: "/popup", marker: "BETA", manager: "didomi",
		colour: color.RGBA{0, 255, 255, 255},
		page: consentPage(`body.didomi-popup-open { overflow: hidden }`, `<div id="didomi-host"><div class="didomi-popup-backdrop" style="position:fixed;inset:0;background:rgba(0,0,0,.6);display:flex;align-items:center;justify-content:center;z-index:10">
<div id="didomi-popup" style="background:rgb(0,255,255);width:520px;height:320px;padding:20px">
<p>With your agreement, we and our partners use cookies or similar technologies. BETA notice.</p>
<button id="didomi-notice-agree-button">Agree and close</button> <button class="didomi-learn-more">Learn more</button></div></div></div>`,
			`document.body.classList.add("didomi-popup-open");`),
	},
	{
		name: "a site's own cookie bar with class names no list knows", path: "/bar", marker: "GAMMA", manager: "generic",
		colour: color.RGBA{255, 220, 0, 255},
		page: consentPage(``, `<div class="bx-n8f2" style="position:fixed;bottom:0;left:0;width:100%;height:180px;background:rgb(255,220,0);z-index:5">
<p>This website uses cookies to give you the best experience. GAMMA notice.</p><a href="#" class="bx-b1">Got it</a> <a href="/privacy">Learn more</a></div>`, ``),
	},
	{
		name: "a TCF dialog in the middle of the page over a backdrop", path: "/dialog", marker: "DELTA", manager: "generic",
		colour: color.RGBA{255, 128, 0, 255},
		page: consentPage(``, `<iframe name="__tcfapiLocator" style="display:none"></iframe>
<div class="cmp-shade" style="position:fixed;inset:0;background:rgba(0,0,0,.4);z-index:8"></div>
<div role="dialog" aria-modal="true" style="position:fixed;top:200px;left:390px;width:500px;height:300px;background:rgb(255,128,0);z-index:9">
<p>We value your privacy. We and our 812 partners ask for your consent to store and access information on your device. DELTA notice.</p>
<button>Agree</button> <button>More options</button></div>`, ``),
	},
}

// lookalikePage has what the generic rule must leave alone: a fixed
// header that links to a cookie policy, and a box about cookies in the
// text, with a button, that does not stay on screen.
const lookalikePage = `<!doctype html><html lang="en"><head><title>Biscuits</title><style>
body { margin: 0; font: 16px sans-serif; background: #fff } main { padding: 100px 20px 20px }
header { position: fixed; top: 0; left: 0; right: 0; height: 80px; background: rgb(0,160,0) }</style></head><body>
<header><a href="/">Home</a> <a href="/recipes">Recipes</a> <a href="/cookies">Cookie policy</a> <button>Menu</button></header>
<main><h1>Chocolate chip cookies</h1><p>Our chocolate chip cookies take twenty minutes and no special tools. Cream the butter and sugar, fold in the flour and the chocolate, and bake until the edges turn gold.</p>
<div class="tip"><p>We use cookies cutters of every shape in this recipe.</p><button>Accept the challenge</button></div></main></body></html>`

func TestConsentBannersAreDismissed(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	var mu sync.Mutex
	var choices []string
	routes := map[string]http.HandlerFunc{
		"/lookalike": e2e.HTML(lookalikePage),
		"/slowbar":   e2e.HTML(strings.Replace(consentBanners[2].page, "}, 200));", "}, 1500));", 1)),
		"/served": e2e.HTML(`<!doctype html><html lang="en"><head><title>Notes from the valley</title></head><body>` + consentArticle +
			`<div id="onetrust-consent-sdk"><div id="onetrust-banner-sdk"><p>We and our partners use cookies. EPSILON notice.</p>` +
			`<button id="onetrust-accept-btn-handler">Accept</button></div></div></body></html>`),
		"/choice": func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			choices = append(choices, r.URL.Query().Get("v"))
			mu.Unlock()
		},
	}
	for _, b := range consentBanners {
		routes[b.path] = e2e.HTML(b.page)
	}
	ps := e2e.NewPageServer(t, routes)
	white := color.RGBA{255, 255, 255, 255}

	for _, b := range consentBanners {
		t.Run(b.name, func(t *testing.T) {
			dismissed := func() float64 {
				return e2e.Counter(t, app.Registry, "glimpse_render_consent_dismissed_total", map[string]string{"manager": b.manager})
			}
			before := dismissed()
			img := decodePNG(t, app.Get(ps.URL+b.path, "screenshot=true&meta=false&embed=screenshot.url&force=true"))
			if after := dismissed(); after <= before {
				t.Errorf("glimpse_render_consent_dismissed_total{manager=%q} stayed at %v", b.manager, after)
			}
			if n := countColour(img, b.colour, 12); n > 50 {
				t.Errorf("the banner shows in the screenshot (%d pixels of its colour)", n)
			}
			if n, all := countColour(img, white, 4), img.Bounds().Dx()*img.Bounds().Dy(); n < all*8/10 {
				t.Errorf("the page is still dimmed: %d of %d pixels are white", n, all)
			}
			a := app.Get(ps.URL+b.path, "data.page.selector=body&data.page.attr=markdown&meta=false&prerender=true&force=true")
			md, _ := a.Field("page").(string)
			if a.HTTP != 200 || !strings.Contains(md, "The valley road was cleared") {
				t.Fatalf("no Markdown of the page: %d %.300s", a.HTTP, a.Raw)
			}
			if strings.Contains(md, b.marker) {
				t.Errorf("the Markdown carries the banner's text:\n%s", md)
			}

			// The control: with adblock=false the banner is there, in
			// the pixels and in the text.
			img = decodePNG(t, app.Get(ps.URL+b.path, "screenshot=true&meta=false&embed=screenshot.url&force=true&adblock=false"))
			if n := countColour(img, b.colour, 12); n < 10000 {
				t.Errorf("with adblock=false the banner does not show (%d pixels): the page does not test the dismissal", n)
			}
			a = app.Get(ps.URL+b.path, "data.page.selector=body&data.page.attr=markdown&meta=false&prerender=true&force=true&adblock=false")
			if md, _ := a.Field("page").(string); !strings.Contains(md, b.marker) {
				t.Errorf("with adblock=false the Markdown lacks the banner's text: the page does not test the dismissal:\n%s", md)
			}
		})
	}

	t.Run("a manager's banner the server wrote is left out of Markdown read by a plain fetch", func(t *testing.T) {
		a := app.Get(ps.URL+"/served", "data.page.selector=body&data.page.attr=markdown&force=true")
		md, _ := a.Field("page").(string)
		if a.HTTP != 200 || a.Header.Get("x-fetch-mode") != "fetch" || !strings.Contains(md, "The valley road was cleared") {
			t.Fatalf("no Markdown from a plain fetch: %d %s %.300s", a.HTTP, a.Header.Get("x-fetch-mode"), a.Raw)
		}
		if strings.Contains(md, "EPSILON") {
			t.Errorf("the Markdown carries the banner's text:\n%s", md)
		}
		a = app.Get(ps.URL+"/served", "data.page.selector=body&data.page.attr=markdown&force=true&adblock=false")
		if md, _ := a.Field("page").(string); !strings.Contains(md, "EPSILON") {
			t.Errorf("with adblock=false the Markdown lacks the banner's text: the page does not test the rule:\n%s", md)
		}
	})

	t.Run("a banner that comes during the caller's wait is dismissed after it", func(t *testing.T) {
		yellow := color.RGBA{255, 220, 0, 255}
		img := decodePNG(t, app.Get(ps.URL+"/slowbar", "screenshot=true&meta=false&embed=screenshot.url&force=true&waitForTimeout=2500"))
		if n := countColour(img, yellow, 12); n > 50 {
			t.Errorf("the banner that came during waitForTimeout shows (%d pixels of its colour)", n)
		}
		img = decodePNG(t, app.Get(ps.URL+"/slowbar", "screenshot=true&meta=false&embed=screenshot.url&force=true&waitForTimeout=2500&adblock=false"))
		if n := countColour(img, yellow, 12); n < 10000 {
			t.Errorf("with adblock=false the late banner does not show (%d pixels): the page does not test the order", n)
		}
	})

	t.Run("a manager's own refusal button is what is clicked, never its acceptance", func(t *testing.T) {
		mu.Lock()
		defer mu.Unlock()
		if !strings.Contains(fmt.Sprint(choices), "reject") || strings.Contains(fmt.Sprint(choices), "accept") {
			t.Errorf("the banner's buttons saw %v, want refusals only", choices)
		}
	})

	t.Run("a fixed header and a box about cookies in the text stay", func(t *testing.T) {
		img := decodePNG(t, app.Get(ps.URL+"/lookalike", "screenshot=true&meta=false&embed=screenshot.url&force=true"))
		if n := countColour(img, color.RGBA{0, 160, 0, 255}, 12); n < 1280*80/2 {
			t.Errorf("the fixed header was hidden (%d pixels of its colour)", n)
		}
		a := app.Get(ps.URL+"/lookalike", "data.page.selector=body&data.page.attr=markdown&meta=false&prerender=true&force=true")
		md, _ := a.Field("page").(string)
		for _, want := range []string{"Cookie policy", "Our chocolate chip cookies", "We use cookies cutters"} {
			if !strings.Contains(md, want) {
				t.Errorf("the Markdown lost %q:\n%s", want, md)
			}
		}
	})
}
