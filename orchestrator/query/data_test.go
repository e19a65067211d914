package query

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

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
	{name: "a rule defaults to the inner HTML of its kind, as Microlink's does", query: "data.t.selector=h1",
		check: wantRules(DataRule{Name: "t", Fallbacks: []DataQuery{{Selector: "h1", Attr: "html", Type: "auto"}}})},
	{name: "the type and attr are read in any case", query: "data.t.selectorAll=a&data.t.attr=HREF&data.t.type=URL",
		check: wantRules(DataRule{Name: "t", Fallbacks: []DataQuery{{Selector: "a", All: true, Attr: "href", Type: "url"}}})},
	{name: "nested rules keep their order", query: "data.p.selector=.p&data.p.attr.b.selector=.b&data.p.attr.a.attr=id",
		check: wantRules(DataRule{Name: "p", Fallbacks: []DataQuery{{Selector: ".p", Fields: []DataRule{
			{Name: "b", Fallbacks: []DataQuery{{Selector: ".b", Attr: "html", Type: "auto"}}},
			{Name: "a", Fallbacks: []DataQuery{{Attr: "id", Type: "auto"}}},
		}}}})},
	{name: "every type of Microlink's vocabulary is accepted", query: everyType(), check: func(t *testing.T, r *Request) {
		if len(r.Data) != len(DataTypes) {
			t.Fatalf("%d rules, want %d", len(r.Data), len(DataTypes))
		}
		for i, typ := range DataTypes {
			if got := r.Data[i].Fallbacks[0].Type; got != typ {
				t.Errorf("rule %d has type %q, want %q", i, got, typ)
			}
		}
	}},
	{name: "outerHTML keeps its spelling whatever case it comes in", query: "data.t.selector=h1&data.t.attr=OUTERhtml",
		check: wantRules(DataRule{Name: "t", Fallbacks: []DataQuery{{Selector: "h1", Attr: "outerHTML", Type: "auto"}}})},
	{name: "an attr array is a list of fallbacks on the same match", query: "data.t.selector=meta&data.t.attr.0=content&data.t.attr.1=TEXT&data.t.attr.2=content",
		check: wantRules(DataRule{Name: "t", Fallbacks: []DataQuery{{Selector: "meta", Attr: "content", AltAttrs: []string{"text"}, Type: "auto"}}})},
	{name: "attr array entries are read in index order", query: "data.t.selector=a&data.t.attr.1=text&data.t.attr.0=href",
		check: wantRules(DataRule{Name: "t", Fallbacks: []DataQuery{{Selector: "a", Attr: "href", AltAttrs: []string{"text"}, Type: "auto"}}})},
	{name: "a nested rule named by digits is still a nested rule", query: "data.t.selector=ul&data.t.attr.0.selector=li",
		check: wantRules(DataRule{Name: "t", Fallbacks: []DataQuery{{Selector: "ul", Fields: []DataRule{
			{Name: "0", Fallbacks: []DataQuery{{Selector: "li", Attr: "html", Type: "auto"}}}}}}})},
	{name: "a selector array becomes fallbacks in order", query: "data.who.selector.1=.byline&data.who.selector.0=.missing&data.who.attr=text",
		check: wantRules(DataRule{Name: "who", Fallbacks: []DataQuery{{Selector: ".missing", Attr: "text", Type: "auto"}, {Selector: ".byline", Attr: "text", Type: "auto"}}})},
	{name: "a selectorAll array in snake case becomes fallbacks", query: "data.l.selector_all.0=li&data.l.selector_all.1=p",
		check: wantRules(DataRule{Name: "l", Fallbacks: []DataQuery{{Selector: "li", All: true, Attr: "html", Type: "auto"}, {Selector: "p", All: true, Attr: "html", Type: "auto"}}})},
	{name: "a selector array inside a fallback keeps the fallback order", query: "data.t.0.selector.0=h1&data.t.0.selector.1=h2&data.t.1.selector=h3",
		check: wantRules(DataRule{Name: "t", Fallbacks: []DataQuery{{Selector: "h1", Attr: "html", Type: "auto"}, {Selector: "h2", Attr: "html", Type: "auto"}, {Selector: "h3", Attr: "html", Type: "auto"}}})},
	{name: "whole rules as an array still work", query: "data.t.0.selector=h1&data.t.0.type=title&data.t.1.attr=lang&data.t.1.selector=html",
		check: wantRules(DataRule{Name: "t", Fallbacks: []DataQuery{{Selector: "h1", Attr: "html", Type: "title"}, {Selector: "html", Attr: "lang", Type: "auto"}}})},
	{name: "a nested rule without a selector reads its parent's match as HTML", query: "data.p.selector=.p&data.p.attr.x.type=string",
		check: wantRules(DataRule{Name: "p", Fallbacks: []DataQuery{{Selector: ".p", Fields: []DataRule{{Name: "x", Fallbacks: []DataQuery{{Attr: "html", Type: "string"}}}}}}})},
	{name: "nested rules may say they are an object", query: "data.p.selector=.p&data.p.type=object&data.p.attr.x.selector=b",
		check: wantRules(DataRule{Name: "p", Fallbacks: []DataQuery{{Selector: ".p", Fields: []DataRule{{Name: "x", Fallbacks: []DataQuery{{Selector: "b", Attr: "html", Type: "auto"}}}}}}})},
	{name: "evaluate is read as script with type auto", query: "data.t.evaluate=" + url.QueryEscape("() => document.title"),
		check: wantRules(DataRule{Name: "t", Fallbacks: []DataQuery{{Evaluate: "() => document.title", Type: "auto"}}})},
	{name: "evaluate takes a type", query: "data.n.evaluate=window.n&data.n.type=number",
		check: wantRules(DataRule{Name: "n", Fallbacks: []DataQuery{{Evaluate: "window.n", Type: "number"}}})},
	{name: "evaluate may be one fallback among selectors", query: "data.t.0.selector=h1&data.t.1.evaluate=document.title",
		check: wantRules(DataRule{Name: "t", Fallbacks: []DataQuery{{Selector: "h1", Attr: "html", Type: "auto"}, {Evaluate: "document.title", Type: "auto"}}})},
	{name: "filter lists paths", query: "filter=title,+image.url+,title", check: wantFilter("title", "image.url")},

	{name: "a bare data parameter is refused", query: "data=x", code: apierr.CodeInvalidQuery, param: "data",
		msg: []string{"one parameter per rule property"}},
	{name: "a rule without properties is refused", query: "data.price=.price", code: apierr.CodeInvalidQuery, param: "data.price",
		msg: []string{"`data.price.selector=.price`"}},
	{name: "a rule without a selector reads the whole page", query: "data.price.type=number",
		check: wantRules(DataRule{Name: "price", Fallbacks: []DataQuery{{Type: "number"}}})},
	{name: "a fallback without a selector reads the whole page", query: "data.t.0.selector=h1&data.t.1.type=date",
		check: wantRules(DataRule{Name: "t", Fallbacks: []DataQuery{{Selector: "h1", Attr: "html", Type: "auto"}, {Type: "date"}}})},
	{name: "markdown of the main content needs no selector", query: "data.content.attr=markdown",
		check: wantRules(DataRule{Name: "content", Fallbacks: []DataQuery{{Attr: "markdown", Type: "auto"}}})},
	{name: "markdown of an element", query: "data.intro.selector=.intro&data.intro.attr=Markdown",
		check: wantRules(DataRule{Name: "intro", Fallbacks: []DataQuery{{Selector: ".intro", Attr: "markdown", Type: "auto"}}})},
	{name: "an unknown property is refused", query: "data.t.selecter=h1", code: apierr.CodeInvalidQuery, param: "data.t.selecter",
		msg: []string{"not a data rule property", "`.selectorAll`"}},
	{name: "an empty rule name is refused", query: "data..selector=h1", code: apierr.CodeInvalidQuery, param: "data..selector",
		msg: []string{"empty rule name"}},
	{name: "a rule name with a space is refused", query: "data.a+b.selector=h1", code: apierr.CodeInvalidQuery, param: "data.a b.selector",
		msg: []string{"spaces or control characters"}},
	{name: "a rule named pdf is refused", query: "data.pdf.selector=h1", code: apierr.CodeInvalidQuery, param: "data.pdf.selector",
		msg: []string{"hide the answer's own `pdf`"}},
	{name: "a rule named screenshot is refused", query: "data.screenshot.selector=h1", code: apierr.CodeInvalidQuery, param: "data.screenshot.selector"},
	{name: "an invalid selector is refused", query: "data.t.selector=div%5B", code: apierr.CodeInvalidQuery, param: "data.t.selector",
		msg: []string{"not a valid CSS selector"}},
	{name: "an empty selector is refused", query: "data.t.selector=+", code: apierr.CodeInvalidQuery, param: "data.t.selector",
		msg: []string{"needs a CSS selector"}},
	{name: "selector and selectorAll together are refused", query: "data.t.selector=h1&data.t.selectorAll=h2", code: apierr.CodeInvalidQuery,
		param: "data.t.selectorAll", msg: []string{"cannot be combined"}},
	{name: "an unknown type is refused with the list", query: "data.t.selector=h1&data.t.type=iframe", code: apierr.CodeInvalidQuery,
		param: "data.t.type", msg: []string{"`auto`, `string`, `number`", "`video`, `audio`", "got `iframe`"}},
	{name: "an empty attr is refused", query: "data.t.selector=h1&data.t.attr=", code: apierr.CodeInvalidQuery, param: "data.t.attr",
		msg: []string{"`html`, `outerHTML`, `text`, `markdown`, `val`"}},
	{name: "an attr that cannot be an attribute name is refused", query: "data.t.selector=h1&data.t.attr=a%3Db", code: apierr.CodeInvalidQuery,
		param: "data.t.attr"},
	{name: "attr and nested rules together are refused", query: "data.t.selector=h1&data.t.attr=href&data.t.attr.x.selector=b",
		code: apierr.CodeInvalidQuery, param: "data.t.attr", msg: []string{"not both"}},
	{name: "a type on nested rules is refused", query: "data.t.selector=h1&data.t.type=string&data.t.attr.x.selector=b",
		code: apierr.CodeInvalidQuery, param: "data.t.type", msg: []string{"does not apply to nested rules"}},
	{name: "a rule mixing fallbacks and a direct selector is refused", query: "data.t.selector=h1&data.t.0.selector=h2",
		code: apierr.CodeInvalidQuery, param: "data.t.selector", msg: []string{"mixes a rule"}},
	{name: "too many fallbacks are refused", query: "data.t.10.selector=h1", code: apierr.CodeInvalidQuery, param: "data.t.10.selector",
		msg: []string{"up to 10 fallbacks"}},
	{name: "rules nested too deep are refused",
		query: "data.a.selector=x&data.a.attr.b.attr.c.attr.d.attr.e.attr.f.selector=y", code: apierr.CodeInvalidQuery,
		param: "data.a.attr.b.attr.c.attr.d.attr.e.attr.f.selector", msg: []string{"more than 4 levels"}},
	{name: "a property repeated with another value is refused", query: "data.t.selectorAll=a&data.t.selector_all=b",
		code: apierr.CodeInvalidQuery, param: "data.t.selector_all", msg: []string{"given twice"}},
	{name: "too many rule parameters are refused", query: manyDataParams(maxDataParams + 1),
		code: apierr.CodeInvalidQuery, param: "data.r256.selector", msg: []string{"up to 256"}},

	{name: "evaluate with a selector is refused", query: "data.t.evaluate=1&data.t.selector=h1", code: apierr.CodeInvalidQuery,
		param: "data.t.evaluate", msg: []string{"takes no `.selector`", "`data.t.0.selector`"}},
	{name: "evaluate with an attr array is refused", query: "data.t.evaluate=1&data.t.attr.0=href", code: apierr.CodeInvalidQuery,
		param: "data.t.evaluate", msg: []string{"takes no"}},
	{name: "evaluate in a nested rule is refused", query: "data.t.selector=ul&data.t.attr.x.evaluate=1", code: apierr.CodeInvalidQuery,
		param: "data.t.attr.x.evaluate", msg: []string{"whole page", "`data.x.evaluate`"}},
	{name: "an empty evaluate is refused", query: "data.t.evaluate=+", code: apierr.CodeInvalidQuery, param: "data.t.evaluate",
		msg: []string{"needs JavaScript"}},
	{name: "an evaluate too long is refused", query: "data.t.evaluate=" + strings.Repeat("1", maxDataEvaluate+1), code: apierr.CodeInvalidQuery,
		param: "data.t.evaluate", msg: []string{"up to 16384"}},
	{name: "an evaluate array is refused", query: "data.t.evaluate.0=1", code: apierr.CodeInvalidQuery, param: "data.t.evaluate.0",
		msg: []string{"not a data rule property"}},
	{name: "a type array is refused", query: "data.t.selector=h1&data.t.type.0=url", code: apierr.CodeInvalidQuery, param: "data.t.type.0",
		msg: []string{"not a data rule property"}},
	{name: "too many evaluate scripts are refused", query: manyEvaluates(maxDataEvaluates + 1), code: apierr.CodeInvalidQuery,
		param: "data.e8.evaluate", msg: []string{"at most 8"}},
	{name: "the same script in many rules counts once", query: manyEvaluatesAlike(maxDataEvaluates + 1), check: func(t *testing.T, r *Request) {
		if n := len(Evaluations(r.Data)); n != 1 {
			t.Errorf("%d scripts, want 1", n)
		}
	}},
	{name: "a selector given once and as an array is refused", query: "data.t.selector=h1&data.t.selector.0=h2", code: apierr.CodeInvalidQuery,
		param: "data.t.selector.0", msg: []string{"both as one value", "keep one spelling"}},
	{name: "an attr given once and as an array is refused", query: "data.t.attr=href&data.t.attr.0=src", code: apierr.CodeInvalidQuery,
		param: "data.t.attr.0", msg: []string{"both as one value"}},
	{name: "a selector array entry that is not a selector is refused", query: "data.t.selector.0=h1&data.t.selector.1=div%5B",
		code: apierr.CodeInvalidQuery, param: "data.t.selector.1", msg: []string{"not a valid CSS selector"}},
	{name: "an attr array entry that cannot be an attribute is refused", query: "data.t.selector=a&data.t.attr.0=href&data.t.attr.1=a%3Db",
		code: apierr.CodeInvalidQuery, param: "data.t.attr.1"},
	{name: "an array too long is refused", query: "data.t.selector.10=h1", code: apierr.CodeInvalidQuery, param: "data.t.selector.10",
		msg: []string{"up to 10 entries"}},
	{name: "a selector array with selectorAll is refused", query: "data.t.selector.0=h1&data.t.selectorAll=h2", code: apierr.CodeInvalidQuery,
		param: "data.t.selectorAll", msg: []string{"cannot be combined"}},
	{name: "an attr array with nested rules is refused", query: "data.t.selector=h1&data.t.attr.0=href&data.t.attr.x.selector=b",
		code: apierr.CodeInvalidQuery, param: "data.t.attr.0", msg: []string{"not both"}},
	{name: "an empty filter is refused", query: "filter=", code: apierr.CodeInvalidQuery, param: "filter", msg: []string{"`title,image.url`"}},
	{name: "a filter with an empty item is refused", query: "filter=title,,url", code: apierr.CodeInvalidQuery, param: "filter"},
	{name: "a filter path with an empty segment is refused", query: "filter=image..url", code: apierr.CodeInvalidQuery, param: "filter"},
	{name: "a filter with too many paths is refused", query: "filter=" + manyPaths(maxFilterPaths+1), code: apierr.CodeInvalidQuery, param: "filter",
		msg: []string{"at most 64"}},
}

func manyDataParams(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = "data.r" + strconv.Itoa(i) + ".selector=h1"
	}
	return strings.Join(parts, "&")
}

func everyType() string {
	parts := make([]string, len(DataTypes))
	for i, t := range DataTypes {
		parts[i] = fmt.Sprintf("data.r%d.selector=h1&data.r%d.type=%s", i, i, strings.ToUpper(t))
	}
	return strings.Join(parts, "&")
}

func manyEvaluates(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("data.e%d.evaluate=%d", i, i)
	}
	return strings.Join(parts, "&")
}

func manyEvaluatesAlike(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("data.e%d.evaluate=document.title", i)
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
		exampleTarget + "&data.t.selector=h1&data.t.attr=href",
		exampleTarget + "&data.t.selector=h1&data.t.attr.0=href&data.t.attr.1=src",
		exampleTarget + "&data.t.selector=h1&data.t.attr.0=src&data.t.attr.1=href",
		exampleTarget + "&data.t.selector.0=h1&data.t.selector.1=h3",
		exampleTarget + "&data.t.evaluate=1",
		exampleTarget + "&data.t.evaluate=2",
		exampleTarget + "&data.t.evaluate=1&data.t.type=number",
		exampleTarget + "&data.t.selector=h1&data.t.type=title",
		exampleTarget + "&data.t.selector=h1&data.t.attr=outerHTML",
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
		`data.t.selector=a&data.t.attr.0=href&data.t.attr.1=text`,
		`data.t.evaluate=%22Evaluate%22%3A%22x%22%7D`,
		`screenshot.element=%23a%22+OmitBackground%3Atrue`,
	}
	for _, q := range queries {
		req, err := Parse(exampleTarget+"&"+q, Limits{})
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
