package query

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

// wantIgnored checks the ignored options, and that a screenshot was still
// asked for when one of them is a screenshot option.
func wantIgnored(names ...string) func(*testing.T, *Request) {
	return func(t *testing.T, r *Request) {
		t.Helper()
		if !slices.Equal(r.Ignored, names) {
			t.Errorf("ignored %q, want %q", r.Ignored, names)
		}
		shot := slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "screenshot.") })
		if shot && r.Screenshot == nil {
			t.Error("an ignored screenshot option did not turn the screenshot on")
		}
		if len(names) > 0 && !shot && r.Screenshot != nil {
			t.Error("an ignored option that is not a screenshot's asked for a screenshot")
		}
	}
}

var ignoredCases = []requestCase{
	{name: "nothing is ignored when nothing unapplied is given", query: "screenshot=true&screenshot.fullPage=true", check: wantIgnored()},
	{name: "codeScheme takes a theme name", query: "screenshot.codeScheme=atom-dark", check: wantIgnored("screenshot.codeScheme")},
	{name: "codeScheme takes a theme name with dots", query: "screenshot.codeScheme=base16-ateliersulphurpool.light", check: wantIgnored("screenshot.codeScheme")},
	{name: "codeScheme takes a light-dark combination", query: "screenshot.codeScheme=github.light-dark", check: wantIgnored("screenshot.codeScheme")},
	{name: "code_scheme is codeScheme in the caller's spelling", query: "screenshot.code_scheme=dracula", check: wantIgnored("screenshot.code_scheme")},
	{name: "codeScheme takes a stylesheet's URL", query: "screenshot.codeScheme=https%3A%2F%2Fexample.com%2Ftheme.css",
		check: wantIgnored("screenshot.codeScheme")},
	{name: "animated=true", query: "screenshot.animated=true", check: wantIgnored("screenshot.animated")},
	{name: "a bare animated means true", query: "screenshot.animated", check: wantIgnored("screenshot.animated")},
	{name: "animated=false", query: "screenshot.animated=false", check: wantIgnored("screenshot.animated")},
	{name: "animated as an object, every option", query: "screenshot.animated.duration=5s&screenshot.animated.fps=30&screenshot.animated.type=WebM",
		check: wantIgnored("screenshot.animated.duration", "screenshot.animated.fps", "screenshot.animated.type")},
	{name: "animation duration in milliseconds", query: "screenshot.animated.duration=10000", check: wantIgnored("screenshot.animated.duration")},
	{name: "ignored options are listed in the order given, beside applied ones",
		query: "screenshot.animated=true&screenshot.type=jpeg&screenshot.codeScheme=atom-dark",
		check: func(t *testing.T, r *Request) {
			wantIgnored("screenshot.animated", "screenshot.codeScheme")(t, r)
			if r.Screenshot.Type != "jpeg" {
				t.Errorf("type %q, want jpeg", r.Screenshot.Type)
			}
		}},
	{name: "an ignored option repeated with the same value counts once", query: "screenshot.animated=true&screenshot.animated=true",
		check: wantIgnored("screenshot.animated")},

	{name: "Lighthouse is accepted and named, while the options glimpse applies are not",
		query: "palette=true&audio&video=false&iframe=true&iframe.maxWidth=320&iframe.max_height=240&insights.lighthouse=true&insights.technologies=false",
		check: wantIgnored("insights.lighthouse")},
	{name: "options whose values glimpse never reads take any value",
		query: "function=(%7B+page+%7D)+%3D%3E+page.title()&modules=x&filename=My+Report&retry=2&cacheKey=s3cr3t",
		check: func(t *testing.T, r *Request) {
			wantIgnored("function", "modules", "filename", "retry", "cacheKey")(t, r)
			if strings.Contains(fmt.Sprint(*r), "s3cr3t") {
				t.Error("an ignored option's value is kept in the request")
			}
		}},
	{name: "members of an ignored feature are unknown, not refused", query: "proxy.countryCode=es&insights.lighthouse.device=mobile",
		check: wantIgnored()},
	{name: "meta.logo.square is accepted and keeps every field", query: "meta.logo.square=true",
		check: func(t *testing.T, r *Request) {
			wantIgnored("meta.logo.square")(t, r)
			if r.MetaOff || len(r.Fields) != len(AllFields) {
				t.Errorf("fields %q, meta off %t: want every field", r.Fields, r.MetaOff)
			}
		}},
	{name: "meta.logo.square beside chosen fields keeps only those", query: "meta.title=true&meta.logo.square=true",
		check: func(t *testing.T, r *Request) {
			wantIgnored("meta.logo.square")(t, r)
			if !slices.Equal(r.Fields, []string{"title"}) {
				t.Errorf("fields %q, want [title]", r.Fields)
			}
		}},
	{name: "palette must be a boolean", query: "palette=yes", code: apierr.CodeInvalidQuery, param: "palette", msg: []string{"`true`, `false`"}},
	{name: "an iframe width must be a whole number", query: "iframe.maxWidth=wide", code: apierr.CodeInvalidQuery, param: "iframe.maxWidth"},
	{name: "meta.logo.square must be a boolean", query: "meta.logo.square=maybe", code: apierr.CodeInvalidQuery, param: "meta.logo.square"},
	{name: "an empty codeScheme is refused", query: "screenshot.codeScheme=", code: apierr.CodeInvalidQuery, param: "screenshot.codeScheme",
		msg: []string{"theme name"}},
	{name: "a codeScheme with spaces is refused", query: "screenshot.codeScheme=atom+dark+%3Cx%3E", code: apierr.CodeInvalidQuery, param: "screenshot.codeScheme"},
	{name: "a codeScheme URL of another scheme is refused", query: "screenshot.codeScheme=ftp%3A%2F%2Fexample.com%2Ft.css", code: apierr.CodeInvalidQuery,
		param: "screenshot.codeScheme"},
	{name: "a refusal names the caller's spelling", query: "screenshot.code_scheme=", code: apierr.CodeInvalidQuery, param: "screenshot.code_scheme"},
	{name: "animated must be a boolean", query: "screenshot.animated=yes", code: apierr.CodeInvalidQuery, param: "screenshot.animated",
		msg: []string{"`true`, `false`"}},
	{name: "an animation longer than 10s is refused", query: "screenshot.animated.duration=11s", code: apierr.CodeInvalidQuery,
		param: "screenshot.animated.duration", msg: []string{"up to 10 seconds"}},
	{name: "a zero animation is refused", query: "screenshot.animated.duration=0", code: apierr.CodeInvalidQuery, param: "screenshot.animated.duration"},
	{name: "fps above 60 is refused", query: "screenshot.animated.fps=61", code: apierr.CodeInvalidQuery, param: "screenshot.animated.fps",
		msg: []string{"from 1 to 60"}},
	{name: "a fractional fps is refused", query: "screenshot.animated.fps=29.97", code: apierr.CodeInvalidQuery, param: "screenshot.animated.fps"},
	{name: "a video type other than mp4 or webm is refused", query: "screenshot.animated.type=gif", code: apierr.CodeInvalidQuery,
		param: "screenshot.animated.type", msg: []string{"`mp4`, `webm`"}},
	{name: "an ignored option beside screenshot=false is a contradiction", query: "screenshot=false&screenshot.animated=true",
		code: apierr.CodeInvalidQuery, param: "screenshot"},
	{name: "an unknown animated option is still refused", query: "screenshot.animated.loop=true", code: apierr.CodeInvalidQuery,
		param: "screenshot.animated.loop", msg: []string{"not a screenshot option"}},
	{name: "codeScheme and code_scheme with different values are refused", query: "screenshot.codeScheme=a&screenshot.code_scheme=b",
		code: apierr.CodeInvalidQuery, param: "screenshot.code_scheme", msg: []string{"given twice"}},
}

func TestParseRequestAcceptsUnappliedOptions(t *testing.T) {
	checkRequestCases(t, ignoredCases)
}

// Ignored options make no difference to the answer, so they must not
// split the cache.
func TestIgnoredOptionsLeaveTheCacheKeyAlone(t *testing.T) {
	a, err := Parse(exampleTarget+"&screenshot=true", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse(exampleTarget+"&screenshot=true&screenshot.codeScheme=dracula&screenshot.animated=true", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if Key(a) != Key(b) {
		t.Error("an ignored option changed the cache key")
	}
}

// Every option in the table is reachable under each of its spellings and
// refuses a value of the wrong shape: a new line in the table needs no
// other change to work.
func TestEveryIgnoredOptionIsKnownInEachSpelling(t *testing.T) {
	for _, o := range ignoredOptions {
		for _, s := range append([]string{o.name}, o.spellings...) {
			if c, ok := canonicalParam(s); !ok || c != o.name {
				t.Errorf("%s reads as %q (known %t), want %s", s, c, ok, o.name)
			}
			if o.check != nil && o.check("\x7f bad value \x7f") == "" {
				t.Errorf("%s accepts any value", s)
			}
		}
	}
}
