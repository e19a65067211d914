package query

import (
	"slices"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

func wantExtras(want Extras, ignored ...string) func(*testing.T, *Request) {
	return func(t *testing.T, r *Request) {
		t.Helper()
		got := r.Extras
		if got.Video != want.Video || got.Audio != want.Audio || got.Palette != want.Palette || got.Technologies != want.Technologies {
			t.Errorf("extras %+v, want %+v", got, want)
		}
		switch {
		case (got.Iframe == nil) != (want.Iframe == nil):
			t.Errorf("iframe %v, want %v", got.Iframe, want.Iframe)
		case got.Iframe != nil && *got.Iframe != *want.Iframe:
			t.Errorf("iframe %+v, want %+v", *got.Iframe, *want.Iframe)
		}
		if !slices.Equal(r.Ignored, ignored) {
			t.Errorf("ignored %q, want %q", r.Ignored, ignored)
		}
	}
}

var extrasCases = []requestCase{
	{name: "no extra is on by default", query: "", check: wantExtras(Extras{})},
	{name: "a bare video and audio mean true", query: "video&audio", check: wantExtras(Extras{Video: true, Audio: true})},
	{name: "video=false and palette=true", query: "video=false&palette=true", check: wantExtras(Extras{Palette: true})},
	{name: "a bare iframe asks for the oEmbed without sizes", query: "iframe", check: wantExtras(Extras{Iframe: &IframeOptions{}})},
	{name: "iframe.maxWidth turns the iframe on", query: "iframe.maxWidth=350",
		check: wantExtras(Extras{Iframe: &IframeOptions{MaxWidth: 350}})},
	{name: "snake_case sizes are the same options", query: "iframe=true&iframe.max_width=320&iframe.max_height=240",
		check: wantExtras(Extras{Iframe: &IframeOptions{MaxWidth: 320, MaxHeight: 240}})},
	{name: "insights.technologies alone", query: "insights.technologies", check: wantExtras(Extras{Technologies: true})},
	{name: "insights=true asks for technologies and names Lighthouse as not applied", query: "insights=true",
		check: wantExtras(Extras{Technologies: true}, "insights.lighthouse")},
	{name: "insights=true with technologies off leaves only Lighthouse, which is not applied",
		query: "insights=true&insights.technologies=false", check: wantExtras(Extras{}, "insights.lighthouse")},
	{name: "insights.lighthouse given is named once, in the caller's order", query: "insights.lighthouse=true&insights",
		check: wantExtras(Extras{Technologies: true}, "insights.lighthouse")},
	{name: "iframe=false beside a size is a contradiction", query: "iframe=false&iframe.maxHeight=10",
		code: apierr.CodeInvalidQuery, param: "iframe", msg: []string{"`iframe.maxHeight`"}},
	{name: "insights=false beside technologies=true is a contradiction", query: "insights=false&insights.technologies=true",
		code: apierr.CodeInvalidQuery, param: "insights"},
	{name: "a width that is not a number is refused", query: "iframe.maxWidth=wide",
		code: apierr.CodeInvalidQuery, param: "iframe.maxWidth", msg: []string{"whole number of pixels"}},
	{name: "a zero height is refused", query: "iframe.max_height=0", code: apierr.CodeInvalidQuery, param: "iframe.max_height"},
	{name: "a width past the bound is refused", query: "iframe.maxWidth=100001", code: apierr.CodeInvalidQuery, param: "iframe.maxWidth"},
	{name: "a palette that is not a boolean is refused", query: "palette=yes", code: apierr.CodeInvalidQuery, param: "palette"},
	{name: "a video that is not a boolean is refused", query: "video=1", code: apierr.CodeInvalidQuery, param: "video"},
}

func TestParseExtras(t *testing.T) {
	checkRequestCases(t, extrasCases)
}

// Each extra changes the answer, so each splits the cache; asking for
// none keeps the key every earlier answer was stored under.
func TestExtrasSplitTheCacheKey(t *testing.T) {
	plain, err := Parse(exampleTarget, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	off, err := Parse(exampleTarget+"&video=false&palette=false", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if Key(plain) != Key(off) {
		t.Error("extras switched off changed the cache key")
	}
	seen := map[string]string{Key(plain): ""}
	for _, extra := range []string{"video", "audio", "palette", "iframe", "iframe.maxWidth=300", "iframe.maxHeight=300", "insights.technologies"} {
		r, err := Parse(exampleTarget+"&"+extra, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if other, dup := seen[Key(r)]; dup {
			t.Errorf("%q has the cache key of %q", extra, other)
		}
		seen[Key(r)] = extra
	}
}

func TestReadsPage(t *testing.T) {
	for q, want := range map[string]bool{
		"meta=false": false, "meta=false&palette": false, "meta=false&iframe": true, "meta=false&video": true,
		"meta=false&audio": true, "meta=false&insights.technologies": true, "": true,
	} {
		r, err := Parse(exampleTarget+"&"+q, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if r.ReadsPage() != want {
			t.Errorf("%q reads the page: %t, want %t", q, r.ReadsPage(), want)
		}
	}
}
