package rendering_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// pixelsPage refers to a picture, a font, a video and a preloaded
// picture, each of which only paints.
const pixelsPage = `<!doctype html><html lang="en"><head><title>Pixels</title>
<meta property="og:image" content="/hero.png">
<link rel="preload" as="image" href="/preloaded.png">
<style>@font-face { font-family: F; src: url(/font.woff2); } body { font-family: F; background: url(/bg.png); }</style>
</head><body><h1>Pixels</h1><img src="/photo.png"><video src="/clip.mp4" autoplay muted></video>
<script>fetch("/api").then(r => r.text()).then(t => { document.querySelector('meta[name=description]') || document.head.insertAdjacentHTML("beforeend", '<meta name="description" content="' + t + '">') })</script>
</body></html>`

func pixelsServer(t *testing.T, cookies *[]string, mu *sync.Mutex) *e2e.PageServer {
	png := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "image/png")
		_, _ = w.Write(onePixelPNG)
	}
	blob := func(ct string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", ct)
			_, _ = w.Write(bytes.Repeat([]byte{0}, 64))
		}
	}
	return e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/page": func(w http.ResponseWriter, r *http.Request) {
			if c := r.Header.Get("Cookie"); c != "" {
				mu.Lock()
				*cookies = append(*cookies, c)
				mu.Unlock()
			}
			e2e.HTML(pixelsPage)(w, r)
		},
		"/api":           func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "filled by a script") },
		"/hero.png":      png,
		"/preloaded.png": png,
		"/photo.png":     png,
		"/bg.png":        png,
		"/font.woff2":    blob("font/woff2"),
		"/clip.mp4":      blob("video/mp4"),
	})
}

// onePixelPNG is a 1×1 transparent PNG.
var onePixelPNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
	0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x00, 0x02, 0x00,
	0x00, 0x05, 0x00, 0x01, 0x7a, 0x5e, 0xab, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44,
	0xae, 0x42, 0x60, 0x82,
}

var pixelPaths = []string{"/preloaded.png", "/photo.png", "/bg.png", "/font.woff2", "/clip.mp4"}

func TestLeanRendersLoadNoPixels(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	var mu sync.Mutex
	var cookies []string
	ps := pixelsServer(t, &cookies, &mu)
	loaded := func() []string {
		var out []string
		for _, p := range pixelPaths {
			if ps.Hits[p].Load() > 0 {
				out = append(out, p)
			}
		}
		return out
	}
	reset := func() {
		for _, n := range ps.Hits {
			n.Store(0)
		}
	}

	for _, tc := range []struct {
		name, query string
	}{
		{name: "metadata", query: "prerender=true&ping=false"},
		{name: "data rules", query: "prerender=true&ping=false&meta=false&data.h.selector=h1"},
		{name: "Markdown", query: "prerender=true&ping=false&meta=false&data.md.attr=markdown"},
		{name: "metadata with forwarded headers", query: "prerender=true&ping=false&headers.cookie=" + url.QueryEscape("session=abc")},
	} {
		t.Run(tc.name+" loads no picture, font or video", func(t *testing.T) {
			reset()
			a := app.Get(ps.URL+"/page", tc.query+"&force=true")
			if a.HTTP != http.StatusOK {
				t.Fatalf("answer %d %s: %s", a.HTTP, a.Code, a.Message)
			}
			if got := loaded(); len(got) > 0 {
				t.Errorf("the render loaded %v", got)
			}
			if ps.Hits["/api"].Load() == 0 {
				t.Error("the page's own fetch did not run")
			}
			if tc.name == "metadata" {
				if d, _ := a.Field("description").(string); d != "filled by a script" {
					t.Errorf("description = %q, want what the page's script wrote", d)
				}
			}
		})
	}
	t.Run("forwarded headers still reach the page itself", func(t *testing.T) {
		mu.Lock()
		defer mu.Unlock()
		if !slices.Contains(cookies, "session=abc") {
			t.Errorf("the page got cookies %q, want the forwarded one", cookies)
		}
	})
	t.Run("a screenshot loads the pictures", func(t *testing.T) {
		reset()
		a := app.Get(ps.URL+"/page", "screenshot=true&meta=false&force=true")
		if a.HTTP != http.StatusOK {
			t.Fatalf("answer %d %s: %s", a.HTTP, a.Code, a.Message)
		}
		if ps.Hits["/photo.png"].Load() == 0 {
			t.Errorf("the screenshot's render did not load the page's picture (loaded %v)", loaded())
		}
	})
	t.Run("GLIMPSE_FULL_RENDERS loads everything", func(t *testing.T) {
		full := e2e.StartApp(t, func(c *orchestrator.Config) { c.FullRenders = true })
		reset()
		if a := full.Get(ps.URL+"/page", "prerender=true&ping=false&force=true"); a.HTTP != http.StatusOK {
			t.Fatalf("answer %d %s: %s", a.HTTP, a.Code, a.Message)
		}
		if ps.Hits["/photo.png"].Load() == 0 {
			t.Errorf("a full render did not load the page's picture (loaded %v)", loaded())
		}
	})
}

// A lean render reads the document once it has stopped changing, without
// waiting for a subresource that holds the load event; a caller's
// waitUntil=load still waits for it.
func TestLeanRendersDoNotWaitForLoad(t *testing.T) {
	app := e2e.StartApp(t, nil)
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/page": e2e.HTML(`<!doctype html><html><head><title>Held</title><meta name="description" content="a page whose load never comes">
</head><body><h1>Held</h1><iframe src="/held"></iframe></body></html>`),
		"/held": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			e2e.HTML("<p>late</p>")(w, r)
		},
	})
	before := e2e.Counter(t, app.Registry, "glimpse_render_early_reads_total", map[string]string{"reason": "quiet"})
	a := app.Get(ps.URL+"/page", "prerender=true&ping=false&force=true&timeout=20s")
	if a.HTTP != http.StatusOK || a.Field("title") != "Held" {
		t.Fatalf("answer %d %s %s, want the page's metadata while its frame is held", a.HTTP, a.Code, a.Raw)
	}
	if got := e2e.Counter(t, app.Registry, "glimpse_render_early_reads_total", map[string]string{"reason": "quiet"}); got != before+1 {
		t.Errorf("early reads (quiet) went from %v to %v, want one more", before, got)
	}

	t.Run("waitUntil=load waits for the held frame", func(t *testing.T) {
		done := make(chan e2e.Answer, 1)
		go func() {
			done <- app.Get(ps.URL+"/page", "prerender=true&ping=false&force=true&waitUntil=load&timeout=20s")
		}()
		select {
		case a := <-done:
			t.Fatalf("answered %d before the frame was released", a.HTTP)
		case <-reaches(ps.Hits["/held"], 2):
		}
		free()
		if a := <-done; a.HTTP != http.StatusOK || a.Field("title") != "Held" {
			t.Fatalf("answer %d %s: %s", a.HTTP, a.Code, a.Message)
		}
	})
}

// reaches is closed once n reaches want.
func reaches(n interface{ Load() int64 }, want int64) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		for n.Load() < want {
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return ch
}

// evalSets are the folders of real pages with their metadata, when they
// are beside the repository (or named by GLIMPSE_EVAL_DIR).
func evalSets(t *testing.T) map[string]string {
	t.Helper()
	base := filepath.Join("..", "..", "..", "..", "shared", "eval", "metadata")
	if d := os.Getenv("GLIMPSE_EVAL_DIR"); d != "" {
		base = filepath.Dir(filepath.Clean(d))
	}
	sets := map[string]string{}
	for _, name := range []string{"cases", "cases-readability"} {
		if _, err := os.Stat(filepath.Join(base, name)); err == nil {
			sets[name] = filepath.Join(base, name)
		}
	}
	if len(sets) == 0 {
		t.Skipf("no metadata sets at %s (set GLIMPSE_EVAL_DIR to score against them)", base)
	}
	return sets
}

// Speed never costs accuracy: on every real page of the metadata sets, a
// lean render answers exactly what a full render does, field by field.
func TestLeanRendersAnswerLikeFullOnes(t *testing.T) {
	t.Parallel() // answers are compared, not times
	sets := evalSets(t)
	pages := devPages(t, sets)
	// Every page takes two renders: by default a fixed quarter of the
	// pages keeps the suite quick; GLIMPSE_EVAL_LEAN=1 compares them all.
	pages = everyNth(pages, 4, "GLIMPSE_EVAL_LEAN")
	srv := serveDevPages(t, sets)
	lean := e2e.Shared(t)
	full := e2e.StartApp(t, func(c *orchestrator.Config) { c.FullRenders = true })
	fromLean, fromFull := renderOnBoth(srv, pages, lean, full, func(devPage) string { return "prerender=true&ping=false&force=true" })

	differ := 0
	for i, p := range pages {
		r := struct {
			p          devPage
			lean, full e2e.Answer
		}{p, fromLean[i], fromFull[i]}
		if r.lean.HTTP != http.StatusOK || r.full.HTTP != http.StatusOK {
			t.Errorf("%s/%s: lean %d %s, full %d %s", r.p.set, r.p.name, r.lean.HTTP, r.lean.Code, r.full.HTTP, r.full.Code)
			continue
		}
		var l, f map[string]json.RawMessage
		_ = json.Unmarshal(r.lean.Data, &l)
		_ = json.Unmarshal(r.full.Data, &f)
		for _, field := range []string{"title", "description", "lang", "author", "publisher", "image", "date", "datePublished", "dateModified", "url", "logo"} {
			if !bytes.Equal(l[field], f[field]) {
				differ++
				t.Errorf("%s/%s %s: lean %s, full %s", r.p.set, r.p.name, field, l[field], f[field])
			}
		}
	}
	t.Logf("%d pages, %d fields that differ", len(pages), differ)
}

// bytesSplitPath splits a URL path into its non-empty segments.
func bytesSplitPath(p string) []string {
	var out []string
	for _, s := range bytes.Split([]byte(p), []byte("/")) {
		if len(s) > 0 {
			u, err := url.PathUnescape(string(s))
			if err != nil {
				return nil
			}
			out = append(out, u)
		}
	}
	return out
}

// A lean render does not wait for other sites' scripts (tag managers,
// pixels, ad libraries) once the document holds its content, nor for the
// scripts they keep adding to the head; a document without its content
// still waits for them, since one of them may be what draws it.
func TestLeanRendersDoNotWaitForOtherSitesScriptsOnceTheContentIsThere(t *testing.T) {
	app := e2e.StartApp(t, nil)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	var other string // the held script on another site: the same server under another name
	const paragraph = `<p>Every paragraph of this article is long enough that three of them make a page that holds its content, as a server-drawn article does before any script of another site has run.</p>`
	tags := `<script>setInterval(() => { const s = document.createElement("script"); s.textContent = "0"; document.head.appendChild(s) }, 50)</script>`
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/article": func(w http.ResponseWriter, r *http.Request) {
			e2e.HTML(`<!doctype html><html lang="en"><head><title>Drawn by the server</title>
<script async src="`+other+`"></script>`+tags+`</head><body><h1>Drawn by the server</h1>`+paragraph+paragraph+paragraph+`</body></html>`)(w, r)
		},
		"/shell": func(w http.ResponseWriter, r *http.Request) {
			e2e.HTML(`<!doctype html><html lang="en"><head><title>Drawn by a script</title>
<script async src="`+other+`"></script></head><body><div id="root"></div></body></html>`)(w, r)
		},
		"/held.js": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			w.Header().Set("content-type", "text/javascript")
		},
	})
	u, _ := url.Parse(ps.URL)
	other = "http://localhost:" + u.Port() + "/held.js"
	early := func(reason string) float64 {
		return e2e.Counter(t, app.Registry, "glimpse_render_early_reads_total", map[string]string{"reason": reason})
	}

	quiet, capped := early("quiet"), early("cap")
	a := app.Get(ps.URL+"/article", "prerender=true&ping=false&force=true&timeout=20s")
	if a.HTTP != http.StatusOK || a.Field("title") != "Drawn by the server" {
		t.Fatalf("answer %d %s %s, want the article's metadata while another site's script is held", a.HTTP, a.Code, a.Raw)
	}
	if ps.Hits["/held.js"].Load() == 0 {
		t.Fatal("the page never asked for the other site's script; the test proves nothing")
	}
	if q, c := early("quiet"), early("cap"); q != quiet+1 || c != capped {
		t.Errorf("early reads went quiet %v→%v, cap %v→%v; want one more quiet read", quiet, q, capped, c)
	}

	quiet, capped = early("quiet"), early("cap")
	if a := app.Get(ps.URL+"/shell", "prerender=true&ping=false&force=true&timeout=20s"); a.HTTP != http.StatusOK {
		t.Fatalf("answer %d %s: %s", a.HTTP, a.Code, a.Message)
	}
	if q, c := early("quiet"), early("cap"); q != quiet || c != capped+1 {
		t.Errorf("early reads went quiet %v→%v, cap %v→%v; a document without its content waits for the other site's script until the cap", quiet, q, capped, c)
	}
}
