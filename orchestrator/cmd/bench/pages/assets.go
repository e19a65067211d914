package pages

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// galleryImages is how many distinct pictures the gallery cycles through;
// every <img> still has its own URL, so the browser fetches each one.
const galleryImages = 24

// apiDelay is how long the script-heavy page's data API takes to answer,
// which is what makes that page name itself after its load event.
const apiDelay = 80 * time.Millisecond

// assets are the subresources of the synthetic pages, made once at start.
type assets struct {
	hero    []byte // JPEG, 1200×630, the article's og:image
	photos  [][]byte
	favicon []byte
	css     []byte
	siteJS  []byte
	appJS   []byte
	vendor  []byte
	story   []byte
	// pictures stand in for the pictures of the corpus's real pages.
	pictures standIns
}

var (
	made     *assets
	madeErr  error
	makeOnce sync.Once
)

// newAssets makes the subresources once per process; they never change.
func newAssets() (*assets, error) {
	makeOnce.Do(func() { made, madeErr = makeAssets() })
	return made, madeErr
}

func makeAssets() (*assets, error) {
	rng := rand.New(rand.NewPCG(7, 11))
	a := &assets{}
	var err error
	if a.hero, err = encodeJPEG(blocks(rng, 1200, 630, 24)); err != nil {
		return nil, err
	}
	for i := range galleryImages {
		w, h := 320+(i%4)*40, 240+(i%3)*30
		b, err := encodePNG(blocks(rng, w, h, 16))
		if err != nil {
			return nil, err
		}
		a.photos = append(a.photos, b)
	}
	if a.favicon, err = encodePNG(blocks(rng, 32, 32, 8)); err != nil {
		return nil, err
	}
	a.css = []byte(siteCSS)
	a.siteJS = []byte(siteJS)
	a.vendor = scriptBundle(rng, "vendor", 1500)
	a.appJS = append(scriptBundle(rng, "app", 1500), []byte(appMain)...)
	a.story = []byte(storyJSON)
	if a.pictures, err = makeStandIns(rng); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *assets) mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /img/hero.jpg", blob("image/jpeg", a.hero))
	a.pictures.mount(mux)
	mux.HandleFunc("GET /favicon.png", blob("image/png", a.favicon))
	mux.HandleFunc("GET /static/site.css", blob("text/css; charset=utf-8", a.css))
	mux.HandleFunc("GET /static/site.js", blob("text/javascript; charset=utf-8", a.siteJS))
	mux.HandleFunc("GET /static/vendor.js", blob("text/javascript; charset=utf-8", a.vendor))
	mux.HandleFunc("GET /static/app.js", blob("text/javascript; charset=utf-8", a.appJS))
	mux.HandleFunc("GET /img/photo/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(strings.TrimSuffix(r.PathValue("n"), ".png"))
		if err != nil || n < 0 {
			http.NotFound(w, r)
			return
		}
		blob("image/png", a.photos[n%len(a.photos)])(w, r)
	})
	mux.HandleFunc("GET /api/story.json", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(apiDelay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		blob("application/json", a.story)(w, r)
	})
}

func blob(contentType string, b []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", contentType)
		if h.Get("Cache-Control") == "" {
			h.Set("Cache-Control", "public, max-age=3600")
		}
		h.Set("Content-Length", strconv.Itoa(len(b)))
		_, _ = w.Write(b)
	}
}

// blocks paints a picture of coloured squares with a little grain: it
// compresses like a photograph more than a flat fill or pure noise would.
func blocks(rng *rand.Rand, w, h, size int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	grain := rng.Uint32() | 1
	for by := 0; by < h; by += size {
		for bx := 0; bx < w; bx += size {
			r, g, b := uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256))
			for y := by; y < min(by+size, h); y++ {
				row := img.Pix[y*img.Stride:]
				for x := bx; x < min(bx+size, w); x++ {
					grain ^= grain << 13 // xorshift: cheap grain, the block colour is what matters
					grain ^= grain >> 17
					grain ^= grain << 5
					n := uint8(grain % 12)
					row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = r+n, g+n, b+n, 255
				}
			}
		}
	}
	return img
}

func encodePNG(img image.Image) ([]byte, error) {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("encoding a test image: %w", err)
	}
	return b.Bytes(), nil
}

func encodeJPEG(img image.Image) ([]byte, error) {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
		return nil, fmt.Errorf("encoding a test image: %w", err)
	}
	return b.Bytes(), nil
}

// scriptBundle is n small modules' worth of JavaScript, the way a bundler
// emits them: most are parsed and compiled, some run at start.
func scriptBundle(rng *rand.Rand, name string, n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "/* %s bundle */\n(function(){\nvar registry = {};\n", name)
	for i := range n {
		fmt.Fprintf(&b, "registry[%q] = function(input) { var out = []; for (var k = 0; k < %d; k++) { out.push((input || %q) + ':' + k * %d); } return out.join('|').length; };\n",
			fmt.Sprintf("%s/module-%d", name, i), 4+rng.IntN(20), words[rng.IntN(len(words))], 1+rng.IntN(97))
	}
	fmt.Fprintf(&b, "var total = 0; Object.keys(registry).forEach(function(k, i) { if (i %% 3 === 0) total += registry[k](k); });\nwindow.__%s = total;\n})();\n", name)
	return []byte(b.String())
}

const siteCSS = `body{font:16px/1.6 Georgia,serif;margin:0;color:#222;background:#fafafa}
header,footer{background:#123;color:#eee;padding:12px 24px}
nav a{color:#cde;margin-right:12px}
main{max-width:760px;margin:24px auto;padding:0 16px}
article img{max-width:100%;height:auto}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:8px}
.grid img{width:100%;height:auto;display:block}
pre{background:#eee;padding:12px;overflow:auto}
.item{padding:4px 0;border-bottom:1px solid #ddd}
`

const siteJS = `(function(){
  var start = Date.now();
  window.dataLayer = window.dataLayer || [];
  window.dataLayer.push({event: 'pageview', path: location.pathname, t: start});
  document.addEventListener('DOMContentLoaded', function(){
    var links = document.querySelectorAll('a');
    for (var i = 0; i < links.length; i++) links[i].setAttribute('data-idx', i);
  });
})();
`

// appMain renders the page's content on the client, then asks the data API
// for the story and only then fills in the title and the metadata: after
// the load event, as single-page applications do.
const appMain = `
(function(){
  var root = document.getElementById('root');
  var frag = document.createDocumentFragment();
  for (var i = 0; i < 1500; i++) {
    var d = document.createElement('div');
    d.className = 'item';
    d.textContent = 'Item ' + i + ' ' + (window.__app % (i + 7));
    frag.appendChild(d);
  }
  root.appendChild(frag);
  fetch('/api/story.json').then(function(r){ return r.json(); }).then(function(s){
    document.title = s.title;
    var head = document.head;
    function meta(attr, key, value) {
      var m = document.createElement('meta'); m.setAttribute(attr, key); m.setAttribute('content', value); head.appendChild(m);
    }
    meta('name', 'description', s.description);
    meta('property', 'og:title', s.title);
    meta('property', 'og:description', s.description);
    meta('property', 'og:image', s.image);
    meta('name', 'author', s.author);
    var ld = document.createElement('script'); ld.type = 'application/ld+json';
    ld.textContent = JSON.stringify({'@context': 'https://schema.org', '@type': 'Article', headline: s.title, datePublished: s.date, author: {'@type': 'Person', name: s.author}});
    head.appendChild(ld);
    var h = document.createElement('h1'); h.textContent = s.title; root.insertBefore(h, root.firstChild);
  });
})();
`

const storyJSON = `{"title":"Dashboards that load themselves: a field report","description":"How a client-rendered newsroom tool fetches its story after the page has loaded, and what that means for link previews.","image":"/img/hero.jpg","author":"Ines Moreau","date":"2026-03-02T08:15:00Z"}`
