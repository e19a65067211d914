package markdown

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// TestAShortBlockWithoutTheListingsHeadlinesGivesWayToTheRegion chooses
// between the extractor's block and the main region of a short listing:
// a block that kept each post's date and reading time and dropped its
// headline, a heading inside a link, is not the content.
func TestAShortBlockWithoutTheListingsHeadlinesGivesWayToTheRegion(t *testing.T) {
	post := func(title, href string) string {
		return `<div class="post"><a href="` + href + `"><h2>` + title + `</h2></a><p>Engineering Blog · 3 min read</p></div>`
	}
	listing := `<main>` + post("Scaling storage for a billion users", "/scaling") + post("How we test our video encoders", "/encoders") +
		post("A faster build for every team", "/build") + `</main>`
	// What the extractor keeps of it: the lines beside the headlines.
	lines := `<div><p>Engineering Blog · 3 min read</p><p>Engineering Blog · 3 min read</p><p>Engineering Blog · 3 min read</p></div>`
	story := `<div><p>` + strings.Repeat("The story of how the storage layer was rebuilt, one shard at a time, over a year. ", 14) + `</p></div>`
	short := `<div><p>` + strings.Repeat("The storage layer was rebuilt one shard at a time. ", 12) + `</p></div>`
	related := `<main>` + story + post("Scaling storage for a billion users", "/scaling") + post("How we test our video encoders", "/encoders") +
		post("A faster build for every team", "/build") + `</main>`
	two := `<main>` + post("Scaling storage for a billion users", "/scaling") + post("How we test our video encoders", "/encoders") + `</main>`
	linkedHeading := `<main><h2><a href="/scaling">Scaling storage for a billion users</a></h2><p>Engineering Blog · 3 min read</p>` +
		`<h2><a href="/encoders">How we test our video encoders</a></h2><p>Engineering Blog · 3 min read</p>` +
		`<h2><a href="/build">A faster build for every team</a></h2><p>Engineering Blog · 3 min read</p></main>`
	for _, tc := range []struct {
		name           string
		art, region    string
		kind           pageKind
		takesTheRegion bool
	}{
		{"a listing's lines without its headlines", lines, listing, kindUnknown, true},
		{"a page of many blocks too", lines, listing, kindMany, true},
		{"headings holding the link", lines, linkedHeading, kindUnknown, true},
		{"a short article keeps its block beside the related posts", short, related, kindArticle, false},
		{"a long block is a story, not a listing's lines", story, related, kindUnknown, false},
		{"two headlines are not yet a listing", lines, two, kindUnknown, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			art := findFirst(parseBody(t, tc.art), func(n *html.Node) bool { return n.DataAtom == atom.Div })
			region := findFirst(parseBody(t, tc.region), func(n *html.Node) bool { return n.DataAtom == atom.Main })
			if got := chooseRegion(art, region, tc.kind, false); got != tc.takesTheRegion {
				t.Errorf("chooseRegion = %v, want %v", got, tc.takesTheRegion)
			}
		})
	}
}
