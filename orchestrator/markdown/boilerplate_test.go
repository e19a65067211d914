package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// TestASeriesOfBoxesNamedAsFurnitureThatHoldsMuchIsContent prunes pages
// whose boxes a class word names as furniture. One box, or a few small
// ones, goes; a series of one class that together holds more than a piece
// of furniture may is the content its template misnames (a services
// page's grid of "promo" boxes, a list's items marked "hide-read-more-ad"),
// unless the word names a series that is not the content: related
// stories, recommendations, comments.
func TestASeriesOfBoxesNamedAsFurnitureThatHoldsMuchIsContent(t *testing.T) {
	boxes := func(class string, n int, sentence string) string {
		var sb strings.Builder
		for i := range n {
			fmt.Fprintf(&sb, `<div class="%s"><h3>Service %d</h3><p>%s</p></div>`, class, i, sentence)
		}
		return sb.String()
	}
	long := "We audit your controls, test your defences and report what to fix first, with a plan your team can follow for a year."
	short := "Sponsored."
	// Each box is less than a tenth of the page.
	intro := `<h1>Our services</h1><p>` + strings.Repeat("Whatever your size, our people help your business grow and stay safe. ", 30) + `</p>`
	for _, tc := range []struct {
		name     string
		body     string
		want     []string
		unwanted []string
	}{
		{"a grid of promo boxes", intro + boxes("promo card", 8, long), []string{"Service 7", "report what to fix first"}, nil},
		{"a few small promo boxes", intro + boxes("promo card", 3, short), []string{"Our services"}, []string{"Service 2", "Sponsored"}},
		{"one promo box", intro + boxes("promo card", 1, long), []string{"Our services"}, []string{"Service 0"}},
		{"related stories however many", intro + boxes("related-post", 8, long), []string{"Our services"}, []string{"Service 7"}},
		{"readers' comments however many", intro + boxes("comments-item", 8, long), []string{"Our services"}, []string{"Service 7"}},
		{"boxes of many classes", intro + boxes("promo card-1", 1, long) + boxes("promo card-2", 1, long) + boxes("promo card-3", 1, long) +
			boxes("promo card-4", 1, long) + boxes("promo card-5", 1, long) + boxes("promo card-6", 1, long), []string{"Our services"}, []string{"Service 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := parseBody(t, `<main>`+tc.body+`</main><footer><p>© Example</p></footer>`)
			pruneBoilerplate(root)
			checkHolds(t, flatText(root), tc.want, append(tc.unwanted, "© Example"))
		})
	}
}

// TestAHeadingThatHeadsNothingGoesButACardsTitleStays drops the headings
// left heading nothing once their sections went. A headline inside its
// link is a card's title, and stays though nothing follows it: a grid
// whose tiles wait for a script to fill in their prices. So does a
// heading inside a list item, which is the item, and the heading over
// such a list.
func TestAHeadingThatHeadsNothingGoesButACardsTitleStays(t *testing.T) {
	var tiles strings.Builder
	for i := range 6 {
		fmt.Fprintf(&tiles, `<div class="tile"><a href="/shop/candle-%d"><div class="media"></div><h2>Glass candle number %d</h2></a><p class="price"></p></div>`, i, i)
	}
	root := parseBody(t, `<main><h1>Candles</h1><p>Hand-poured in small batches.</p><div class="grid">`+tiles.String()+
		`</div><h4>What the experts pick:</h4><ul><li><h2><a href="/p/117">Fluke 117</a></h2></li><li><h3>Klein 11061</h3></li></ul>`+
		`<h2>Related searches</h2></main>`)
	dropEmptySections(root)
	checkHolds(t, flatText(root), []string{"Candles", "Glass candle number 0", "Glass candle number 5", "What the experts pick:",
		"Fluke 117", "Klein 11061"}, []string{"Related searches"})
}

// TestAListOfLinkedHeadlinesStays keeps headlines that are all a link, two
// or more in a row, though nothing is under them: an archive's cards of
// headlines alone. A single linked heading over nothing still goes.
func TestAListOfLinkedHeadlinesStays(t *testing.T) {
	var cards strings.Builder
	for i := range 12 {
		fmt.Fprintf(&cards, `<div class="story"><h2><a href="/p%d">Notes on firing kiln number %d</a></h2></div>`, i, i)
	}
	root := parseBody(t, `<main><h1>Posts</h1>`+cards.String()+`<h3><a href="/topics/kilns">More on kilns</a></h3></main>`)
	dropEmptySections(root)
	checkHolds(t, flatText(root), []string{"Notes on firing kiln number 0", "Notes on firing kiln number 11"}, []string{"More on kilns"})
	md := article(t, `<!doctype html><html><head><title>Posts</title></head><body><main><h1>Posts</h1>`+cards.String()+`</main></body></html>`)
	checkHolds(t, md, []string{"## [Notes on firing kiln number 0](https://example.com/p0)", "Notes on firing kiln number 11"}, nil)
}

// TestTheSitesFooterIsNeverTheContent removes the page's own footer
// however much of the page it holds: a shop whose script has not drawn the
// product leaves only its footer's directory of links, and a site may set
// long text in its footer. A footer inside an article is the article's
// (its notes, its sources) and is judged as any block is.
func TestTheSitesFooterIsNeverTheContent(t *testing.T) {
	var directory strings.Builder
	for _, group := range []string{"Help", "Browse by category", "Our sites", "Company"} {
		fmt.Fprintf(&directory, `<div class="col"><h5>%s</h5><p>`, group)
		for i := range 8 {
			fmt.Fprintf(&directory, `<a href="/%s/%d">%s page %d</a>, `, strings.ReplaceAll(group, " ", "-"), i, group, i)
		}
		directory.WriteString(`</p></div>`)
	}
	seo := `<p>` + strings.Repeat("Example Shop sells lamps, rugs and chairs at fair prices, delivered to your door in two days. ", 12) + `</p>`
	story := `<h1>How the bridge was built</h1><p>` + strings.Repeat("The engineers sank the piers into the river bed over two dry summers. ", 10) + `</p>`
	for _, tc := range []struct {
		name     string
		body     string
		want     []string
		unwanted []string
	}{
		{"a page of nothing but its footer", `<header><a href="/"><img src="/logo.png" alt="Example Shop"></a></header><div id="app"></div>` +
			`<footer>` + directory.String() + `<p>© 2026 Example Shop. All rights reserved.</p></footer>`, nil, []string{"Help", "page 3", "All rights reserved"}},
		{"a role that says it is the footer", `<div id="app"></div><div role="contentinfo">` + directory.String() + `</div>`, nil, []string{"Help", "page 3"}},
		{"a footer of long text", `<article>` + story + `</article><footer>` + seo + directory.String() + `</footer>`,
			[]string{"sank the piers"}, []string{"fair prices", "page 3"}},
		{"an article's own footer", `<article>` + story + `<footer><h2>Sources</h2>` + seo + `</footer></article>`,
			[]string{"sank the piers", "fair prices"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, `<html><head><title>Example</title></head><body>`+tc.body+`</body></html>`)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

// TestTheSitesBannerIsNotTheContent leaves out the block WAI-ARIA's role
// calls the site's banner, its header of every page, whatever its tag.
func TestTheSitesBannerIsNotTheContent(t *testing.T) {
	story := `<p>` + strings.Repeat("The engineers sank the piers into the river bed over two dry summers. ", 20) + `</p>`
	banner := `<div role="banner"><p>The Builders' Source Since 1973</p><p>Ask Our Experts 212-444-6615</p><p>Hello, Log In Account &amp; Orders</p></div>`
	for _, tc := range []struct {
		name     string
		body     string
		want     []string
		unwanted []string
	}{
		{"the site's banner", banner + `<div class="page"><h1>How the bridge was built</h1>` + story + `</div>`,
			[]string{"sank the piers"}, []string{"Since 1973", "Ask Our Experts", "Log In"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, `<html><head><title>Example</title></head><body>`+tc.body+`</body></html>`)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}
