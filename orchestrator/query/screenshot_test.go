package query

import (
	"errors"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

// checkRequestCases runs parse cases the way the query tests do: an
// accepted query goes to check, a refused one must carry the code, the
// parameter and the message fragments.
func checkRequestCases(t *testing.T, cases []requestCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.query
			if !tc.raw {
				q = exampleTarget + "&" + q
			}
			req, err := Parse(q, tc.lim)
			if tc.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				tc.check(t, req)
				return
			}
			if err == nil {
				t.Fatalf("accepted %+v, want %s", req, tc.code)
			}
			var e *apierr.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %T (%v), want *apierr.Error", err, err)
			}
			if e.Code != tc.code || e.Status() != 400 {
				t.Fatalf("got %s/%d (%s), want %s", e.Code, e.Status(), e.Message, tc.code)
			}
			if e.Param != tc.param {
				t.Errorf("param %q, want %q (message %q)", e.Param, tc.param, e.Message)
			}
			// Header names are the caller's to spell; their messages quote
			// the header, not the parameter family.
			if tc.code == apierr.CodeInvalidQuery && tc.param != "headers" && !strings.Contains(e.Message, "`"+tc.param) {
				t.Errorf("message %q does not name `%s`", e.Message, tc.param)
			}
			for _, m := range tc.msg {
				if !strings.Contains(e.Message, m) {
					t.Errorf("message %q does not contain %q", e.Message, m)
				}
			}
		})
	}
}

func wantShot(want ScreenshotOptions) func(t *testing.T, r *Request) {
	return func(t *testing.T, r *Request) {
		t.Helper()
		if r.Screenshot == nil {
			t.Fatal("no screenshot was asked for")
		}
		if *r.Screenshot != want {
			t.Errorf("screenshot options %+v, want %+v", *r.Screenshot, want)
		}
	}
}

func wantNoShot(t *testing.T, r *Request) {
	t.Helper()
	if r.Screenshot != nil {
		t.Errorf("a screenshot was asked for: %+v", *r.Screenshot)
	}
}

var pngShot = ScreenshotOptions{Type: "png"}

var screenshotCases = []requestCase{
	{name: "no screenshot unless asked", query: "pdf", check: wantNoShot},
	{name: "screenshot=true takes a png of the viewport", query: "screenshot=true", check: wantShot(pngShot)},
	{name: "a bare screenshot means true", query: "screenshot", check: wantShot(pngShot)},
	{name: "an empty screenshot means true", query: "screenshot=", check: wantShot(pngShot)},
	{name: "screenshot=false takes none", query: "screenshot=false", check: wantNoShot},
	{name: "screenshot must be a boolean", query: "screenshot=yes", code: apierr.CodeInvalidQuery, param: "screenshot",
		msg: []string{"`true`, `false` or empty"}},
	{name: "any option turns the screenshot on", query: "screenshot.fullPage=true", check: wantShot(ScreenshotOptions{Type: "png", FullPage: true})},
	{name: "screenshot=false beside an option is a contradiction", query: "screenshot=false&screenshot.type=jpeg",
		code: apierr.CodeInvalidQuery, param: "screenshot", msg: []string{"`screenshot.type` sets a screenshot option"}},

	{name: "jpeg gets quality 80 by default", query: "screenshot.type=jpeg", check: wantShot(ScreenshotOptions{Type: "jpeg", Quality: 80})},
	{name: "jpg is jpeg", query: "screenshot.type=jpg", check: wantShot(ScreenshotOptions{Type: "jpeg", Quality: 80})},
	{name: "the type is read in any case", query: "screenshot.type=WebP", check: wantShot(ScreenshotOptions{Type: "webp", Quality: 80})},
	{name: "webp takes a quality", query: "screenshot.type=webp&screenshot.quality=35", check: wantShot(ScreenshotOptions{Type: "webp", Quality: 35})},
	{name: "quality 0 is allowed", query: "screenshot.type=jpeg&screenshot.quality=0", check: wantShot(ScreenshotOptions{Type: "jpeg", Quality: 0})},
	{name: "quality 100 is allowed", query: "screenshot.type=jpeg&screenshot.quality=100", check: wantShot(ScreenshotOptions{Type: "jpeg", Quality: 100})},
	{name: "an unknown type is refused with the list", query: "screenshot.type=gif", code: apierr.CodeInvalidQuery, param: "screenshot.type",
		msg: []string{"`png`, `jpeg` or `webp`", "got `gif`"}},
	{name: "quality above 100 is refused", query: "screenshot.type=jpeg&screenshot.quality=101", code: apierr.CodeInvalidQuery, param: "screenshot.quality",
		msg: []string{"from 0 to 100"}},
	{name: "a negative quality is refused", query: "screenshot.type=jpeg&screenshot.quality=-1", code: apierr.CodeInvalidQuery, param: "screenshot.quality"},
	{name: "a fractional quality is refused", query: "screenshot.type=jpeg&screenshot.quality=80.5", code: apierr.CodeInvalidQuery, param: "screenshot.quality"},
	{name: "a signed quality is refused", query: "screenshot.type=jpeg&screenshot.quality=%2B80", code: apierr.CodeInvalidQuery, param: "screenshot.quality"},
	{name: "a quality for a png is refused", query: "screenshot.quality=50", code: apierr.CodeInvalidQuery, param: "screenshot.quality",
		msg: []string{"jpeg and webp", "add `screenshot.type=jpeg`"}},

	{name: "fullPage and omitBackground in snake_case", query: "screenshot.full_page=true&screenshot.omit_background=true",
		check: wantShot(ScreenshotOptions{Type: "png", FullPage: true, OmitBackground: true})},
	{name: "fullPage must be a boolean", query: "screenshot.fullPage=yes", code: apierr.CodeInvalidQuery, param: "screenshot.fullPage",
		msg: []string{"`true`, `false` or empty (meaning true)"}},
	{name: "omitBackground must be a boolean", query: "screenshot.omitBackground=1", code: apierr.CodeInvalidQuery, param: "screenshot.omitBackground"},
	{name: "omitBackground works with webp", query: "screenshot.type=webp&screenshot.omitBackground=true",
		check: wantShot(ScreenshotOptions{Type: "webp", Quality: 80, OmitBackground: true})},
	{name: "omitBackground is refused for jpeg, which has no transparency", query: "screenshot.type=jpeg&screenshot.omitBackground=true",
		code: apierr.CodeInvalidQuery, param: "screenshot.omitBackground", msg: []string{"jpeg has none", "`screenshot.type=png`"}},
	{name: "omitBackground=false is fine with jpeg", query: "screenshot.type=jpeg&screenshot.omitBackground=false",
		check: wantShot(ScreenshotOptions{Type: "jpeg", Quality: 80})},

	{name: "optimizeForSpeed is applied, not ignored", query: "screenshot.optimizeForSpeed=true",
		check: func(t *testing.T, r *Request) {
			wantShot(ScreenshotOptions{Type: "png", OptimizeForSpeed: true})(t, r)
			if len(r.Ignored) > 0 {
				t.Errorf("ignored %q", r.Ignored)
			}
		}},
	{name: "optimizeForSpeed in snake_case, with jpeg", query: "screenshot.type=jpeg&screenshot.optimize_for_speed",
		check: wantShot(ScreenshotOptions{Type: "jpeg", Quality: 80, OptimizeForSpeed: true})},
	{name: "optimizeForSpeed must be a boolean", query: "screenshot.optimizeForSpeed=fast", code: apierr.CodeInvalidQuery, param: "screenshot.optimizeForSpeed"},

	{name: "the element selector is trimmed", query: "screenshot.element=+%23main+.card+", check: wantShot(ScreenshotOptions{Type: "png", Element: "#main .card"})},
	{name: "an empty element is refused", query: "screenshot.element=", code: apierr.CodeInvalidQuery, param: "screenshot.element",
		msg: []string{"needs a CSS selector"}},
	{name: "a huge element selector is refused", query: "screenshot.element=" + strings.Repeat("a", maxElementSelector+1),
		code: apierr.CodeInvalidQuery, param: "screenshot.element", msg: []string{"up to 1024 bytes"}},
	{name: "element and fullPage together are refused", query: "screenshot.element=%23a&screenshot.fullPage=true",
		code: apierr.CodeInvalidQuery, param: "screenshot.fullPage", msg: []string{"cannot be combined"}},
	{name: "element with fullPage=false is fine", query: "screenshot.element=%23a&screenshot.fullPage=false",
		check: wantShot(ScreenshotOptions{Type: "png", Element: "#a"})},

	{name: "an unknown option is refused with the list of options", query: "screenshot.overlay.margin=3",
		code: apierr.CodeInvalidQuery, param: "screenshot.overlay.margin", msg: []string{"not a screenshot option", "`screenshot.omitBackground`", "`screenshot.overlay.background`"}},
	{name: "a misspelt option is refused", query: "screenshot=true&screenshot.fullpage=true",
		code: apierr.CodeInvalidQuery, param: "screenshot.fullpage", msg: []string{"not a screenshot option"}},
	{name: "an option repeated with another value is refused", query: "screenshot.fullPage=true&screenshot.full_page=false",
		code: apierr.CodeInvalidQuery, param: "screenshot.full_page", msg: []string{"given twice"}},

	{name: "embed=screenshot.url is accepted with a screenshot", query: "screenshot&embed=screenshot.url", check: func(t *testing.T, r *Request) {
		if r.Embed != "screenshot.url" {
			t.Errorf("embed %q", r.Embed)
		}
	}},
	{name: "embed=screenshot.url without a screenshot says to add one", query: "embed=screenshot.url", code: apierr.CodeInvalidQuery, param: "embed",
		msg: []string{"needs a screenshot", "add `screenshot=true`"}},
	{name: "an unknown embed lists screenshot.url too", query: "embed=video.url", code: apierr.CodeInvalidQuery, param: "embed",
		msg: []string{"`pdf.url`, `image.url`, `logo.url`, `screenshot.url`"}},
}

func TestParseRequestReadsTheScreenshotParameters(t *testing.T) {
	checkRequestCases(t, screenshotCases)
}

func TestEveryScreenshotOptionChangesTheCacheKey(t *testing.T) {
	base := exampleTarget + "&screenshot=true"
	queries := []string{
		exampleTarget,
		base,
		base + "&screenshot.type=jpeg",
		base + "&screenshot.type=jpeg&screenshot.quality=50",
		base + "&screenshot.type=webp",
		base + "&screenshot.fullPage=true",
		base + "&screenshot.element=%23a",
		base + "&screenshot.element=%23b",
		base + "&screenshot.omitBackground=true",
		base + "&screenshot.overlay.browser=light",
		base + "&screenshot.overlay.browser=dark",
		base + "&screenshot.overlay.background=%23c1c1c1",
		base + "&screenshot.overlay.background=%23c1c1c2",
		base + "&screenshot.overlay.browser=dark&screenshot.overlay.background=%23c1c1c1",
		base + "&screenshot.overlay.background=linear-gradient(90deg,%23fff,%23000)",
		base + "&screenshot.overlay.background=linear-gradient(270deg,%23fff,%23000)",
		base + "&screenshot.overlay.background=https%3A%2F%2Fexample.com%2Fa.png",
		base + "&screenshot.overlay.background=https%3A%2F%2Fexample.com%2Fb.png",
	}
	wantDistinctCacheKeys(t, queries)
	a, _ := Parse(base+"&screenshot.type=jpg", Limits{})
	b, _ := Parse(base+"&screenshot.type=jpeg&screenshot.quality=80", Limits{})
	if Key(a) != Key(b) {
		t.Error("two spellings of the same screenshot have different cache keys")
	}
}

// wantDistinctCacheKeys fails when two of the queries share a cache key.
func wantDistinctCacheKeys(t *testing.T, queries []string) {
	t.Helper()
	seen := map[string]string{}
	for _, q := range queries {
		req, err := Parse(q, Limits{})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		k := Key(req)
		if prev, ok := seen[k]; ok {
			t.Errorf("%q and %q share a cache key", prev, q)
		}
		seen[k] = q
	}
}

// The options' spelling is part of the cache key: a faster encoding is
// another answer (another file), and the spelling of the options without
// it is what it was before the option was applied, so that answers
// cached then are still found.
func TestTheFasterEncodingIsAnotherCachedAnswer(t *testing.T) {
	plain := ScreenshotOptions{Type: "png", FullPage: true}
	fast := plain
	fast.OptimizeForSpeed = true
	if got, want := plain.String(), `{"Type":"png","Quality":0,"FullPage":true,"Element":"","OmitBackground":false}`; got != want {
		t.Errorf("the options spell %s; want %s", got, want)
	}
	if plain.String() == fast.String() {
		t.Errorf("a faster encoding spells its options as the default one does: %s", fast.String())
	}
}
