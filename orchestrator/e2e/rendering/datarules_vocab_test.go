package rendering_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// hnPage is a list of stories in the markup of the Hacker News front
// page, which Microlink's documentation scrapes with `type: 'title'`.
const hnPage = `<!doctype html><html lang="en"><head><title>Hacker News</title></head><body><table>
<tr class="athing" id="1"><td class="title"><span class="titleline"><a href="https://one.example/post">  Show HN: "A tiny   database" </a></span></td></tr>
<tr><td class="subtext"><span class="score">312 points</span> by <a class="hnuser">alice</a></td></tr>
<tr class="athing" id="2"><td class="title"><span class="titleline"><a href="item?id=2">Ask HN: What are you <i>reading</i>?</a></span></td></tr>
<tr><td class="subtext"><span class="score">87 points</span> by <a class="hnuser">bob</a></td></tr>
</table></body></html>`

// adaPage has a value for each way a rule reads one.
const adaPage = `<!doctype html><html lang="en-GB"><head><title>Ada Lovelace | Analytical Society</title>
<meta property="og:title" content="Ada Lovelace">
<meta name="twitter:creator" content="">
</head><body>
<h1 class="name">Ada <em>Lovelace</em></h1>
<p class="byline">By Ada Lovelace</p>
<img class="avatar" src="/avatar.png" alt="">
<video class="film" src="/film.webm"></video>
<script>window.secret = "the page's"; JSON.stringify = () => '"forged by the page"';
setInterval(() => { document.body.dataset.seen = typeof window.fromWorld; }, 5);</script>
</body></html>`

func TestDataRulesSpeakMicrolinksVocabulary(t *testing.T) {
	app := e2e.StartApp(t, nil)
	avatar := e2e.PNG(t, 64, 48)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/news":    e2e.HTML(hnPage),
		"/profile": e2e.HTML(adaPage),
		"/strict": func(w http.ResponseWriter, r *http.Request) {
			// A policy without 'unsafe-eval', as many sites send.
			w.Header().Set("content-security-policy", "default-src 'self'; script-src 'self'")
			e2e.HTML(adaPage)(w, r)
		},
		"/avatar.png": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "image/png")
			_, _ = w.Write(avatar)
		},
		"/film.webm": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "video/webm")
			_, _ = w.Write(make([]byte, 2048))
		},
	})

	t.Run("the Hacker News example with type title reads clean titles", func(t *testing.T) {
		a := app.Get(ps.URL+"/news", "meta=false&data.stories.selectorAll=.athing"+
			"&data.stories.attr.title.selector=.titleline+%3E+a&data.stories.attr.title.type=title"+
			"&data.stories.attr.url.selector=.titleline+%3E+a&data.stories.attr.url.attr=href&data.stories.attr.url.type=url")
		want := `{"stories":[{"title":"Show HN: “A tiny database”","url":"https://one.example/post"},` +
			`{"title":"Ask HN: What are you reading?","url":"` + ps.URL + `/item?id=2"}]}`
		if a.HTTP != 200 || string(a.Data) != want {
			t.Errorf("HTTP %d %s\ndata %s\nwant %s", a.HTTP, a.Message, a.Data, want)
		}
	})

	t.Run("an image rule gives a probed asset object with size_pretty", func(t *testing.T) {
		a := app.Get(ps.URL+"/profile", "meta=false&data.avatar.selector=img.avatar&data.avatar.attr=src&data.avatar.type=image"+
			"&data.film.selector=video&data.film.attr=src&data.film.type=video")
		var d struct {
			Avatar struct {
				URL, Type     string
				SizePretty    string `json:"size_pretty"`
				Size          int64
				Width, Height int
			}
			Film map[string]any
		}
		_ = json.Unmarshal(a.Data, &d)
		if a.HTTP != 200 || d.Avatar.Size != int64(len(avatar)) || d.Avatar.SizePretty == "" || d.Avatar.Width != 64 || d.Avatar.Height != 48 {
			t.Errorf("HTTP %d, data %s", a.HTTP, a.Data)
		}
		if d.Film["type"] != "webm" || d.Film["size"] != 2048.0 || d.Film["size_pretty"] != "2.05 kB" {
			t.Errorf("the video asset is %v", d.Film)
		}
		noPing := app.Get(ps.URL+"/profile", "meta=false&ping=false&data.avatar.selector=img.avatar&data.avatar.attr=src&data.avatar.type=image")
		if want := `{"avatar":{"url":"` + ps.URL + `/avatar.png","type":"png"}}`; string(noPing.Data) != want {
			t.Errorf("with ping=false: %s, want %s", noPing.Data, want)
		}
	})

	t.Run("attr defaults to html; outerHTML, attr arrays and selector arrays read as Microlink's", func(t *testing.T) {
		a := app.Get(ps.URL+"/profile", "meta=false&data.inner.selector=h1"+
			"&data.outer.selector=h1&data.outer.attr=outerHTML"+
			"&data.creator.selector=h1&data.creator.attr.0=content&data.creator.attr.1=text"+
			"&data.og.selector=meta%5Bproperty%3D%22og:title%22%5D&data.og.attr.0=content&data.og.attr.1=text"+
			"&data.who.selector.0=.missing&data.who.selector.1=.byline&data.who.type=author"+
			"&data.page.type=title&data.lang.selector=html&data.lang.attr=lang&data.lang.type=lang")
		want := `{"inner":"Ada <em>Lovelace</em>","outer":"<h1 class=\"name\">Ada <em>Lovelace</em></h1>",` +
			`"creator":"Ada Lovelace","og":"Ada Lovelace","who":"Ada Lovelace","page":"Ada Lovelace","lang":"en"}`
		if a.HTTP != 200 || string(a.Data) != want {
			t.Errorf("HTTP %d %s\ndata %s\nwant %s", a.HTTP, a.Message, a.Data, want)
		}
	})

	t.Run("a whole-page rule reads the page", func(t *testing.T) {
		a := app.Get(ps.URL+"/news", "meta=false&data.content.attr=markdown&data.body.type=string")
		body, _ := a.Field("body").(string)
		md, _ := a.Field("content").(string)
		if a.HTTP != 200 || !strings.HasPrefix(body, "<!DOCTYPE html>") || !strings.Contains(body, `class="athing"`) || !strings.Contains(md, "tiny") {
			t.Errorf("HTTP %d %s, data %.300s", a.HTTP, a.Message, a.Data)
		}
	})

	t.Run("evaluate runs in the page and its value goes through type", func(t *testing.T) {
		a := app.Get(ps.URL+"/profile", "meta=false"+
			"&data.expr.evaluate="+url.QueryEscape(`document.querySelector("h1").textContent`)+
			"&data.fn.evaluate="+url.QueryEscape(`async () => ({n: document.querySelectorAll("p").length, title: document.title})`)+
			"&data.num.evaluate="+url.QueryEscape(`() => "312 points"`)+"&data.num.type=number"+
			"&data.thrown.evaluate="+url.QueryEscape(`() => { throw new Error("secret " + document.cookie) }`)+
			"&data.bad.evaluate="+url.QueryEscape(`this is not javascript`))
		want := `{"expr":"Ada Lovelace","fn":{"n":1,"title":"Ada Lovelace | Analytical Society"},"num":312,"thrown":null,"bad":null}`
		if a.HTTP != 200 || string(a.Data) != want {
			t.Errorf("HTTP %d %s\ndata %s\nwant %s", a.HTTP, a.Message, a.Data, want)
		}
		// The page's text is enough for a plain fetch; the script is not.
		withMeta := app.Get(ps.URL+"/profile", "filter=x&data.x.evaluate="+url.QueryEscape(`window.secret`))
		if withMeta.Header.Get("x-fetch-mode") != "prerender" || string(withMeta.Data) != `{"x":null}` {
			t.Errorf("x-fetch-mode %q, data %s: an evaluate rule needs the browser, and its world has none of the page's globals",
				withMeta.Header.Get("x-fetch-mode"), withMeta.Data)
		}
	})

	t.Run("the page cannot see or alter the script's world, nor the script the page's", func(t *testing.T) {
		a := app.Get(ps.URL+"/profile", "meta=false"+
			"&data.set.evaluate="+url.QueryEscape(`() => { window.fromWorld = 1; return typeof window.secret }`)+
			"&data.seen.evaluate="+url.QueryEscape(`() => new Promise(r => setTimeout(() => r(document.body.dataset.seen), 100))`)+
			"&data.json.evaluate="+url.QueryEscape(`() => ({ok: true})`))
		want := `{"set":"undefined","seen":"undefined","json":{"ok":true}}`
		if a.HTTP != 200 || string(a.Data) != want {
			t.Errorf("HTTP %d %s\ndata %s\nwant %s", a.HTTP, a.Message, a.Data, want)
		}
	})

	t.Run("a script cannot step out of the wrapper that measures its result", func(t *testing.T) {
		// One source tries to close the wrapper around it and answer in
		// its place, another to replace what measures the next script's
		// result; each may only ever give a value that was measured.
		a := app.Get(ps.URL+"/profile", "meta=false"+
			"&data.forged.evaluate="+url.QueryEscape(`1); return {t: "json", s: '"forged"'}; (0`)+
			"&data.stringify.evaluate="+url.QueryEscape(`() => { JSON.stringify = () => ({length: 1, pad: "x".repeat(1024)}); return 1 }`)+
			"&data.after.evaluate="+url.QueryEscape(`() => ({ok: true})`))
		want := `{"forged":null,"stringify":1,"after":{"ok":true}}`
		if a.HTTP != 200 || string(a.Data) != want {
			t.Errorf("HTTP %d %s\ndata %s\nwant %s", a.HTTP, a.Message, a.Data, want)
		}
	})

	t.Run("a script runs on a page whose policy forbids eval", func(t *testing.T) {
		a := app.Get(ps.URL+"/strict", "meta=false&data.x.evaluate="+url.QueryEscape(`() => document.querySelector("h1").textContent`))
		if a.HTTP != 200 || string(a.Data) != `{"x":"Ada Lovelace"}` {
			t.Errorf("HTTP %d %s %s", a.HTTP, a.Message, a.Data)
		}
	})

	t.Run("a script runs even when the page's own scripts are off", func(t *testing.T) {
		a := app.Get(ps.URL+"/profile", "meta=false&javascript=false&timeout=5s&data.x.evaluate="+url.QueryEscape(`() => document.body.dataset.seen ?? "never"`))
		if a.HTTP != 200 || string(a.Data) != `{"x":"never"}` {
			t.Errorf("HTTP %d %s %s", a.HTTP, a.Message, a.Data)
		}
	})

	t.Run("a script that never settles ends at the deadline with ETIMEOUT", func(t *testing.T) {
		pages0, contexts0 := app.Settled(-1, -1)
		// A promise that never settles and three endless loops, side by
		// side: each holds its own page until its own deadline.
		scripts := []string{`new Promise(() => {})`, `() => { for (;;) {} }`, `async () => { await 0; for (;;) {} }`, `() => ({toJSON() { for (;;) {} }})`}
		replies := make([]e2e.Reply, len(scripts))
		var wg sync.WaitGroup
		for i, script := range scripts {
			wg.Go(func() {
				replies[i] = app.TryGet(ps.URL+"/profile", "meta=false&timeout=3s&data.x.evaluate="+url.QueryEscape(script))
			})
		}
		wg.Wait()
		for i, r := range replies {
			if r.Err != nil || r.HTTP != 504 || r.Code != apierr.CodeTimeout {
				t.Errorf("%s: %v", scripts[i], r)
			}
			if r.Took > 8*time.Second {
				t.Errorf("%s: the answer took %s for a timeout of 3s", scripts[i], r.Took)
			}
		}
		after := app.Get(ps.URL+"/profile", "meta=false&data.x.evaluate=1%2B1")
		if after.HTTP != 200 || string(after.Data) != `{"x":2}` {
			t.Errorf("the next request: HTTP %d %s %s", after.HTTP, after.Message, after.Data)
		}
		if pages, contexts := app.Settled(pages0, contexts0); pages != pages0 || contexts != contexts0 {
			t.Errorf("after the scripts that never ended the browser has %d pages and %d contexts, want %d and %d", pages, contexts, pages0, contexts0)
		}
	})

	t.Run("an oversized result is refused by the rule's name", func(t *testing.T) {
		a := app.Get(ps.URL+"/profile", "meta=false&data.huge.evaluate="+url.QueryEscape(`() => "x".repeat(5 * 1024 * 1024)`))
		if a.HTTP != 400 || a.Code != apierr.CodeInvalidQuery || !strings.Contains(a.Message, "`data.huge`") || !strings.Contains(a.Message, "4194304") {
			t.Errorf("HTTP %d %s %s", a.HTTP, a.Code, a.Message)
		}
	})
}
