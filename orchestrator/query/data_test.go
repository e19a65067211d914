package query

import (
	"encoding/json"
	"fmt"
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

	{name: "a bare data parameter is refused", query: "data=x", code: apierr.CodeInvalidQuery, param: "data",
		msg: []string{"one parameter per rule property"}},
	{name: "a rule without properties is refused", query: "data.price=.price", code: apierr.CodeInvalidQuery, param: "data.price",
		msg: []string{"`data.price.selector=.price`"}},
	{name: "a rule without a selector reads the whole page", query: "data.price.type=number",
		check: wantRules(DataRule{Name: "price", Fallbacks: []DataQuery{{Attr: "text", Type: "number"}}})},
	{name: "a fallback without a selector reads the whole page", query: "data.t.0.selector=h1&data.t.1.type=date",
		check: wantRules(DataRule{Name: "t", Fallbacks: []DataQuery{{Selector: "h1", Attr: "text", Type: "string"}, {Attr: "text", Type: "date"}}})},
	{name: "markdown of the main content needs no selector", query: "data.content.attr=markdown",
		check: wantRules(DataRule{Name: "content", Fallbacks: []DataQuery{{Attr: "markdown", Type: "string"}}})},
	{name: "markdown of an element", query: "data.intro.selector=.intro&data.intro.attr=Markdown",
		check: wantRules(DataRule{Name: "intro", Fallbacks: []DataQuery{{Selector: ".intro", Attr: "markdown", Type: "string"}}})},
	{name: "an unknown property is refused", query: "data.t.selecter=h1", code: apierr.CodeInvalidQuery, param: "data.t.selecter",
		msg: []string{"not a data rule property", "`.selectorAll`"}},
	{name: "an evaluate property is refused as unknown", query: "data.t.evaluate=1", code: apierr.CodeInvalidQuery, param: "data.t.evaluate"},
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
	{name: "an unknown type is refused with the list", query: "data.t.selector=h1&data.t.type=email", code: apierr.CodeInvalidQuery,
		param: "data.t.type", msg: []string{"`string`, `number`, `date`, `url`, `image`, `boolean`", "got `email`"}},
	{name: "an empty attr is refused", query: "data.t.selector=h1&data.t.attr=", code: apierr.CodeInvalidQuery, param: "data.t.attr",
		msg: []string{"`text`, `html`, `markdown`, `val`"}},
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
