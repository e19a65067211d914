package meta

import (
	"strings"
	"testing"
)

func TestDescription(t *testing.T) {
	long := strings.Repeat("All work and no play makes a dull story. ", 20)
	tests := []struct {
		name, html, want string
	}{
		{"og:description wins", `<meta name="description" content="Meta"><meta property="og:description" content="OG">`, "OG"},
		{"twitter:description comes next", `<meta name="description" content="Meta"><meta name="twitter:description" content="Tw">`, "Tw"},
		{"the description meta tag comes next", `<meta name="description" content="Meta">`, "Meta"},
		{"an empty description tag is skipped", `<meta property="og:description" content=""><meta name="description" content="Meta">`, "Meta"},
		{"the main JSON-LD item's description is read",
			`<script type="application/ld+json">{"@type":"Article","description":"From LD"}</script>`, "From LD"},
		{"Dublin Core description is read", `<meta name="DC.description" content="Dublin">`, "Dublin"},
		{"microdata description is read", `<div itemprop="description">Micro text</div>`, "Micro text"},
		{"RDFa description is read", `<p property="dc:description">Rdfa text</p>`, "Rdfa text"},
		{"the first prose paragraph of the article is the last resort",
			`<header><p>Skip this header paragraph, it is long enough to count as prose otherwise for sure.</p></header>
			<article><p>Short.</p><p>This first real paragraph of the article tells the reader what the story is about today.</p></article>`,
			"This first real paragraph of the article tells the reader what the story is about today."},
		{"the first paragraph of a block classed as the post's content is read",
			`<div class="site-info"><p>This paragraph is outside the content block and long enough to count as prose otherwise.</p></div>
			<div class="entry-content"><p>The first paragraph of the post explains at some length what the post is about today.</p></div>`,
			"The first paragraph of the post explains at some length what the post is about today."},
		{"the content block holding the most text wins",
			`<div class="post-teaser"><p>A teaser for another post, long enough to be read as prose if nothing else was.</p></div>
			<div class="storyBody"><p>The story begins here with a first paragraph that is long enough to be read as prose.</p><p>` +
				strings.Repeat("More of the story follows. ", 10) + `</p></div>`,
			"The story begins here with a first paragraph that is long enough to be read as prose."},
		{"a cookie banner inside the article is skipped",
			`<article><div class="cookie-consent"><p>We use cookies to give you the best experience on our site, by continuing you agree.</p></div>
			<p>The article opens with this paragraph, which says what the article is about in a sentence.</p></article>`,
			"The article opens with this paragraph, which says what the article is about in a sentence."},
		{"navigation inside the content block is skipped",
			`<div class="content"><div class="breadcrumbs"><p>Home and then the section and then the subsection and then this page here.</p></div>
			<p>The text of the page starts here, after the trail of links, and says what the page is about.</p></div>`,
			"The text of the page starts here, after the trail of links, and says what the page is about."},
		{"a long description is cut at a word boundary with an ellipsis",
			`<meta name="description" content="` + long + `">`,
			strings.TrimSuffix(Truncate(strings.TrimSpace(long), DescriptionLimit), "")},
		{"a trailing ... becomes an ellipsis", `<meta name="description" content="And then...">`, "And then…"},
		{"a news agency dateline is dropped",
			`<meta name="description" content="NEW YORK — Stocks rose on Monday.">`, "Stocks rose on Monday."},
		{"a short capitalised lead is not a dateline",
			`<meta name="description" content="NASA — the agency — launched.">`, "NASA — the agency — launched."},
		{"quotes become typographic", `<meta name="description" content="He said &quot;no&quot;">`, "He said “no”"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Description); got != tt.want {
				t.Errorf("description = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDescriptionNeverExceedsTheLimit(t *testing.T) {
	html := `<meta name="description" content="` + strings.Repeat("word ", 400) + `">`
	got := value(extractHTML(t, html).Description)
	if n := len([]rune(got)); n > DescriptionLimit || !strings.HasSuffix(got, "…") {
		t.Errorf("description has %d characters and ends %q, want at most %d ending in …", n, got[len(got)-8:], DescriptionLimit)
	}
}
