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
