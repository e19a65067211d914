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

// TestABlockOutsideTheMarkedMainRegionGivesWayToIt reads a news site's
// front page whose header holds a menu of featured stories, each with a
// paragraph, and whose <main> holds sections of the latest news as linked
// headlines with their bylines: the extractor weighs the paragraphs over
// the links and picks the menu, outside what the page marks as its
// content.
func TestABlockOutsideTheMarkedMainRegionGivesWayToIt(t *testing.T) {
	var featured, news strings.Builder
	for i := range 4 {
		fmt.Fprintf(&featured, `<li><h4><a href="/featured/%d">Featured talk %d on building services</a></h4><p>The speaker explains, over forty minutes, how `+
			`a team moved its services from one language to another, what it measured before and after, and what it would do again, with numbers from `+
			`production and the mistakes that cost them a quarter of a year.</p></li>`, i, i)
	}
	for s, section := range []string{"News", "Podcasts", "Articles", "Presentations"} {
		fmt.Fprintf(&news, `<section class="%s"><h2>%s</h2><div class="list-%d">`, strings.ToLower(section), section, s)
		for i := range 5 {
			fmt.Fprintf(&news, `<div class="item-%d-%d"><a href="/%d/%d">%s item %d: a cloud provider previews cross-region queries</a> `+
				`<span>by <a href="/profile/%d">Reporter %d</a> on Mar 0%d</span></div>`, s, i, s, i, section, i, i, i, i+1)
		}
		news.WriteString(`</div></section>`)
	}
	page := `<!doctype html><html><head><title>Software news</title></head><body><header><nav><a href="/">Home</a></nav>` +
		`<div class="topics"><h3>Featured in Development</h3><ul>` + featured.String() + `</ul></div></header>` +
		`<main>` + news.String() + `</main><footer><p>Contact us</p></footer></body></html>`
	md := article(t, page)
	checkHolds(t, md, []string{"News item 0: a cloud provider", "Presentations item 4: a cloud provider"}, []string{"Featured talk"})
}

// TestOutsideMainWeighsTheBlockAgainstTheWholeMainRegion: a block whose
// words the main region does not hold lies outside it; one whose words
// it held before its comments were left out (a story with its readers'
// thread) does not; nor does any block on a page that marks no main
// region, or one larger than the region.
func TestOutsideMainWeighsTheBlockAgainstTheWholeMainRegion(t *testing.T) {
	story := strings.Repeat("The harbour master logs the tide twice a day in a ledger by the window. ", 6)
	replies := strings.Repeat("Grandpa kept similar records near northern quays, never missing mornings. ", 14)
	menu := strings.Repeat("Featured talk on moving services from one language to another, with numbers. ", 3)
	div := func(s string) *html.Node {
		return findFirst(parseBody(t, `<div><p>`+s+`</p></div>`), func(n *html.Node) bool { return n.DataAtom == atom.Div })
	}
	main := func(s string) *html.Node {
		return findFirst(parseBody(t, `<main><p>`+s+`</p></main>`), func(n *html.Node) bool { return n.DataAtom == atom.Main })
	}
	for _, tc := range []struct {
		name     string
		art      *html.Node
		region   *html.Node
		comments []*html.Node
		outside  bool
	}{
		{"a menu of the header", div(menu), main(story), nil, true},
		{"the story with its comments", div(story + replies), main(strings.Repeat(story+" ", 4) + replies[:40]), []*html.Node{div(replies)}, false},
		{"a page that marks no main region", div(menu), div(story), nil, false},
		{"a block larger than the region", div(menu + menu + menu), main(story[:100]), nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := outsideMain(tc.art, tc.region, tc.comments); got != tc.outside {
				t.Errorf("outsideMain = %v, want %v", got, tc.outside)
			}
		})
	}
}
