package orchestrator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
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
			req, err := ParseRequest(exampleTarget+"&"+tc.query, Limits{})
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			got, err := data(applyDataRules(doc, base, req.Data)).MarshalJSON()
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

func wantRules(want ...DataRule) func(t *testing.T, r *Request) {
	return func(t *testing.T, r *Request) {
		t.Helper()
		if !reflect.DeepEqual(r.Data, want) {
			t.Errorf("rules %+v\nwant  %+v", r.Data, want)
		}
	}
}

func wantFilter(paths ...string) func(t *testing.T, r *Request) {
	return func(t *testing.T, r *Request) {
		t.Helper()
		if !reflect.DeepEqual(r.Filter, paths) {
			t.Errorf("filter %q, want %q", r.Filter, paths)
		}
	}
}

var dataParseCases = []requestCase{
	{name: "no rules and no filter unless asked", query: "pdf", check: func(t *testing.T, r *Request) {
		if r.Data != nil || r.Filter != nil {
			t.Errorf("rules %+v, filter %q", r.Data, r.Filter)
		}
	}},
	{name: "a rule defaults to the text as a string", query: "data.t.selector=h1",
		check: wantRules(DataRule{Name: "t", Fallbacks: []DataQuery{{Selector: "h1", Attr: "text", Type: "string"}}})},
	{name: "the type and attr are read in any case", query: "data.t.selectorAll=a&data.t.attr=HREF&data.t.type=URL",
		check: wantRules(DataRule{Name: "t", Fallbacks: []DataQuery{{Selector: "a", All: true, Attr: "href", Type: "url"}}})},
	{name: "nested rules keep their order", query: "data.p.selector=.p&data.p.attr.b.selector=.b&data.p.attr.a.attr=id",
		check: wantRules(DataRule{Name: "p", Fallbacks: []DataQuery{{Selector: ".p", Fields: []DataRule{
			{Name: "b", Fallbacks: []DataQuery{{Selector: ".b", Attr: "text", Type: "string"}}},
			{Name: "a", Fallbacks: []DataQuery{{Attr: "id", Type: "string"}}},
		}}}})},
	{name: "filter lists paths", query: "filter=title,+image.url+,title", check: wantFilter("title", "image.url")},

	{name: "a bare data parameter is refused", query: "data=x", code: CodeInvalidQuery, param: "data",
		msg: []string{"one parameter per rule property"}},
	{name: "a rule without properties is refused", query: "data.price=.price", code: CodeInvalidQuery, param: "data.price",
		msg: []string{"`data.price.selector=.price`"}},
	{name: "a rule without a selector is refused", query: "data.price.type=number", code: CodeInvalidQuery, param: "data.price.type",
		msg: []string{"add `data.price.selector`"}},
	{name: "a fallback without a selector is refused", query: "data.t.0.selector=h1&data.t.1.type=date", code: CodeInvalidQuery, param: "data.t.1.type",
		msg: []string{"add `data.t.1.selector`"}},
	{name: "an unknown property is refused", query: "data.t.selecter=h1", code: CodeInvalidQuery, param: "data.t.selecter",
		msg: []string{"not a data rule property", "`.selectorAll`"}},
	{name: "an evaluate property is refused as unknown", query: "data.t.evaluate=1", code: CodeInvalidQuery, param: "data.t.evaluate"},
	{name: "an empty rule name is refused", query: "data..selector=h1", code: CodeInvalidQuery, param: "data..selector",
		msg: []string{"empty rule name"}},
	{name: "a rule name with a space is refused", query: "data.a+b.selector=h1", code: CodeInvalidQuery, param: "data.a b.selector",
		msg: []string{"spaces or control characters"}},
	{name: "a rule named pdf is refused", query: "data.pdf.selector=h1", code: CodeInvalidQuery, param: "data.pdf.selector",
		msg: []string{"hide the answer's own `pdf`"}},
	{name: "a rule named screenshot is refused", query: "data.screenshot.selector=h1", code: CodeInvalidQuery, param: "data.screenshot.selector"},
	{name: "an invalid selector is refused", query: "data.t.selector=div%5B", code: CodeInvalidQuery, param: "data.t.selector",
		msg: []string{"not a valid CSS selector"}},
	{name: "an empty selector is refused", query: "data.t.selector=+", code: CodeInvalidQuery, param: "data.t.selector",
		msg: []string{"needs a CSS selector"}},
	{name: "selector and selectorAll together are refused", query: "data.t.selector=h1&data.t.selectorAll=h2", code: CodeInvalidQuery,
		param: "data.t.selectorAll", msg: []string{"cannot be combined"}},
	{name: "an unknown type is refused with the list", query: "data.t.selector=h1&data.t.type=email", code: CodeInvalidQuery,
		param: "data.t.type", msg: []string{"`string`, `number`, `date`, `url`, `image`, `boolean`", "got `email`"}},
	{name: "an empty attr is refused", query: "data.t.selector=h1&data.t.attr=", code: CodeInvalidQuery, param: "data.t.attr",
		msg: []string{"`text`, `html`, `val`"}},
	{name: "an attr that cannot be an attribute name is refused", query: "data.t.selector=h1&data.t.attr=a%3Db", code: CodeInvalidQuery,
		param: "data.t.attr"},
	{name: "attr and nested rules together are refused", query: "data.t.selector=h1&data.t.attr=href&data.t.attr.x.selector=b",
		code: CodeInvalidQuery, param: "data.t.attr", msg: []string{"not both"}},
	{name: "a type on nested rules is refused", query: "data.t.selector=h1&data.t.type=string&data.t.attr.x.selector=b",
		code: CodeInvalidQuery, param: "data.t.type", msg: []string{"does not apply to nested rules"}},
	{name: "a rule mixing fallbacks and a direct selector is refused", query: "data.t.selector=h1&data.t.0.selector=h2",
		code: CodeInvalidQuery, param: "data.t.selector", msg: []string{"mixes a rule"}},
	{name: "too many fallbacks are refused", query: "data.t.10.selector=h1", code: CodeInvalidQuery, param: "data.t.10.selector",
		msg: []string{"up to 10 fallbacks"}},
	{name: "rules nested too deep are refused",
		query: "data.a.selector=x&data.a.attr.b.attr.c.attr.d.attr.e.attr.f.selector=y", code: CodeInvalidQuery,
		param: "data.a.attr.b.attr.c.attr.d.attr.e.attr.f.selector", msg: []string{"more than 4 levels"}},
	{name: "a property repeated with another value is refused", query: "data.t.selectorAll=a&data.t.selector_all=b",
		code: CodeInvalidQuery, param: "data.t.selector_all", msg: []string{"given twice"}},
	{name: "too many rule parameters are refused", query: manyDataParams(maxDataParams + 1),
		code: CodeInvalidQuery, param: "data.r256.selector", msg: []string{"up to 256"}},

	{name: "an empty filter is refused", query: "filter=", code: CodeInvalidQuery, param: "filter", msg: []string{"`title,image.url`"}},
	{name: "a filter with an empty item is refused", query: "filter=title,,url", code: CodeInvalidQuery, param: "filter"},
	{name: "a filter path with an empty segment is refused", query: "filter=image..url", code: CodeInvalidQuery, param: "filter"},
	{name: "a filter with too many paths is refused", query: "filter=" + manyPaths(maxFilterPaths+1), code: CodeInvalidQuery, param: "filter",
		msg: []string{"at most 64"}},
}

func manyDataParams(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = "data.r" + strconv.Itoa(i) + ".selector=h1"
	}
	return strings.Join(parts, "&")
}

func manyPaths(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = "f" + strconv.Itoa(i)
	}
	return strings.Join(parts, ",")
}

func TestParseRequestReadsDataRulesAndFilter(t *testing.T) {
	checkRequestCases(t, dataParseCases)
}

func TestDataRulesAndFilterChangeTheCacheKey(t *testing.T) {
	queries := []string{
		exampleTarget,
		exampleTarget + "&data.t.selector=h1",
		exampleTarget + "&data.t.selector=h2",
		exampleTarget + "&data.t.selector=h1&data.t.type=number",
		exampleTarget + "&data.t.selectorAll=h1",
		exampleTarget + "&data.t.0.selector=h1&data.t.1.selector=h2",
		exampleTarget + "&data.t.0.selector=h2&data.t.1.selector=h1",
		exampleTarget + "&data.t.selector=h1&data.t.attr.x.selector=b",
		exampleTarget + "&data.t.selector=h1&data.t.attr.x.selector=c",
		exampleTarget + "&filter=title",
		exampleTarget + "&filter=title,url",
	}
	wantDistinctCacheKeys(t, queries)
}

func TestRulesPrintUnambiguouslyForTheCacheKey(t *testing.T) {
	// A selector may hold any text in an attribute value, even text that
	// spells struct fields, so what the cache key prints must read back as
	// exactly the rule it came from.
	queries := []string{
		`data.t.selector=a%5Bx%3D%22+All%3Afalse+Attr%3Atext+Type%3Astring+Fields%3A%5B%5D%7D+%7BSelector%3Ah2%22%5D`,
		`data.t.0.selector=a&data.t.1.selector=h2&filter=t`,
		`screenshot.element=%23a%22+OmitBackground%3Atrue`,
	}
	for _, q := range queries {
		req, err := ParseRequest(exampleTarget+"&"+q, Limits{})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for _, r := range req.Data {
			var back DataRule
			if err := json.Unmarshal([]byte(fmt.Sprintf("%+v", r)), &back); err != nil || !reflect.DeepEqual(back, r) {
				t.Errorf("%%+v of %#v does not read back as the same rule (%v)", r, err)
			}
		}
		if o := req.Screenshot; o != nil {
			var back ScreenshotOptions
			if err := json.Unmarshal([]byte(fmt.Sprintf("%+v", *o)), &back); err != nil || back != *o {
				t.Errorf("%%+v of %#v does not read back as the same options (%v)", *o, err)
			}
		}
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
	req, err := ParseRequest(exampleTarget+"&data.items.selectorAll=li", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse(productURL)
	out := applyDataRules(doc, base, req.Data)
	if list, _ := out[0].value.([]any); len(list) != maxDataListItems {
		t.Errorf("selectorAll gave %d values, want the cap of %d", len(list), maxDataListItems)
	}
}

// dynamicProductPage sets its price by script after load, so only a
// browser sees it; its title and text make a plain fetch look enough.
const dynamicProductPage = `<!doctype html><html lang="en"><head><title>Oak shelf – Shop</title></head><body>
<h1 class="name">Oak shelf</h1><span class="price"></span>
<p>` + "A sturdy shelf of solid oak, oiled by hand, with room for two hundred books and a lamp. It ships flat in one box and goes together in ten minutes with the key it comes with." + `</p>
<script>addEventListener("load", () => { document.querySelector(".price").textContent = "$249.50"; });</script>
</body></html>`

func TestDataRulesAndFilterOnARealPage(t *testing.T) {
	app := startApp(t, nil)
	ps := newPageServer(t, map[string]http.HandlerFunc{
		"/products/desk":  html(productPage),
		"/products/shelf": html(dynamicProductPage),
	})
	rules := "data.price.selector=.price&data.price.type=number" +
		"&data.released.selector=time&data.released.attr=datetime&data.released.type=date" +
		"&data.photo.selector=img.photo&data.photo.attr=src&data.photo.type=image" +
		"&data.products.selectorAll=article&data.products.attr.name.selector=h1&data.products.attr.sku.attr=data-sku"
	wantRules := `"price":1299,"released":"2024-03-04T08:00:00.000Z","photo":{"url":"` + ps.URL + `/shop/img/desk.jpg","type":"jpg"},` +
		`"products":[{"name":"Walnut desk","sku":"WD-42"},{"name":"Chair","sku":"CH-7"}]`

	for _, mode := range []struct{ name, query, fetchMode string }{
		{"a plain fetch", "", "fetch"},
		{"the browser", "&prerender=true", "prerender"},
	} {
		t.Run("rules read typed values through "+mode.name, func(t *testing.T) {
			a := app.get(ps.URL+"/products/desk", rules+mode.query)
			if a.HTTP != 200 {
				t.Fatalf("HTTP %d %s %s", a.HTTP, a.Code, a.Message)
			}
			if got := a.Header.Get("x-fetch-mode"); got != mode.fetchMode {
				t.Errorf("x-fetch-mode %q, want %q", got, mode.fetchMode)
			}
			if !strings.Contains(string(a.Data), wantRules) {
				t.Errorf("data %s\ndoes not end with the rules' values %s", a.Data, wantRules)
			}
			if a.field("date") != "2024-03-04T08:00:00.000Z" {
				t.Errorf("the metadata date %v is not the rule's date normalised alike", a.field("date"))
			}
			if !strings.HasPrefix(string(a.Data), `{"title":`) {
				t.Errorf("the metadata does not come first: %s", a.Data)
			}
		})
	}

	t.Run("a value set by script is read by the browser", func(t *testing.T) {
		a := app.get(ps.URL+"/products/shelf", "data.price.selector=.price&data.price.type=number&prerender=true")
		if a.HTTP != 200 || a.field("price") != 249.5 {
			t.Errorf("HTTP %d, price %v (%s)", a.HTTP, a.field("price"), a.Data)
		}
	})

	t.Run("meta=false gives the rules alone", func(t *testing.T) {
		a := app.get(ps.URL+"/products/desk", "meta=false&data.sku.selector=article&data.sku.attr=data-sku")
		if a.HTTP != 200 || string(a.Data) != `{"sku":"WD-42"}` {
			t.Errorf("HTTP %d, data %s", a.HTTP, a.Data)
		}
	})

	t.Run("a rule named like a metadata field replaces it", func(t *testing.T) {
		a := app.get(ps.URL+"/products/desk", "data.title.selector=h1&filter=title,lang")
		if a.HTTP != 200 || string(a.Data) != `{"title":"Walnut desk","lang":"en"}` {
			t.Errorf("HTTP %d, data %s", a.HTTP, a.Data)
		}
	})

	t.Run("filter keeps only the named paths", func(t *testing.T) {
		a := app.get(ps.URL+"/products/desk", "filter=title,image.url,price&data.price.selector=.price&data.price.type=number&ping=false")
		want := `{"title":"Walnut desk – Shop","image":{"url":"` + ps.URL + `/shop/img/desk.jpg"},"price":1299}`
		if a.HTTP != 200 || string(a.Data) != want {
			t.Errorf("HTTP %d\ndata %s\nwant %s", a.HTTP, a.Data, want)
		}
		full := app.get(ps.URL+"/products/desk", "data.price.selector=.price&data.price.type=number&ping=false")
		if full.Header.Get("x-cache-status") != "MISS" || !full.has("description") {
			t.Errorf("the unfiltered answer came from the filtered one's cache entry: %s %s", full.Header.Get("x-cache-status"), full.Data)
		}
	})

	t.Run("a bad rule is refused before any work", func(t *testing.T) {
		before := ps.hits["/products/desk"].Load()
		a := app.get(ps.URL+"/products/desk", "data.price.selector=.price&data.price.type=money")
		if a.HTTP != 400 || a.Code != CodeInvalidQuery || !strings.Contains(a.Message, "`data.price.type`") {
			t.Errorf("HTTP %d %s %s", a.HTTP, a.Code, a.Message)
		}
		if ps.hits["/products/desk"].Load() != before {
			t.Error("the target was fetched for a refused query")
		}
	})
}

// FuzzDataRules feeds arbitrary `data.*` and `filter` queries through the
// parser, the rules and the filter: a bad query is EINVALQUERY, and an
// accepted one always gives valid JSON over the product page.
func FuzzDataRules(f *testing.F) {
	for _, tc := range dataCases {
		f.Add(tc.query+"&filter=price,product.name", "$1,299.00")
	}
	for _, tc := range dataParseCases {
		if len(tc.query) < 2000 {
			f.Add(tc.query, "1.299,50 €")
		}
	}
	f.Add("data.x.selectorAll=*&data.x.type=number&filter=x", "−,.,'1 2")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(productPage))
	if err != nil {
		f.Fatal(err)
	}
	base, _ := url.Parse(productURL)
	f.Fuzz(func(t *testing.T, query, number string) {
		if n, ok := parseNumberText(number); ok && (n != n || n > 1e308 || n < -1e308) {
			t.Fatalf("%q read as %v", number, n)
		}
		req, err := ParseRequest(exampleTarget+"&"+query, Limits{})
		if err != nil {
			checkFuzzedError(t, err, CodeInvalidURL, CodeInvalidQuery)
			return
		}
		d := applyFilter(data(applyDataRules(doc, base, req.Data)), req.Filter)
		body, err := successBody(d)
		if err != nil || !json.Valid(body) {
			t.Fatalf("the answer is not JSON (%v): %s", err, body)
		}
	})
}
