package outputs_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// newsPage is an article in a page's usual furniture: a menu, a cookie
// banner, related stories, comments and a footer.
const newsPage = `<!doctype html><html lang="en"><head><title>The river rose overnight | Valley News</title>
<meta name="author" content="Ana Lima"><meta property="article:published_time" content="2026-03-04T08:00:00Z">
<meta name="description" content="The river rose a metre overnight."></head><body>
<nav><a href="/">Home</a> <a href="/sport">Sport</a> <a href="/weather">Weather menu</a></nav>
<div class="cookie-banner">We use cookies to improve your experience. Accept all cookies.</div>
<article><h1>The river rose overnight</h1>
<p>The river rose a metre overnight after three days of rain, and the old bridge was closed to traffic at dawn.</p>
<p>Residents of the lower town were asked to move their cars to the <a href="/parking">upper car park</a> before noon.</p>
<h2>What the council said</h2>
<p>The council said the water should fall again by Thursday, if the forecast holds and no more rain comes down the valley.</p>
<p>Shops on the quay opened late, and the ferry did not run. Farmers upstream reported flooded fields and fences carried away by the current.</p>
<p>The last flood of this size came eleven years ago, when the water reached the steps of the church and the market moved to the square for a month.</p>
<ul><li>Sandbags at the town hall</li><li>Shelter at the school</li></ul>
<img src="/river.jpg" alt="The river at dawn" width="800" height="450"><img src="/pixel.gif" width="1" height="1" alt="">
</article>
<aside class="related"><h3>Related stories</h3><a href="/other">Another story entirely</a></aside>
<section class="comments"><p>Comment: first!</p></section>
<footer>Copyright Valley News. All rights reserved.</footer></body></html>`

func TestPagesAsMarkdown(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/news": e2e.HTML(newsPage),
		// A page its script builds: only a browser sees its text.
		"/deep": e2e.HTML(`<!doctype html><html lang="en"><head><title>Deep</title></head><body>` +
			strings.Repeat("<div>", 6000) + "<p>At the bottom of a page nested far too deep.</p>" + strings.Repeat("</div>", 6000) + `</body></html>`),
		// A page whose components draw their text in shadow roots the
		// script attaches: only a browser sees it, and outerHTML does not.
		"/components": e2e.HTML(`<!doctype html><html lang="en"><head><title>Components</title></head><body><article><h1>Kiln notes</h1>
<kiln-note><span slot="who">Ana Lima</span><span>light text no slot takes</span></kiln-note></article>
<script>customElements.define("kiln-note", class extends HTMLElement { constructor() { super();
  this.attachShadow({mode: "open"}).innerHTML = "<p>" + "The kiln note drawn in a shadow root says the glaze cooled slowly. ".repeat(6) + "</p><p>Written by <slot name=who></slot>.</p>"; } });</script></body></html>`),
		// A hostile page of 12,000 components, each with a shadow root:
		// past 10,000 the rest are left as their hosts' light children.
		"/many-components": e2e.HTML(`<!doctype html><html lang="en"><head><title>Many</title></head><body><div id="list"></div>
<script>let parts = 0;
customElements.define("kiln-part", class extends HTMLElement { constructor() { super();
  this.attachShadow({mode: "open"}).innerHTML = "<p>Shadow part " + (parts++) + ".</p>"; } });
const list = document.getElementById("list");
for (let i = 0; i < 12000; i++) list.appendChild(document.createElement("kiln-part"));</script></body></html>`),
		"/built": e2e.HTML(`<!doctype html><html lang="en"><head><title>Built</title></head><body><div id="root"></div>
<script>document.getElementById("root").innerHTML = "<article><h1>Built by script</h1><p>" + "This text exists only once the script has run in a browser. ".repeat(8) + "</p></article>";</script></body></html>`),
	})
	get := func(t *testing.T, path, query string) (*http.Response, string) {
		t.Helper()
		resp, err := http.Get(app.URL() + "/?url=" + url.QueryEscape(ps.URL+path) + "&" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(b)
	}

	t.Run("embed=content answers with the article alone, as text/markdown", func(t *testing.T) {
		resp, body := get(t, "/news", "data.content.attr=markdown&meta=false&embed=content")
		if resp.StatusCode != 200 || resp.Header.Get("content-type") != "text/markdown; charset=utf-8" {
			t.Fatalf("%d %q: %s", resp.StatusCode, resp.Header.Get("content-type"), body)
		}
		for _, want := range []string{"The river rose a metre overnight", "## What the council said", "- Sandbags at the town hall",
			"[upper car park](" + ps.URL + "/parking)", "![The river at dawn](" + ps.URL + "/river.jpg)"} {
			if !strings.Contains(body, want) {
				t.Errorf("the Markdown lacks %q:\n%s", want, body)
			}
		}
		for _, unwanted := range []string{"Weather menu", "Accept all cookies", "Another story entirely", "first!", "All rights reserved", "pixel.gif"} {
			if strings.Contains(body, unwanted) {
				t.Errorf("the Markdown carries %q, which is not the article:\n%s", unwanted, body)
			}
		}
		if resp.Header.Get("x-request-id") == "" || resp.Header.Get("x-cache-status") == "" {
			t.Errorf("the embedded answer lost the API's headers: %v", resp.Header)
		}
		if _, again := get(t, "/news", "data.content.attr=markdown&meta=false&embed=content&force=true"); again != body {
			t.Error("the same page gave different Markdown twice")
		}
	})

	t.Run("with meta on the Markdown starts with YAML frontmatter of the metadata", func(t *testing.T) {
		a := app.Get(ps.URL+"/news", "data.content.attr=markdown")
		md, _ := a.Field("content").(string)
		rest, ok := strings.CutPrefix(md, "---\n")
		head, body, ok2 := strings.Cut(rest, "\n---\n")
		if !ok || !ok2 {
			t.Fatalf("data.content does not start with a frontmatter block:\n%s", md)
		}
		var fm map[string]any
		if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
			t.Fatalf("the frontmatter is not YAML (%v):\n%s", err, head)
		}
		if fm["title"] != a.Field("title") || fm["author"] != "Ana Lima" || fm["word_count"] == nil || fm["reading_time"] == nil {
			t.Errorf("the frontmatter %v does not carry the answer's metadata with word_count and reading_time", fm)
		}
		if !strings.Contains(body, "The river rose a metre overnight") {
			t.Errorf("the Markdown after the frontmatter lacks the article:\n%s", body)
		}
	})

	t.Run("a selector converts that element, and html the whole page", func(t *testing.T) {
		a := app.Get(ps.URL+"/news", "meta=false&data.list.selector=ul&data.list.attr=markdown&data.page.selector=html&data.page.attr=markdown")
		if list, _ := a.Field("list").(string); !strings.HasPrefix(list, "- Sandbags at the town hall") || strings.Contains(list, "river rose") {
			t.Errorf("the ul as Markdown: %q", list)
		}
		if page, _ := a.Field("page").(string); !strings.Contains(page, "Weather menu") || !strings.Contains(page, "The river rose a metre overnight") {
			t.Errorf("the whole page as Markdown leaves out the page's furniture or its article:\n%s", page)
		}
	})

	t.Run("embed of a rule that found nothing says so", func(t *testing.T) {
		a := app.Get(ps.URL+"/news", "meta=false&data.x.selector=.absent&data.x.attr=markdown&embed=x")
		if a.HTTP != 400 || a.Code != "EINVALQUERY" || !strings.Contains(a.Message, "has none") {
			t.Errorf("embed of an empty rule answered %d %s %s; want 400 EINVALQUERY", a.HTTP, a.Code, a.Message)
		}
	})

	t.Run("a page nested deeper than a parser allows gets a bounded, clear answer", func(t *testing.T) {
		for _, mode := range []string{"prerender=true", "prerender=auto"} {
			resp, body := get(t, "/deep", mode+"&data.content.attr=markdown&meta=false&embed=content&force=true")
			if resp.StatusCode >= 500 || (resp.StatusCode == 200 && !strings.Contains(body, "At the bottom")) {
				t.Errorf("%s: %d %s", mode, resp.StatusCode, body)
			}
		}
	})

	t.Run("a static page is converted without a browser, a script-built one in it", func(t *testing.T) {
		resp, body := get(t, "/news", "data.content.attr=markdown&embed=content&force=true")
		if m := resp.Header.Get("x-fetch-mode"); m != "fetch" || !strings.HasPrefix(body, "---\n") {
			t.Errorf("x-fetch-mode %q for a static page, body:\n%s", m, body)
		}
		resp, body = get(t, "/built", "data.content.attr=markdown&meta=false&embed=content")
		if resp.StatusCode != 200 || !strings.Contains(body, "This text exists only once the script has run") {
			t.Errorf("the script-built page: %d\n%s", resp.StatusCode, body)
		}
	})

	t.Run("a component's shadow root is read as the browser shows it", func(t *testing.T) {
		resp, body := get(t, "/components", "data.content.attr=markdown&meta=false&embed=content&prerender=true")
		if resp.StatusCode != 200 || !strings.Contains(body, "drawn in a shadow root says the glaze cooled") ||
			!strings.Contains(body, "Written by Ana Lima.") || strings.Contains(body, "no slot takes") {
			t.Errorf("the components' page: %d\n%s", resp.StatusCode, body)
		}
	})

	t.Run("a page of more shadow roots than the bound is read up to the bound", func(t *testing.T) {
		resp, body := get(t, "/many-components", "data.page.selector=body&data.page.attr=markdown&meta=false&embed=page&prerender=true")
		if resp.StatusCode != 200 || !strings.Contains(body, "Shadow part 0.") || !strings.Contains(body, "Shadow part 9999.") ||
			strings.Contains(body, "Shadow part 10000.") {
			t.Errorf("the page of 12,000 components: %d, %d bytes, ends %q", resp.StatusCode, len(body), body[max(0, len(body)-200):])
		}
	})
}
