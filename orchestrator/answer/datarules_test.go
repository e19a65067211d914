package answer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/glimpse/glimpse/internal/testtool"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/orchestrator/render"
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
	want  string                       // the data object the rules produce, as JSON
	evals map[string]render.Evaluation // what the page's scripts gave, for `evaluate`
}

var dataCases = []dataCase{
	{"text is read with its spaces collapsed", "data.name.selector=.name&data.name.attr=text",
		`{"name":"Walnut desk"}`, nil},
	{"a price with a thousands comma is a number", "data.price.selector=.price&data.price.type=number",
		`{"price":1299}`, nil},
	{"a European price is a number", "data.old.selector=.old-price&data.old.type=number",
		`{"old":1499.5}`, nil},
	{"a machine date is normalised to ISO in UTC", "data.released.selector=time&data.released.attr=datetime&data.released.type=date",
		`{"released":"2024-03-04T08:00:00.000Z"}`, nil},
	{"a written date is normalised like the metadata date", "data.released.selector=time&data.released.type=date",
		`{"released":"2024-03-04T12:00:00.000Z"}`, nil},
	{"a url is made absolute against the document's base", "data.more.selector=a.more&data.more.attr=href&data.more.type=url",
		`{"more":"http://shop.example/specs/walnut?ref=a&b=c"}`, nil},
	{"a string keeps the attribute as written", "data.more.selector=a.more&data.more.attr=href",
		`{"more":"../specs/walnut?ref=a&b=c"}`, nil},
	{"an image is an asset object with an absolute url", "data.photo.selector=img.photo&data.photo.attr=src&data.photo.type=image",
		`{"photo":{"url":"http://shop.example/shop/img/desk.jpg","type":"jpg"}}`, nil},
	{"a present boolean attribute is true", "data.soldOut.selector=.buy&data.soldOut.attr=disabled&data.soldOut.type=boolean",
		`{"soldOut":true}`, nil},
	{"an absent boolean attribute is false", "data.hidden.selector=.buy&data.hidden.attr=hidden&data.hidden.type=boolean",
		`{"hidden":false}`, nil},
	{"a yes-or-no word is a boolean", "data.inStock.selector=.stock&data.inStock.type=boolean",
		`{"inStock":false}`, nil},
	{"text that is no boolean is null", "data.flag.selector=.name&data.flag.type=boolean",
		`{"flag":null}`, nil},
	{"html is the inner markup, unescaped", "data.blurb.selector=.blurb&data.blurb.attr=html",
		`{"blurb":"<p>Solid <b>walnut</b> &amp; oil.</p>"}`, nil},
	{"any attribute is read by name", "data.sku.selector=.product&data.sku.attr=data-sku",
		`{"sku":"WD-42"}`, nil},
	{"attribute names are case-insensitive", "data.sku.selector=.product&data.sku.attr=DATA-SKU",
		`{"sku":"WD-42"}`, nil},
	{"val reads an input's value", "data.qty.selector=.qty&data.qty.attr=val&data.qty.type=number",
		`{"qty":3}`, nil},
	{"val reads a select's chosen option", "data.color.selector=select&data.color.attr=val",
		`{"color":"walnut"}`, nil},
	{"val reads a textarea's text", "data.note.selector=textarea&data.note.attr=val",
		`{"note":"Deliver after 5"}`, nil},
	{"selectorAll lists every non-empty match", "data.tags.selectorAll=.tags+li",
		`{"tags":["wood","office"]}`, nil},
	{"selectorAll with urls drops what is not a web link", "data.links.selectorAll=a.nav&data.links.attr=href&data.links.type=url",
		`{"links":["http://shop.example/a","https://other.example/b"]}`, nil},
	{"selectorAll that matches nothing is null", "data.none.selectorAll=.nope",
		`{"none":null}`, nil},
	{"a selector that matches nothing is null", "data.missing.selector=.nope",
		`{"missing":null}`, nil},
	{"a missing attribute is null", "data.alt.selector=h1&data.alt.attr=title",
		`{"alt":null}`, nil},
	{"an empty attribute is null", "data.alt.selector=img&data.alt.attr=alt",
		`{"alt":null}`, nil},
	{"the first fallback that finds a value wins",
		"data.subtitle.0.selector=.subtitle&data.subtitle.1.selector=h1.name&data.subtitle.1.attr=text&data.subtitle.2.selector=title",
		`{"subtitle":"Walnut desk"}`, nil},
	{"a fallback whose value does not fit the type is skipped",
		"data.cost.0.selector=.name&data.cost.0.type=number&data.cost.1.selector=.price&data.cost.1.type=number",
		`{"cost":1299}`, nil},
	{"fallbacks are tried in index order, not query order",
		"data.t.1.selector=h1&data.t.0.selector=title",
		`{"t":"Walnut desk – Shop"}`, nil},
	{"a nested rule reads an object within the first match",
		"data.product.selector=.product&data.product.attr.name.selector=.name&data.product.attr.name.attr=text&data.product.attr.price.selector=.price" +
			"&data.product.attr.price.type=number&data.product.attr.sku.attr=data-sku",
		`{"product":{"name":"Walnut desk","price":1299,"sku":"WD-42"}}`, nil},
	{"a nested rule over selectorAll gives a list of objects, null where a value is missing",
		"data.products.selectorAll=article&data.products.attr.name.selector=h1&data.products.attr.name.type=title&data.products.attr.price.selector=.price" +
			"&data.products.attr.price.type=number&data.products.attr.released.selector=time&data.products.attr.released.attr=datetime" +
			"&data.products.attr.released.type=date",
		`{"products":[{"name":"Walnut desk","price":1299,"released":"2024-03-04T08:00:00.000Z"},{"name":"Chair","price":89,"released":null}]}`, nil},
	{"nested rules nest further and take fallbacks",
		"data.p.selector=article&data.p.attr.buy.selector=.buy&data.p.attr.buy.attr.label.0.selector=.nope" +
			"&data.p.attr.buy.attr.label.1.attr=text&data.p.attr.buy.attr.off.attr=disabled&data.p.attr.buy.attr.off.type=boolean",
		`{"p":{"buy":{"label":"Sold out","off":true}}}`, nil},
	{"a nested rule that finds nothing at all is null",
		"data.p.selector=nav&data.p.attr.price.selector=.price",
		`{"p":null}`, nil},
	{"rules come out in the order the query first names them",
		"data.b.selector=h1&data.a.selector=.price&data.b.type=string&data.b.attr=text",
		`{"b":"Walnut desk","a":"$1,299.00"}`, nil},
	{"snake_case selector_all is selectorAll", "data.tags.selector_all=.tags+li",
		`{"tags":["wood","office"]}`, nil},
}

func TestDataRulesReadTypedValues(t *testing.T) {
	runDataCases(t, productPage, productURL, dataCases)
}

// TestASelectorDoesNotReachIntoATemplate matches as the browser's
// querySelector does: a template's content, and a component's shadow tree
// the document carries as one, are out of a selector's reach.
func TestASelectorDoesNotReachIntoATemplate(t *testing.T) {
	page := `<!doctype html><html><head><title>Desk</title></head><body><shop-card><template shadowrootmode="open">` +
		`<h1 class="name">Shadow title</h1><p class="price">$1</p></template><p class="price">$1,299.00</p></shop-card>` +
		`<template id="row"><h1 class="name">Row title</h1></template><h1 class="name">Walnut desk</h1></body></html>`
	runDataCases(t, page, productURL, []dataCase{
		{"the first match outside a template", "data.name.selector=.name&data.price.selector=.price",
			`{"name":"Walnut desk","price":"$1,299.00"}`, nil},
		{"every match outside a template", "data.names.selectorAll=h1", `{"names":["Walnut desk"]}`, nil},
	})
}

func runDataCases(t *testing.T, page, pageURL string, cases []dataCase) {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse(pageURL)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := query.Parse("url=https%3A%2F%2Fexample.com%2F"+"&"+tc.query, query.Limits{})
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			fields, _, err := applyDataRules(t.Context(), doc, base, req.Data, 0, tc.evals)
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

// profilePage is a person's page with a value of every metadata kind in
// its body, and markup a metadata type must see through.
const profilePage = `<!doctype html><html lang="en-GB"><head><title>Ada Lovelace | Analytical Society</title>
<meta name="description" content="NEW YORK — The first programmer's notes...">
<meta property="og:site_name" content="Analytical Society">
<meta property="og:image" content="/img/ada.png">
<meta name="author" content="Ada Lovelace">
<link rel="icon" href="/favicon.png">
</head><body>
<h1 class="headline">  "Notes" on the <em>Engine</em> </h1>
<p class="byline">By <a href="/ada">Ada Lovelace</a> in Mathematics</p>
<p class="blurb">NEW YORK — Notes on the engine...</p>
<span class="org">  Analytical   Society </span>
<span class="when">10 December 2015</span>
<span class="handle">@ada_l</span>
<span class="tongue">fr_FR</span>
<a class="mail" href="mailto:Ada@Example.ORG?subject=Hi">write</a>
<a class="badmail" href="mailto:nobody">no</a>
<span class="host">2001:DB8::1</span>
<span class="v4">192.168.001.1</span>
<span class="pattern">^[a-z]+$</span>
<span class="badpattern">([a-z</span>
<script class="json" type="application/json">{"b": 2, "a": [1, "x"]}</script>
<span class="notjson">{nope</span>
<span class="scalar">42</span>
<video class="film" src="media/film.webm"></video>
<audio class="song"><source src="/media/song.mp3"></audio>
<img class="avatar" src="img/ada.jpg">
<link class="brand" href="/logo.svg">
<meta class="og" content="  From the meta  ">
<div class="empty-meta" content=""><b>Bold</b> text</div>
<input class="field" value="typed in">
</body></html>`

const profileURL = "https://society.example/people/ada"

var typeCases = []dataCase{
	{name: "html is the default attr", query: "data.h.selector=.headline",
		want: `{"h":"&#34;Notes&#34; on the <em>Engine</em>"}`},
	{name: "auto keeps plain text a string", query: "data.s.selector=.scalar&data.s.type=auto", want: `{"s":"42"}`},
	{name: "outerHTML includes the element itself", query: "data.h.selector=.org&data.h.attr=outerHTML",
		want: `{"h":"<span class=\"org\">  Analytical   Society </span>"}`},
	{name: "text collapses spaces", query: "data.h.selector=.org&data.h.attr=text", want: `{"h":"Analytical Society"}`},
	{name: "val reads an input", query: "data.v.selector=.field&data.v.attr=val", want: `{"v":"typed in"}`},
	{name: "markdown of an element", query: "data.m.selector=.empty-meta&data.m.attr=markdown", want: `{"m":"**Bold** text"}`},
	{name: "the first attr of an array that yields a value wins", query: "data.o.selector=.og&data.o.attr.0=content&data.o.attr.1=text",
		want: `{"o":"From the meta"}`},
	{name: "an attr array falls back when an attribute is empty", query: "data.o.selector=.empty-meta&data.o.attr.0=content&data.o.attr.1=text",
		want: `{"o":"Bold text"}`},
	{name: "an attr array falls back when an attribute is absent", query: "data.o.selector=.headline&data.o.attr.0=content&data.o.attr.1=data-x&data.o.attr.2=text",
		want: `{"o":"\"Notes\" on the Engine"}`},
	{name: "an attr array falls back when the type refuses a value", query: "data.o.selector=a.mail&data.o.attr.0=class&data.o.attr.1=href&data.o.type=email",
		want: `{"o":"Ada@example.org"}`},
	{name: "an attr array over selectorAll reads each match on its own",
		query: "data.o.selectorAll=.og,.field&data.o.attr.0=content&data.o.attr.1=value", want: `{"o":["From the meta","typed in"]}`},
	{name: "an attr array where nothing yields is null", query: "data.o.selector=.headline&data.o.attr.0=content&data.o.attr.1=data-x",
		want: `{"o":null}`},
	{name: "a selector array tries each in order", query: "data.who.selector.0=.missing&data.who.selector.1=.byline&data.who.attr=text",
		want: `{"who":"By Ada Lovelace in Mathematics"}`},
	{name: "a selector array skips a match whose value does not fit the type",
		query: "data.n.selector.0=.headline&data.n.selector.1=.scalar&data.n.type=number", want: `{"n":42}`},
	{name: "a selector array where nothing matches is null", query: "data.n.selector.0=.a&data.n.selector.1=.b", want: `{"n":null}`},

	{name: "title cleans markup and quotes as the title field does", query: "data.t.selector=.headline&data.t.type=title",
		want: `{"t":"“Notes” on the Engine"}`},
	{name: "description drops the dateline and ends in an ellipsis", query: "data.d.selector=.blurb&data.d.type=description",
		want: `{"d":"Notes on the engine…"}`},
	{name: "author reads the name out of a visible byline", query: "data.a.selector=.byline&data.a.type=author",
		want: `{"a":"Ada Lovelace"}`},
	{name: "author refuses a handle", query: "data.a.selector=.handle&data.a.type=author", want: `{"a":null}`},
	{name: "publisher collapses spaces", query: "data.p.selector=.org&data.p.type=publisher", want: `{"p":"Analytical Society"}`},
	{name: "date is ISO in UTC", query: "data.d.selector=.when&data.d.type=date", want: `{"d":"2015-12-10T12:00:00.000Z"}`},
	{name: "lang is an ISO 639-1 code", query: "data.l.selector=.tongue&data.l.type=lang", want: `{"l":"fr"}`},
	{name: "url is absolute", query: "data.u.selector=a.mail&data.u.attr=href&data.u.type=url", want: `{"u":null}`},
	{name: "email strips mailto: and the query", query: "data.e.selector=a.mail&data.e.attr=href&data.e.type=email",
		want: `{"e":"Ada@example.org"}`},
	{name: "email refuses what is no address", query: "data.e.selector=a.badmail&data.e.attr=href&data.e.type=email", want: `{"e":null}`},
	{name: "ip is written canonically", query: "data.i.selector=.host&data.i.type=ip", want: `{"i":"2001:db8::1"}`},
	{name: "ip refuses what is no address", query: "data.i.selector=.v4&data.i.type=ip", want: `{"i":null}`},
	{name: "regexp keeps a pattern that compiles", query: "data.r.selector=.pattern&data.r.type=regexp", want: `{"r":"^[a-z]+$"}`},
	{name: "regexp refuses one that does not", query: "data.r.selector=.badpattern&data.r.type=regexp", want: `{"r":null}`},
	{name: "object parses JSON in key order", query: "data.o.selector=script.json&data.o.type=object", want: `{"o":{"b":2,"a":[1,"x"]}}`},
	{name: "object refuses what is not JSON", query: "data.o.selector=.notjson&data.o.type=object", want: `{"o":null}`},
	{name: "object refuses a JSON scalar", query: "data.o.selector=.scalar&data.o.type=object", want: `{"o":null}`},
	{name: "image is an asset object", query: "data.i.selector=.avatar&data.i.attr=src&data.i.type=image",
		want: `{"i":{"url":"https://society.example/people/img/ada.jpg","type":"jpg"}}`},
	{name: "logo is an asset object", query: "data.i.selector=.brand&data.i.attr=href&data.i.type=logo",
		want: `{"i":{"url":"https://society.example/logo.svg","type":"svg"}}`},
	{name: "video is an asset object with the file's type", query: "data.v.selector=.film&data.v.attr=src&data.v.type=video",
		want: `{"v":{"url":"https://society.example/people/media/film.webm","type":"webm"}}`},
	{name: "audio is an asset object with the file's type", query: "data.a.selector=.song+source&data.a.attr=src&data.a.type=audio",
		want: `{"a":{"url":"https://society.example/media/song.mp3","type":"mp3"}}`},

	{name: "a whole-page rule with a metadata type is the page's field", query: "data.t.type=title&data.l.type=lang&data.p.type=publisher",
		want: `{"t":"Ada Lovelace","l":"en","p":"Analytical Society"}`},
	{name: "a whole-page image rule is the page's image", query: "data.i.type=image",
		want: `{"i":{"url":"https://society.example/img/ada.png","type":"png"}}`},
	{name: "a whole-page rule with an attr reads the root", query: "data.l.selector=html&data.l.attr=lang", want: `{"l":"en-GB"}`},
	{name: "a whole-page rule without a type is the page's HTML", query: "data.h.type=string&data.n.type=number",
		want: `{"h":` + mustJSON(strings.TrimSpace(profileHTML())) + `,"n":10}`},
}

func mustJSON(s string) string {
	b, _ := Marshal(s)
	return string(b)
}

// profileHTML is the page as the HTML reader serialises it.
func profileHTML() string {
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(profilePage))
	h, _ := doc.Html()
	return h
}

func TestDataRuleTypesAndAttrs(t *testing.T) {
	runDataCases(t, profilePage, profileURL, typeCases)
}

func evals(kv ...string) map[string]render.Evaluation {
	out := map[string]render.Evaluation{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			out[kv[i]] = render.Evaluation{}
			continue
		}
		out[kv[i]] = render.Evaluation{Value: []byte(kv[i+1])}
	}
	return out
}

var evaluateCases = []dataCase{
	{name: "auto keeps a string", query: "data.v.evaluate=s", evals: evals("s", `"hi"`), want: `{"v":"hi"}`},
	{name: "auto keeps a number", query: "data.v.evaluate=n", evals: evals("n", `12.5`), want: `{"v":12.5}`},
	{name: "auto keeps a boolean", query: "data.v.evaluate=b", evals: evals("b", `false`), want: `{"v":false}`},
	{name: "auto keeps an object in its key order", query: "data.v.evaluate=o", evals: evals("o", `{"z":1,"a":[true,null]}`),
		want: `{"v":{"z":1,"a":[true,null]}}`},
	{name: "a script that threw is null", query: "data.v.evaluate=t", evals: evals("t", ""), want: `{"v":null}`},
	{name: "null is null", query: "data.v.evaluate=x", evals: evals("x", `null`), want: `{"v":null}`},
	{name: "an empty string is null", query: "data.v.evaluate=x", evals: evals("x", `"  "`), want: `{"v":null}`},
	{name: "number reads a price string", query: "data.v.evaluate=x&data.v.type=number", evals: evals("x", `"$1,299"`), want: `{"v":1299}`},
	{name: "string turns a number into text", query: "data.v.evaluate=x&data.v.type=string", evals: evals("x", `7`), want: `{"v":"7"}`},
	{name: "a structure under a scalar type is null", query: "data.v.evaluate=x&data.v.type=string", evals: evals("x", `[1]`), want: `{"v":null}`},
	{name: "object keeps a list", query: "data.v.evaluate=x&data.v.type=object", evals: evals("x", `[1,2]`), want: `{"v":[1,2]}`},
	{name: "object refuses a scalar string that is no JSON", query: "data.v.evaluate=x&data.v.type=object", evals: evals("x", `"a"`), want: `{"v":null}`},
	{name: "title normalises", query: "data.v.evaluate=x&data.v.type=title", evals: evals("x", `"  \"Hi\"  "`), want: `{"v":"“Hi”"}`},
	{name: "image resolves against the page", query: "data.v.evaluate=x&data.v.type=image", evals: evals("x", `"/a.gif"`),
		want: `{"v":{"url":"https://society.example/a.gif","type":"gif"}}`},
	{name: "boolean reads a word", query: "data.v.evaluate=x&data.v.type=boolean", evals: evals("x", `"yes"`), want: `{"v":true}`},
	{name: "a script that gave null falls back to the next rule", query: "data.v.0.evaluate=x&data.v.1.selector=.org&data.v.1.attr=text",
		evals: evals("x", `null`), want: `{"v":"Analytical Society"}`},
	{name: "a script the page never ran is null", query: "data.v.evaluate=gone", evals: nil, want: `{"v":null}`},
}

func TestDataRulesTypeWhatScriptsGave(t *testing.T) {
	runDataCases(t, profilePage, profileURL, evaluateCases)
}

func TestAnOversizedScriptResultIsRefusedByName(t *testing.T) {
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(profilePage))
	base, _ := url.Parse(profileURL)
	req, err := query.Parse("url=https%3A%2F%2Fexample.com%2F&data.big.evaluate=x", query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = applyDataRules(t.Context(), doc, base, req.Data, 0, map[string]render.Evaluation{"x": {TooLarge: 5 << 20}})
	e := apierr.From(err)
	if e == nil || e.Code != apierr.CodeInvalidQuery {
		t.Fatalf("got %v, want EINVALQUERY", err)
	}
	for _, w := range []string{"`data.big`", "5242880 bytes", "4194304"} {
		if !strings.Contains(e.Message, w) {
			t.Errorf("%q does not say %s", e.Message, w)
		}
	}
	// A result within the script cap still counts against the answer's.
	_, _, err = applyDataRules(t.Context(), doc, base, req.Data, 16, map[string]render.Evaluation{"x": {Value: []byte(`"` + strings.Repeat("a", 64) + `"`)}})
	if e := apierr.From(err); e == nil || !strings.Contains(e.Message, "GLIMPSE_MAX_DATA_BYTES") {
		t.Fatalf("got %v, want the answer's byte cap", err)
	}
}

func TestDataRulesHandTheirAssetsOverForProbing(t *testing.T) {
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(profilePage))
	base, _ := url.Parse(profileURL)
	req, err := query.Parse("url=https%3A%2F%2Fexample.com%2F&data.i.selector=.avatar&data.i.attr=src&data.i.type=image"+
		"&data.v.selector=.film&data.v.attr=src&data.v.type=video&data.s.selector=.org", query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	fields, assets, err := applyDataRules(t.Context(), doc, base, req.Data, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(assets) != 2 || assets[0].media || !assets[1].media {
		t.Fatalf("assets %+v, want the image then the video", assets)
	}
	if fields[0].value != any(assets[0].a) {
		t.Error("the image handed over is not the one in the answer, so probing it would change nothing")
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
		fields, _, err := applyDataRules(t.Context(), doc, base, req.Data, 0, nil)
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
	out, _, err := applyDataRules(t.Context(), doc, base, req.Data, 0, nil)
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
			_, _, err = applyDataRules(t.Context(), doc, base, req.Data, tc.maxBytes, nil)
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
		_, _, err = applyDataRules(ctx, doc, base, req.Data, 0, nil)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("the rules ran %s past a deadline of 5ms", d)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v; want the rules cut off by the deadline", err)
		}
	})
}

func TestTheRegexpTypeCompilesBoundedPatterns(t *testing.T) {
	testtool.WithoutRace(t)
	// A Unicode class is the costliest thing to compile per byte.
	heavy := func(n int) string { return strings.Repeat(`[\p{L}\p{N}]`, n/12) }
	page := func(patterns ...string) *goquery.Document {
		var b strings.Builder
		b.WriteString("<html><body>")
		for _, p := range patterns {
			b.WriteString(`<input pattern="` + p + `">`)
		}
		b.WriteString("</body></html>")
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	run := func(doc *goquery.Document, rules string) ([]field, error) {
		req, err := query.Parse("url=https%3A%2F%2Fexample.com%2F"+rules, query.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := applyDataRules(t.Context(), doc, &url.URL{Scheme: "https", Host: "example.com"}, req.Data, 0, nil)
		return out, err
	}
	t.Run("a pattern at the length bound is kept, a longer one is none", func(t *testing.T) {
		ok, long := heavy(maxRegexpBytes), heavy(maxRegexpBytes+24)
		out, err := run(page(ok, long), "&data.p.selectorAll=input&data.p.attr=pattern&data.p.type=regexp")
		if err != nil {
			t.Fatal(err)
		}
		if list, _ := out[0].value.([]any); len(list) != 1 || list[0] != ok {
			t.Errorf("got %d values; want the %d-byte pattern alone", len(list), len(ok))
		}
	})
	t.Run("patterns past the run's budget end it, naming the rule", func(t *testing.T) {
		patterns := make([]string, maxRegexpWork/maxRegexpBytes+1)
		for i := range patterns {
			patterns[i] = heavy(maxRegexpBytes)
		}
		_, err := run(page(patterns...), "&data.p.selectorAll=input&data.p.attr=pattern&data.p.type=regexp")
		e := apierr.From(err)
		if e == nil || e.Code != apierr.CodeInvalidQuery || !strings.Contains(e.Message, "`data.p`") || !strings.Contains(e.Message, "32768 bytes") {
			t.Fatalf("got %v; want EINVALQUERY naming `data.p` and the bound", err)
		}
	})
}

func TestSelectorsThatFindNothingCountTowardsTheBound(t *testing.T) {
	testtool.WithoutRace(t)
	// Nested elements as deep as the HTML parser allows: a selector
	// searches a match's whole subtree whether or not it finds anything.
	const depth = 500
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(
		"<html><body>" + strings.Repeat("<div>", depth) + strings.Repeat("</div>", depth) + "</body></html>"))
	if err != nil {
		t.Fatal(err)
	}
	// Each inner match tries ten fallbacks of ten selectors that match
	// nothing: a hundred searches of its subtree.
	var rules strings.Builder
	rules.WriteString("&data.x.selectorAll=div&data.x.attr.y.selectorAll=div")
	for f := range 10 {
		for s := range 10 {
			fmt.Fprintf(&rules, "&data.x.attr.y.attr.z.%d.selector.%d=.none%d", f, s, 10*f+s)
		}
	}
	req, err := query.Parse("url=https%3A%2F%2Fexample.com%2F"+rules.String(), query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = applyDataRules(t.Context(), doc, &url.URL{Scheme: "https", Host: "example.com"}, req.Data, 0, nil)
	e := apierr.From(err)
	if e == nil || e.Code != apierr.CodeInvalidQuery || !strings.Contains(e.Message, "`data.x`") || !strings.Contains(e.Message, "50000000 elements") {
		t.Fatalf("got %v; want EINVALQUERY naming `data.x` and the bound on elements searched", err)
	}

	// A page's worth of ordinary rules stays far within it.
	ordinary, err := query.Parse("url=https%3A%2F%2Fexample.com%2F&data.a.selector=.none&data.b.selectorAll=div&data.b.attr.c.selector=.none", query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := applyDataRules(t.Context(), doc, &url.URL{Scheme: "https", Host: "example.com"}, ordinary.Data, 0, nil); err != nil {
		t.Errorf("ordinary rules over the same page: %v", err)
	}
}
