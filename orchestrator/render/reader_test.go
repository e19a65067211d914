package render

import (
	"testing"
	"time"
)

func TestRevealAppliesToWhatAReaderScrollsThrough(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		want        bool
	}{
		{"a full-page screenshot is scrolled through", "screenshot.fullPage=true", true},
		{"a PDF is scrolled through", "pdf=true", true},
		{"Markdown of the page is scrolled through", "data.content.attr=markdown", true},
		{"Markdown in a nested rule is scrolled through", "data.post.selector=article&data.post.attr.body.selector=main&data.post.attr.body.attr=markdown", true},
		{"Markdown as a fallback attribute is scrolled through", "data.content.attr.0=text&data.content.attr.1=markdown", true},
		{"a screenshot of the viewport is not", "screenshot=true", false},
		{"metadata alone is not", "", false},
		{"a text data rule is not", "data.title.selector=h1&data.title.attr=text", false},
		{"an explicit waitUntil skips it", "pdf=true&waitUntil=load", false},
		{"waitUntil=auto given explicitly does not", "pdf=true&waitUntil=auto", true},
		{"waitForSelector skips it", "pdf=true&waitForSelector=main", false},
		{"waitForTimeout skips it", "screenshot.fullPage=true&waitForTimeout=500", false},
		{"javascript=false skips it", "pdf=true&javascript=false", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := revealApplies(parse(t, "url=https://example.com/&"+tc.query)); got != tc.want {
				t.Errorf("revealApplies(%q) = %v, want %v", tc.query, got, tc.want)
			}
		})
	}
}

func TestRevealTakesAShareOfWhatIsLeftBoundedByItsMaximum(t *testing.T) {
	for _, tc := range []struct {
		left, want time.Duration
	}{
		{28 * time.Second, 8400 * time.Millisecond},
		{60 * time.Second, revealMax},
		{time.Second, 300 * time.Millisecond},
		{0, 0},
		{-time.Second, 0},
	} {
		if got := revealBudget(tc.left); got != tc.want {
			t.Errorf("revealBudget(%s) = %s, want %s", tc.left, got, tc.want)
		}
	}
}

func TestAutoWaitsForTheNetworkOnlyWhenThereArePixels(t *testing.T) {
	if idle, settle := autoQuiet(false); idle != 0 || settle != autoSettle {
		t.Errorf("a render with pixels waits for %d requests in flight, at most %s; want none, at most %s", idle, settle, autoSettle)
	}
	if idle, settle := autoQuiet(true); idle != -1 || settle != 0 {
		t.Errorf("a render without pixels changed its wait: %d, %s", idle, settle)
	}
}
