package markdown

import (
	"fmt"
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
			if got := chooseRegion(newChosenText(art), region, tc.kind, false); got != tc.takesTheRegion {
				t.Errorf("chooseRegion = %v, want %v", got, tc.takesTheRegion)
			}
		})
	}
}

// TestEveryBandOfAPageBuiltAsBandsIsTheContent reads a services page
// built as a stack of full-width bands, one section each, which its SEO
// plugin calls an article. The extractor takes the band with the most
// text; the content is every band.
func TestEveryBandOfAPageBuiltAsBandsIsTheContent(t *testing.T) {
	band := func(n int, heading, sentence string, paragraphs int) string {
		body := strings.Repeat(`<p>`+strings.Repeat(sentence+" ", 3)+`</p>`, paragraphs)
		return fmt.Sprintf(`<div class="container-fluid panels band%d"><div class="container"><div class="row"><div class="col-md-12"><h2>%s</h2>%s</div></div></div></div>`,
			n, heading, body)
	}
	page := `<html><head><meta property="og:type" content="article"><title>Security consulting services</title></head><body>` +
		`<header><nav><a href="/">Home</a> <a href="/products">Products</a> <a href="/services">Services</a> <a href="/contact">Contact</a></nav></header><main>` +
		band(1, "Our methodology", "Our consultants help customers understand the trends that shape their networks and plan for them.", 2) +
		band(2, "Architecture workshops", "Multi-day sessions compare an organisation's security design with the practices that hold up against attacks.", 4) +
		band(3, "Risk assessment", "The assessment measures how the organisation performs against the frameworks it must comply with today.", 2) +
		band(4, "Threat intelligence", "Daily digests and reports summarise the events and publications that concern each client's industry.", 2) +
		band(5, "Cloud maturity", "The advisory service reviews each cloud account's posture and draws a road map of what to fix first.", 2) +
		`</main><footer><p>© Example Security</p></footer></body></html>`
	checkHolds(t, article(t, page), []string{"Our methodology", "Our consultants help", "Architecture workshops", "Risk assessment",
		"Threat intelligence", "Cloud maturity", "draws a road map"}, []string{"Contact"})
}

// TestABandGivesWayToTheRegionOnlyWhenTheOtherBandsHoldMore chooses
// between the extractor's block and the region of a page built as bands:
// a story in one band stays itself beside short bands of other matters,
// and two boxes of one class are not yet a stack of bands.
func TestABandGivesWayToTheRegionOnlyWhenTheOtherBandsHoldMore(t *testing.T) {
	band := func(class, sentence string, times int) string {
		return `<div class="` + class + `"><p>` + strings.Repeat(sentence+" ", times) + `</p></div>`
	}
	headlines := func(class string) string {
		return `<div class="` + class + `"><a href="/opinion"><h2>More in Opinion</h2></a>` +
			`<a href="/opinion/variant"><h3>There will be another variant</h3></a><p>` + strings.Repeat("The world must be ready for it before it comes, and it can be. ", 3) + `</p>` +
			`<a href="/opinion/food"><h3>The challenge: eat well</h3></a><p>` + strings.Repeat("A month of meals that are good for you and cost little. ", 3) + `</p></div>`
	}
	story := "The storage layer was rebuilt one shard at a time over a year, without a minute of downtime."
	other := "Each of our teams writes about the work it ships, the mistakes it made and what it learned."
	for _, tc := range []struct {
		name           string
		bands          []string
		takesTheRegion bool
		undeclared     bool // the page declares no article
	}{
		{"one band of four", []string{band("band band-1", story, 4), band("band band-2", other, 3), band("band band-3", other, 3), band("band band-4", other, 3)}, true, false},
		{"a story beside shorter bands", []string{band("band band-1", story, 12), band("band band-2", other, 2), band("band band-3", other, 2), band("band band-4", other, 2)}, false, false},
		{"two bands", []string{band("band band-1", story, 4), band("band band-2", other, 6)}, false, false},
		{"boxes of other classes", []string{band("band band-1", story, 4), band("newsletter", other, 3), band("author", other, 3), band("comments", other, 3)}, false, false},
		{"bands of headlines beside a story", []string{band("band band-1", story, 4), headlines("band band-2"), headlines("band band-3"), headlines("band band-4")}, false, false},
		// A page builder's panels share a word of their class and each
		// names its own kind of block first.
		{"panels sharing a class word", []string{band("widget_html panel widget", story, 4), band("panel widget widget_editor", other, 3), band("panel widget widget_editor", other, 3),
			band("panel widget widget_editor panel-last", other, 3)}, true, false},
		{"the other bands nearly as long as the story", []string{band("band band-1", story, 10), band("band band-2", other, 4), band("band band-3", other, 3), band("band band-4", other, 3)}, true, false},
		{"the other bands half as long as the story", []string{band("band band-1", story, 12), band("band band-2", other, 2), band("band band-3", other, 2), band("band band-4", other, 3)}, false, false},
		{"half as long on a page that declares no article", []string{band("band band-1", story, 12), band("band band-2", other, 2), band("band band-3", other, 2), band("band band-4", other, 3)}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			art := findFirst(parseBody(t, tc.bands[0]), func(n *html.Node) bool { return n.DataAtom == atom.Div })
			region := findFirst(parseBody(t, `<main>`+strings.Join(tc.bands, "")+`</main>`), func(n *html.Node) bool { return n.DataAtom == atom.Main })
			kind := kindArticle
			if tc.undeclared {
				kind = kindUnknown
			}
			if got := chooseRegion(newChosenText(art), region, kind, false); got != tc.takesTheRegion {
				t.Errorf("chooseRegion = %v, want %v", got, tc.takesTheRegion)
			}
		})
	}
}
