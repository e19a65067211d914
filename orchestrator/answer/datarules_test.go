package answer

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/query"
)

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

const productURL = "http://shop.example/products/desk"

// dataCase is one query of rules and the JSON of what they read.
type dataCase struct {
	name  string
	query string
	want  string // the data object the rules produce, as JSON
}

var dataCases = []dataCase{
	{"text is read with its spaces collapsed", "data.name.selector=.name",
		`{"name":"Walnut desk"}`},
	{"a price with a thousands comma is a number", "data.price.selector=.price&data.price.type=number",
		`{"price":1299}`},
	{"a European price is a number", "data.old.selector=.old-price&data.old.type=number",
		`{"old":1499.5}`},
	{"a machine date is normalised to ISO in UTC", "data.released.selector=time&data.released.attr=datetime&data.released.type=date",
		`{"released":"2024-03-04T08:00:00.000Z"}`},
	{"a written date is normalised like the metadata date", "data.released.selector=time&data.released.type=date",
		`{"released":"2024-03-04T12:00:00.000Z"}`},
	{"a url is made absolute against the document's base", "data.more.selector=a.more&data.more.attr=href&data.more.type=url",
		`{"more":"http://shop.example/specs/walnut?ref=a&b=c"}`},
	{"a string keeps the attribute as written", "data.more.selector=a.more&data.more.attr=href",
		`{"more":"../specs/walnut?ref=a&b=c"}`},
	{"an image is an asset object with an absolute url", "data.photo.selector=img.photo&data.photo.attr=src&data.photo.type=image",
		`{"photo":{"url":"http://shop.example/shop/img/desk.jpg","type":"jpg"}}`},
	{"a present boolean attribute is true", "data.soldOut.selector=.buy&data.soldOut.attr=disabled&data.soldOut.type=boolean",
		`{"soldOut":true}`},
	{"an absent boolean attribute is false", "data.hidden.selector=.buy&data.hidden.attr=hidden&data.hidden.type=boolean",
		`{"hidden":false}`},
	{"a yes-or-no word is a boolean", "data.inStock.selector=.stock&data.inStock.type=boolean",
		`{"inStock":false}`},
	{"text that is no boolean is null", "data.flag.selector=.name&data.flag.type=boolean",
		`{"flag":null}`},
	{"html is the inner markup, unescaped", "data.blurb.selector=.blurb&data.blurb.attr=html",
		`{"blurb":"<p>Solid <b>walnut</b> &amp; oil.</p>"}`},
	{"any attribute is read by name", "data.sku.selector=.product&data.sku.attr=data-sku",
		`{"sku":"WD-42"}`},
	{"attribute names are case-insensitive", "data.sku.selector=.product&data.sku.attr=DATA-SKU",
		`{"sku":"WD-42"}`},
	{"val reads an input's value", "data.qty.selector=.qty&data.qty.attr=val&data.qty.type=number",
		`{"qty":3}`},
	{"val reads a select's chosen option", "data.color.selector=select&data.color.attr=val",
		`{"color":"walnut"}`},
	{"val reads a textarea's text", "data.note.selector=textarea&data.note.attr=val",
		`{"note":"Deliver after 5"}`},
	{"selectorAll lists every non-empty match", "data.tags.selectorAll=.tags+li",
		`{"tags":["wood","office"]}`},
	{"selectorAll with urls drops what is not a web link", "data.links.selectorAll=a.nav&data.links.attr=href&data.links.type=url",
		`{"links":["http://shop.example/a","https://other.example/b"]}`},
	{"selectorAll that matches nothing is null", "data.none.selectorAll=.nope",
		`{"none":null}`},
	{"a selector that matches nothing is null", "data.missing.selector=.nope",
		`{"missing":null}`},
	{"a missing attribute is null", "data.alt.selector=h1&data.alt.attr=title",
		`{"alt":null}`},
	{"an empty attribute is null", "data.alt.selector=img&data.alt.attr=alt",
		`{"alt":null}`},
	{"the first fallback that finds a value wins",
		"data.subtitle.0.selector=.subtitle&data.subtitle.1.selector=h1.name&data.subtitle.2.selector=title",
		`{"subtitle":"Walnut desk"}`},
	{"a fallback whose value does not fit the type is skipped",
		"data.cost.0.selector=.name&data.cost.0.type=number&data.cost.1.selector=.price&data.cost.1.type=number",
		`{"cost":1299}`},
	{"fallbacks are tried in index order, not query order",
		"data.t.1.selector=h1&data.t.0.selector=title",
		`{"t":"Walnut desk – Shop"}`},
	{"a nested rule reads an object within the first match",
		"data.product.selector=.product&data.product.attr.name.selector=.name&data.product.attr.price.selector=.price" +
			"&data.product.attr.price.type=number&data.product.attr.sku.attr=data-sku",
		`{"product":{"name":"Walnut desk","price":1299,"sku":"WD-42"}}`},
	{"a nested rule over selectorAll gives a list of objects, null where a value is missing",
		"data.products.selectorAll=article&data.products.attr.name.selector=h1&data.products.attr.price.selector=.price" +
			"&data.products.attr.price.type=number&data.products.attr.released.selector=time&data.products.attr.released.attr=datetime" +
			"&data.products.attr.released.type=date",
		`{"products":[{"name":"Walnut desk","price":1299,"released":"2024-03-04T08:00:00.000Z"},{"name":"Chair","price":89,"released":null}]}`},
	{"nested rules nest further and take fallbacks",
		"data.p.selector=article&data.p.attr.buy.selector=.buy&data.p.attr.buy.attr.label.0.selector=.nope" +
			"&data.p.attr.buy.attr.label.1.attr=text&data.p.attr.buy.attr.off.attr=disabled&data.p.attr.buy.attr.off.type=boolean",
		`{"p":{"buy":{"label":"Sold out","off":true}}}`},
	{"a nested rule that finds nothing at all is null",
		"data.p.selector=nav&data.p.attr.price.selector=.price",
		`{"p":null}`},
	{"rules come out in the order the query first names them",
		"data.b.selector=h1&data.a.selector=.price&data.b.type=string",
		`{"b":"Walnut desk","a":"$1,299.00"}`},
	{"snake_case selector_all is selectorAll", "data.tags.selector_all=.tags+li",
		`{"tags":["wood","office"]}`},
}

func TestDataRulesReadTypedValues(t *testing.T) {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(productPage))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse(productURL)
	for _, tc := range dataCases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := query.Parse("url=https%3A%2F%2Fexample.com%2F"+"&"+tc.query, query.Limits{})
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			fields, err := applyDataRules(t.Context(), doc, base, req.Data, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, err := data(fields).MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestParseNumberTextReadsPricesAndCounts(t *testing.T) {
	cases := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"$1,299.00", 1299, true},
		{"1.299,50 €", 1299.5, true},
		{"12,5", 12.5, true},
		{"1,299", 1299, true},
		{"1,299,000", 1299000, true},
		{"1.299.000", 1299000, true},
		{"1 299", 1299, true},
		{"1\u00a0299,90", 1299.9, true},
		{"CHF 1'299.50", 1299.5, true},
		{"4.5 out of 5 stars", 4.5, true},
		{"-3", -3, true},
		{"−3 °C", -3, true},
		{"-$5", -5, true},
		{"1,234 reviews", 1234, true},
		{"42%", 42, true},
		{"0.99", 0.99, true},
		{"3 items for 10", 3, true},
		{"free", 0, false},
		{"", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.in+" reads as a number", func(t *testing.T) {
			got, ok := parseNumberText(tc.in)
			if ok != tc.ok || got != tc.want {
				t.Errorf("got %v (%v), want %v (%v)", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestApplyFilterKeepsOnlyTheNamedPaths(t *testing.T) {
	title := "A title"
	full := func() data {
		return data{
			{"title", &title},
			{"description", nil},
			{"image", &Asset{URL: "https://e.com/a.png", Type: "png", Size: 10, SizePretty: "10 B", Width: 4, Height: 3}},
			{"logo", nil},
			{"product", data{{"name", "Desk"}, {"price", 1299.0}, {"photo", &Asset{URL: "https://e.com/d.jpg", Type: "jpg"}}}},
			{"links", []any{data{{"href", "https://e.com/1"}, {"text", "one"}}, data{{"text", "two"}}}},
			{"tags", []any{"a", "b"}},
		}
	}
	cases := []struct {
		name   string
		d      data
		filter []string
		want   string
	}{
		{"no filter keeps everything", full(), nil,
			`{"title":"A title","description":null,"image":{"url":"https://e.com/a.png","type":"png","size":10,"size_pretty":"10 B","width":4,"height":3},"logo":null,"product":{"name":"Desk","price":1299,"photo":{"url":"https://e.com/d.jpg","type":"jpg"}},"links":[{"href":"https://e.com/1","text":"one"},{"text":"two"}],"tags":["a","b"]}`},
		{"top-level names keep whole fields in answer order", full(), []string{"tags", "title"},
			`{"title":"A title","tags":["a","b"]}`},
		{"a nested path keeps only that key", full(), []string{"title", "image.url"},
			`{"title":"A title","image":{"url":"https://e.com/a.png"}}`},
		{"nested paths into one object keep their keys in its order", full(), []string{"image.height", "image.url"},
			`{"image":{"url":"https://e.com/a.png","height":3}}`},
		{"a whole field wins over a nested path into it", full(), []string{"image.url", "image"},
			`{"image":{"url":"https://e.com/a.png","type":"png","size":10,"size_pretty":"10 B","width":4,"height":3}}`},
		{"a null field stays null under a nested path", full(), []string{"logo.url", "description"},
			`{"description":null,"logo":null}`},
		{"nested paths reach into rule objects", full(), []string{"product.price", "product.photo.url"},
			`{"product":{"price":1299,"photo":{"url":"https://e.com/d.jpg"}}}`},
		{"a path into a list applies to each item", full(), []string{"links.href"},
			`{"links":[{"href":"https://e.com/1"}]}`},
		{"a path that names nothing is left out", full(), []string{"video", "title.url", "image.nope"},
			`{}`},
		{"a rule named like a metadata field replaces it in place", append(full(), field{"title", "From a rule"}), []string{"title", "image.type"},
			`{"title":"From a rule","image":{"type":"png"}}`},
		{"a rule that found nothing leaves the metadata field alone", append(full(), field{"title", nil}), []string{"title"},
			`{"title":"A title"}`},
		{"merging happens without a filter too", data{{"title", &title}, {"x", 1}, {"title", "Rule"}}, nil,
			`{"title":"Rule","x":1}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := applyFilter(tc.d, tc.filter).MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// FuzzDataRules feeds arbitrary `data.*` and `filter` queries through the
// parser, the rules and the filter: a bad query is EINVALQUERY, and an
// accepted one always gives valid JSON over the product page.
func FuzzDataRules(f *testing.F) {
	for _, tc := range dataCases {
		f.Add(tc.query+"&filter=price,product.name", "$1,299.00")
	}
	f.Add("data.x.selectorAll=*&data.x.type=number&filter=x", "−,.,'1 2")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(productPage))
	if err != nil {
		f.Fatal(err)
	}
	base, _ := url.Parse(productURL)
	f.Fuzz(func(t *testing.T, rules, number string) {
		if n, ok := parseNumberText(number); ok && (n != n || n > 1e308 || n < -1e308) {
			t.Fatalf("%q read as %v", number, n)
		}
		req, err := query.Parse("url=https%3A%2F%2Fexample.com%2F&"+rules, query.Limits{})
		if err != nil {
			return // the query package's fuzzing checks what a refusal says
		}
		fields, err := applyDataRules(t.Context(), doc, base, req.Data, 0)
		if err != nil {
			return // a bound was passed, which TestDataRulesAreBounded checks
		}
		d := applyFilter(data(fields), req.Filter)
		body, err := successBody(d, nil)
		if err != nil || !json.Valid(body) {
			t.Fatalf("the answer is not JSON (%v): %s", err, body)
		}
	})
}

func TestDataRulesAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("<ul>")
	for range maxDataListItems + 500 {
		b.WriteString("<li>x</li>")
	}
	b.WriteString("</ul>")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	req, err := query.Parse("url=https%3A%2F%2Fexample.com%2F"+"&data.items.selectorAll=li", query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse(productURL)
	out, err := applyDataRules(t.Context(), doc, base, req.Data, 0)
	if err != nil {
		t.Fatal(err)
	}
	if list, _ := out[0].value.([]any); len(list) != maxDataListItems {
		t.Errorf("selectorAll gave %d values, want the cap of %d", len(list), maxDataListItems)
	}
}

// nestedPage is a small page that nested selectorAll levels multiply: 40
// sections of 40 paragraphs of 40 spans.
func nestedPage() string {
	var b strings.Builder
	b.WriteString("<html><body>")
	for range 40 {
		b.WriteString("<section>")
		for range 40 {
			b.WriteString("<p>")
			for range 40 {
				b.WriteString("<span>" + strings.Repeat("word ", 20) + "</span>")
			}
			b.WriteString("</p>")
		}
		b.WriteString("</section>")
	}
	b.WriteString("</body></html>")
	return b.String()
}

func TestDataRulesStopAtTheirBoundsAndSaySo(t *testing.T) {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(nestedPage()))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("https://example.com/")
	nested := "&data.all.selectorAll=*&data.all.attr.inner.selectorAll=*&data.all.attr.inner.attr.deeper.selectorAll=*" +
		"&data.all.attr.inner.attr.deeper.attr.deepest.selectorAll=*&data.all.attr.inner.attr.deeper.attr.deepest.attr=html"
	cases := []struct {
		name     string
		rules    string
		maxBytes int
		want     []string
	}{
		{"nested selectorAll levels stop at the work budget", nested, 0, []string{"`data.all`", "200000 elements"}},
		{"values past the output cap stop at the cap", "&data.body.selectorAll=span&data.body.attr=html", 64 << 10, []string{"`data.body`", "65536 bytes", "GLIMPSE_MAX_DATA_BYTES"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := query.Parse("url=https%3A%2F%2Fexample.com%2F"+tc.rules, query.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = applyDataRules(t.Context(), doc, base, req.Data, tc.maxBytes)
			e := apierr.From(err)
			if e == nil || e.Code != apierr.CodeInvalidQuery || e.Status() >= 500 {
				t.Fatalf("got %v, want a 4xx EINVALQUERY", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(e.Message, w) {
					t.Errorf("%q does not say %q", e.Message, w)
				}
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("stopping took %s", d)
			}
		})
	}
	t.Run("the request's deadline ends the rules", func(t *testing.T) {
		req, err := query.Parse("url=https%3A%2F%2Fexample.com%2F"+nested, query.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err = applyDataRules(ctx, doc, base, req.Data, 0)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("the rules ran %s past a deadline of 5ms", d)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v; want the rules cut off by the deadline", err)
		}
	})
}
