package answer

import (
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/glimpse/glimpse/orchestrator/query"
)

// article is enough paragraphs for the extraction to take the <article>
// as the page's main content.
const article = `<article><p>The river rose by two metres overnight, and the town's lower streets were under water by dawn. Volunteers moved sandbags along the embankment while the ferry stayed moored.</p>
<p>By noon the level had stopped climbing. The council said the pumps at the old mill had kept the square dry, and that schools would open again on Monday if the forecast held.</p>
<p>Residents who left their homes can return once the water board has checked the supply. Until then, bottled water is handed out at the station from eight in the morning.</p></article>`

// Whole-page Markdown (attr=markdown, no selector) starts with the page's
// <h1> title, wherever on the page it sits, as Microlink's does; it is
// never doubled, and nothing hidden or absent is made up.
func TestWholePageMarkdownStartsWithThePageTitle(t *testing.T) {
	cases := []struct {
		name  string
		page  string
		start string // the Markdown begins with this line
		title string // and has this heading exactly once ("" none at all)
	}{
		{name: "a title in the page header above the article is put first",
			page:  `<title>Rivers rise</title><body><header><h1>Rivers rise in the valley</h1></header>` + article,
			start: "# Rivers rise in the valley", title: "Rivers rise in the valley"},
		{name: "a title inside the article is kept once",
			page:  `<title>Rivers rise</title><body><article><h1>Rivers rise in the valley</h1>` + strings.TrimPrefix(article, "<article>"),
			start: "# Rivers rise in the valley", title: "Rivers rise in the valley"},
		{name: "the heading that says the document title wins over a site's logo",
			page: `<title>Rivers rise in the valley – Valley Courier</title><body><header><h1 class="logo"><a href="/">Valley Courier</a></h1></header>
<div class="headline"><h1>Rivers rise in the valley</h1></div>` + article,
			start: "# Rivers rise in the valley", title: "Rivers rise in the valley"},
		{name: "og:title picks the heading when the title element says something else",
			page: `<title>Home</title><meta property="og:title" content="Rivers rise in the valley"><body><h1>Valley Courier</h1>
<section><h1>Rivers rise in the valley</h1></section>` + article,
			start: "# Rivers rise in the valley", title: "Rivers rise in the valley"},
		{name: "without a matching title the first visible h1 is used",
			page:  `<body><h1 hidden>Skip to content</h1><div><h1>Rivers rise in the valley</h1></div>` + article,
			start: "# Rivers rise in the valley", title: "Rivers rise in the valley"},
		{name: "Markdown in a title is escaped",
			page:  `<title>Why *rivers* [rise]</title><body><h1>Why *rivers* [rise]</h1>` + article,
			start: `# Why \*rivers* \[rise]`, title: `Why \*rivers* \[rise]`},
		{name: "a hidden h1 is not made a title",
			page:  `<title>Rivers</title><body><h1 style="display:none">Rivers</h1>` + article,
			start: "The river rose"},
		{name: "a page without h1 is left as it is",
			page:  `<title>Rivers</title><body>` + article,
			start: "The river rose"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := goquery.NewDocumentFromReader(strings.NewReader("<!doctype html><html lang=en><head>" + tc.page + "</body></html>"))
			if err != nil {
				t.Fatal(err)
			}
			req, err := query.Parse("url=https%3A%2F%2Fnews.example%2Frivers&meta=false&data.content.attr=markdown", query.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			base, _ := url.Parse("https://news.example/rivers")
			fields, _, err := applyDataRules(t.Context(), doc, base, req.Data, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			md, _ := fields[0].value.(string)
			if first, _, _ := strings.Cut(md, "\n"); !strings.HasPrefix(first, tc.start) {
				t.Errorf("the Markdown starts with %q, want %q:\n%s", first, tc.start, md)
			}
			headings := 0
			for line := range strings.SplitSeq(md, "\n") {
				if strings.HasPrefix(line, "#") {
					headings++
					if tc.title == "" || strings.TrimSpace(strings.TrimLeft(line, "#")) != tc.title {
						t.Errorf("an unexpected heading %q:\n%s", line, md)
					}
				}
			}
			if tc.title != "" && headings != 1 {
				t.Errorf("the title is there %d times, want once:\n%s", headings, md)
			}
			if !strings.Contains(md, "Residents who left their homes") {
				t.Errorf("the article is missing:\n%s", md)
			}
		})
	}
}
