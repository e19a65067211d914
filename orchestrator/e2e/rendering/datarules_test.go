package rendering_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// dynamicProductPage sets its price by script after load, so only a
// browser sees it; its title and text make a plain fetch look enough.
const dynamicProductPage = `<!doctype html><html lang="en"><head><title>Oak shelf – Shop</title></head><body>
<h1 class="name">Oak shelf</h1><span class="price"></span>
<p>` + "A sturdy shelf of solid oak, oiled by hand, with room for two hundred books and a lamp. It ships flat in one box and goes together in ten minutes with the key it comes with." + `</p>
<script>addEventListener("load", () => { document.querySelector(".price").textContent = "$249.50"; });</script>
</body></html>`

func TestDataRulesAndFilterOnARealPage(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/products/desk":  e2e.HTML(productPage),
		"/products/shelf": e2e.HTML(dynamicProductPage),
	})
	rules := "data.price.selector=.price&data.price.type=number" +
		"&data.released.selector=time&data.released.attr=datetime&data.released.type=date" +
		"&data.photo.selector=img.photo&data.photo.attr=src&data.photo.type=image" +
		"&data.products.selectorAll=article&data.products.attr.name.selector=h1&data.products.attr.name.attr=text&data.products.attr.sku.attr=data-sku"
	wantRules := `"price":1299,"released":"2024-03-04T08:00:00.000Z","photo":{"url":"` + ps.URL + `/shop/img/desk.jpg","type":"jpg"},` +
		`"products":[{"name":"Walnut desk","sku":"WD-42"},{"name":"Chair","sku":"CH-7"}]`

	for _, mode := range []struct{ name, query, fetchMode string }{
		{"a plain fetch", "", "fetch"},
		{"the browser", "&prerender=true", "prerender"},
	} {
		t.Run("rules read typed values through "+mode.name, func(t *testing.T) {
			a := app.Get(ps.URL+"/products/desk", rules+mode.query)
			if a.HTTP != 200 {
				t.Fatalf("HTTP %d %s %s", a.HTTP, a.Code, a.Message)
			}
			if got := a.Header.Get("x-fetch-mode"); got != mode.fetchMode {
				t.Errorf("x-fetch-mode %q, want %q", got, mode.fetchMode)
			}
			if !strings.Contains(string(a.Data), wantRules) {
				t.Errorf("data %s\ndoes not end with the rules' values %s", a.Data, wantRules)
			}
			if a.Field("date") != "2024-03-04T08:00:00.000Z" {
				t.Errorf("the metadata date %v is not the rule's date normalised alike", a.Field("date"))
			}
			if !strings.HasPrefix(string(a.Data), `{"title":`) {
				t.Errorf("the metadata does not come first: %s", a.Data)
			}
		})
	}

	t.Run("a value set by script is read by the browser", func(t *testing.T) {
		a := app.Get(ps.URL+"/products/shelf", "data.price.selector=.price&data.price.type=number&prerender=true")
		if a.HTTP != 200 || a.Field("price") != 249.5 {
			t.Errorf("HTTP %d, price %v (%s)", a.HTTP, a.Field("price"), a.Data)
		}
	})

	t.Run("meta=false gives the rules alone", func(t *testing.T) {
		a := app.Get(ps.URL+"/products/desk", "meta=false&data.sku.selector=article&data.sku.attr=data-sku")
		if a.HTTP != 200 || string(a.Data) != `{"sku":"WD-42"}` {
			t.Errorf("HTTP %d, data %s", a.HTTP, a.Data)
		}
	})

	t.Run("a rule named like a metadata field replaces it", func(t *testing.T) {
		a := app.Get(ps.URL+"/products/desk", "data.title.selector=h1&data.title.type=title&filter=title,lang")
		if a.HTTP != 200 || string(a.Data) != `{"title":"Walnut desk","lang":"en"}` {
			t.Errorf("HTTP %d, data %s", a.HTTP, a.Data)
		}
	})

	t.Run("filter keeps only the named paths", func(t *testing.T) {
		a := app.Get(ps.URL+"/products/desk", "filter=title,image.url,price&data.price.selector=.price&data.price.type=number&ping=false")
		want := `{"title":"Walnut desk – Shop","image":{"url":"` + ps.URL + `/shop/img/desk.jpg"},"price":1299}`
		if a.HTTP != 200 || string(a.Data) != want {
			t.Errorf("HTTP %d\ndata %s\nwant %s", a.HTTP, a.Data, want)
		}
		full := app.Get(ps.URL+"/products/desk", "data.price.selector=.price&data.price.type=number&ping=false")
		if full.Header.Get("x-cache-status") != "MISS" || !full.Has("description") {
			t.Errorf("the unfiltered answer came from the filtered one's cache entry: %s %s", full.Header.Get("x-cache-status"), full.Data)
		}
	})

	t.Run("a bad rule is refused before any work", func(t *testing.T) {
		before := ps.Hits["/products/desk"].Load()
		a := app.Get(ps.URL+"/products/desk", "data.price.selector=.price&data.price.type=money")
		if a.HTTP != 400 || a.Code != apierr.CodeInvalidQuery || !strings.Contains(a.Message, "`data.price.type`") {
			t.Errorf("HTTP %d %s %s", a.HTTP, a.Code, a.Message)
		}
		if ps.Hits["/products/desk"].Load() != before {
			t.Error("the target was fetched for a refused query")
		}
	})
}

// productPage is a shop's product page with every kind of value a rule
// reads: text with odd spacing, prices in two notations, a machine date
// and a written one, relative links under a <base>, boolean attributes,
// form values, a list and a second product.
const productPage = `<!doctype html><html lang="en"><head><title>Walnut desk – Shop</title>
<base href="/shop/">
<meta property="article:published_time" content="2024-03-04T10:00:00+02:00">
</head><body>
<article class="product" data-sku="WD-42">
  <h1 class="name">  Walnut
     desk </h1>
  <span class="price">$1,299.00</span>
  <span class="old-price">1.499,50 €</span>
  <time class="released" datetime="2024-03-04T10:00:00+02:00">March 4, 2024</time>
  <a class="more" href="../specs/walnut?ref=a&amp;b=c">Specs</a>
  <img class="photo" src="img/desk.jpg" alt="">
  <button class="buy" disabled>Sold out</button>
  <span class="stock">no</span>
  <div class="blurb"><p>Solid <b>walnut</b> &amp; oil.</p></div>
  <input class="qty" value=" 3 ">
  <select class="color"><option value="oak">Oak</option><option value="walnut" selected>Walnut</option></select>
  <textarea class="note">Deliver after 5</textarea>
  <ul class="tags"><li>wood</li><li>  office </li><li> </li></ul>
</article>
<article class="product" data-sku="CH-7"><h1 class="name">Chair</h1><span class="price">$89</span></article>
<nav><a class="nav" href="/a">A</a><a class="nav" href="https://other.example/b">B</a><a class="nav" href="javascript:void(0)">C</a></nav>
</body></html>`
