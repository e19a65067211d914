package markdown

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func TestArticleLeavesOutTheLabelsOfControls(t *testing.T) {
	body := strings.Repeat("The kiln fires at night so the glaze cools slowly by morning. ", 6)
	for _, tc := range []struct {
		name           string
		page           string
		want, unwanted []string
	}{
		{
			name: "a teaser's read-more link, a card's compare box and a loading placeholder go",
			page: `<!doctype html><html><head><title>Studio - Example</title></head><body>` + pageHeader +
				`<main><h1>Our studio</h1><p>` + body + `</p><div class="cta"><a href="/about">Read More</a></div>` +
				`<div class="card"><label><input type="checkbox"> Compare</label><p>` + body + `</p></div>` +
				`<div class="reviews">Loading...</div><p><button>Add to cart</button></p></main>` + pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night"},
			unwanted: []string{"Read More", "Compare", "Loading", "Add to cart"},
		},
		{
			name: "a placeholder naming what is loading goes; a heading and a sentence that start with the word stay",
			page: `<!doctype html><html><head><title>Studio - Example</title></head><body>` + pageHeader +
				`<main><h1>Our studio</h1><p>` + body + `</p><div class="q">Loading Reviews...</div><div class="p">Loading paragraph…</div>` +
				`<h2>Loading the kiln</h2><p>` + body + `</p><p>Loading takes an hour.</p></main>` + pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night", "Loading the kiln", "Loading takes an hour."},
			unwanted: []string{"Loading Reviews", "Loading paragraph"},
		},
		{
			name: "a product card's and a section's controls go",
			page: `<!doctype html><html><head><title>Kilns - Example</title></head><body>` + pageHeader +
				`<main><h1>Kilns</h1><p>` + body + `</p><div class="card"><h3>Studio kiln</h3><p>` + body + `</p>` +
				`<div><label><input type="checkbox"> Add to Compare</label></div><div><a class="btn" href="/k/1">Choose options</a></div>` +
				`<div><button>Quick view</button></div><div><a href="/k/1">View details</a></div></div>` +
				`<section><h2>Firing services</h2><p>` + body + `</p><p><a class="btn" href="/firing">Learn more</a></p></section>` +
				`<div><button>Show more</button></div><details><summary>Expand description</summary><p>` + body + `</p></details>` +
				`<div><button>Collapse all</button></div></main>` + pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night", "Studio kiln", "Firing services"},
			unwanted: []string{"Add to Compare", "Choose options", "Quick view", "View details", "Learn more", "Show more", "Expand description", "Collapse all"},
		},
		{
			name: "a page's sign-in, subscribe, advertisement and breadcrumb labels standing alone go",
			page: `<!doctype html><html><head><title>Kilns - Example</title></head><body>` + pageHeader +
				`<main><ul class="trail"><li><span>Home</span></li><li><span>Blog</span></li></ul><h1>Kilns</h1><p>` + body + `</p>` +
				`<div class="ad-slot"><div class="lbl">Advertisement</div></div><div class="x"><span>Article continues below</span></div><p>` + body + `</p>` +
				`<div class="c"><div>Subscribe</div></div><div class="d"><div>Sign in</div></div><div class="e"><div>Back to top</div></div></main>` + pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night"},
			unwanted: []string{"Home", "Blog", "Advertisement", "continues below", "Subscribe", "Sign in", "Back to top"},
		},
		{
			name: "the labels of links to the story or thread before and after go; one with its title stays",
			page: `<!doctype html><html><head><title>Kilns - Example</title></head><body>` + pageHeader +
				`<main><h1>Kilns</h1><p>` + body + `</p><div class="nav"><div><a href="/p/1"><span>Previous article</span></a></div>` +
				`<div><a href="/p/3"><span>Next Post ›</span></a></div></div><div class="threads">« Previous Thread | Next Thread »</div>` +
				`<p><a href="/p/4">Next post: A night at the kiln with the glaze still warm</a></p></main>` + pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night", "Next post: A night at the kiln"},
			unwanted: []string{"Previous article", "Next Post ›", "Previous Thread"},
		},
		{
			name: "a quoted post's expand control goes, the quote stays",
			page: `<!doctype html><html><head><title>Glazes - Forum</title></head><body>` + pageHeader +
				`<main><h1>Cone 6 glazes</h1><p>` + body + `</p><blockquote><div>Anyone tried a satin matte at cone 6?</div>` +
				`<div class="expand-link">Click to expand...</div></blockquote><p>` + body + `</p></main>` + pageFooter + `</body></html>`,
			want:     []string{"satin matte at cone 6"},
			unwanted: []string{"Click to expand"},
		},
		{
			name: "a Q&A site's ask button, a member's figures and an answer's date go",
			page: `<!doctype html><html><head><title>Glaze crawling - Q&amp;A</title></head><body>` + pageHeader +
				`<main><h1>Why does my glaze crawl?</h1><div><a class="btn" href="/questions/ask">Ask Question</a></div><p>` + body + `</p>` +
				`<div class="card"><div>answered Feb 4, 2014 at 13:27</div><div><a href="/users/1/ada">Ada</a></div>` +
				`<div><span>1,669</span><span>13 silver badges</span><span>18 bronze badges</span></div></div><p>` + body + `</p>` +
				`<ul class="actions"><li><a href="/post?quote=1">Reply with quote</a></li></ul><p>See similar questions with these tags.</p><div class="box"><p>Start asking to get answers</p><p>Find the answer to your question by asking.</p></div></main>` + pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night"},
			unwanted: []string{"Ask Question", "silver badges", "answered Feb", "Reply with quote", "similar questions", "Start asking", "by asking"},
		},
		{
			name: "a post's share, follow, bookmark and report controls go; a resource's kind stays",
			page: `<!doctype html><html><head><title>Kilns - Forum</title></head><body>` + pageHeader +
				`<main><h1>Electric kiln wiring</h1><p>` + body + `</p><div class="ufi"><div><button type="button"><div class="label">Share</div></button></div>` +
				`<div><span>Follow</span></div><div><span class="lnk">Bookmark</span></div><div><span class="lnk">Flag</span></div></div>` +
				`<div class="toolLinks"><div class="lnk"><span class="taLnk"> Report inappropriate content </span></div></div><p>` + body + `</p>` +
				`<div class="resource"><div>Report</div><h3>2025 Studio Pottery Report</h3><p>How studios priced their work this year.</p></div></main>` + pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night", "Report\n", "2025 Studio Pottery Report"},
			unwanted: []string{"Share", "Follow", "Bookmark", "Flag", "inappropriate"},
		},
		{
			name: "a service page's calls to action standing alone go; the same words in a sentence or a heading stay",
			page: `<!doctype html><html><head><title>Kiln hire - Example</title></head><body>` + pageHeader +
				`<main><h1>Kiln hire</h1><p>` + body + `</p><div class="card"><p>How studios priced their work this year.</p>` +
				`<a class="btn" href="/report">Read the report</a></div><p><a href="/blog/1">Read blog</a></p>` +
				`<div class="cta"><a href="/sales">Talk to sales</a> <a href="/demo">Book a demo</a></div><div><a href="/trial">Start your free trial</a></div>` +
				`<p><a class="btn" href="/book">Book now</a></p><p><a href="tel:2125550100">Get a quote (212) 555-0100</a></p>` +
				`<section><h2>Get started</h2><p>` + body + ` Ask us to <a href="/demo">book a demo</a> for your studio, or book now for May.</p></section></main>` + pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night", "## Get started", "[book a demo](", "or book now for May"},
			unwanted: []string{"Read the report", "Read blog", "Talk to sales", "Book a demo", "free trial", "Book now", "555-0100"},
		},
		{
			name: "a forum's own controls and notices around a thread go",
			page: `<!doctype html><html><head><title>Kiln wiring - Forum</title></head><body>` + pageHeader +
				`<main><h1>Kiln wiring</h1><div class="buttons"><a href="/post?t=1">Post Reply</a> <a href="/new">Start new topic</a></div>` +
				`<p>` + body + `</p><div class="notice">Not open for further replies.</div><p>` + body + `</p>` +
				`<div class="jump"><span>Jump to</span></div><div><a href="/f/3">Go to topic listing</a></div>` +
				`<div class="box"><p>Display posts from previous</p></div><div class="note"><p>This topic was automatically closed after 30 days. New replies are no longer allowed.</p></div>` +
				`<p>The thread was closed for a week in March, when the moderators moved it, and the kiln's owner posted his wiring diagram again after.</p></main>` + pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night", "The thread was closed for a week in March"},
			unwanted: []string{"Post Reply", "Start new topic", "further replies", "Jump to", "topic listing", "Display posts", "automatically closed"},
		},
		{
			name: "lines of readers' counts go; a count inside a sentence stays",
			page: `<!doctype html><html><head><title>Kilns - Example</title></head><body>` + pageHeader +
				`<main><h1>Kilns</h1><div class="meta"><span>1,693 views</span></div><p>` + body + `</p>` +
				`<div class="stats"><a href="/k#c">44 reactions</a></div><p>(Visited 1,902 times, 364 visits today)</p>` +
				`<div>286 likes · 14 comments</div><p>` + body + ` The first firing drew 40 comments from members.</p></main>` + pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night", "drew 40 comments from members"},
			unwanted: []string{"1,693 views", "44 reactions", "Visited 1,902", "286 likes"},
		},
		{
			name: "the error notices a page's scripts show go; a sentence that tells what went wrong stays",
			page: `<!doctype html><html><head><title>Kilns - Example</title></head><body>` + pageHeader +
				`<main><h1>Kilns</h1><div class="a-alert" role="alert"><h4>Sorry, there was a problem.</h4></div><p>` + body + `</p>` +
				`<div class="w-form-fail"><div>Oops! Something went wrong while submitting the form.</div></div>` +
				`<p>Unable to add item to List. Please try again.</p><p><span>There was an error retrieving your Wish Lists. Please try again.</span></p>` +
				`<p>There was a problem with the first firing: the shelf cracked at 900 degrees.</p><p>` + body + ` When something went wrong, we started again.</p></main>` +
				pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night", "There was a problem with the first firing", "When something went wrong, we started again."},
			unwanted: []string{"Sorry, there was a problem", "Oops!", "Unable to add item", "Wish Lists"},
		},
		{
			name: "the notes a widget shows when it has nothing to list go; sentences about nothing found stay",
			page: `<!doctype html><html><head><title>Kilns - Example</title></head><body>` + pageHeader +
				`<main><h1>Kilns</h1><p>` + body + `</p><div class="archive"><p class="archive-empty">No posts</p></div>` +
				`<div class="search"><div>No results found.</div></div><div class="reviews"><span>No Reviews Yet</span></div>` +
				`<div><p>No ratings or reviews yet</p></div><div class="drawer"><h2>Your cart is currently empty.</h2></div>` +
				`<div><p>There's nothing here!</p></div><div><p>Be the first to review this kiln</p></div>` +
				`<p>No results found? Try the kiln's model number.</p><h3>No questions asked</h3>` +
				`<p>No comments were made at the meeting, and the kiln stayed where it was.</p>` +
				`<p>` + body + ` We found no posts on the forum about it.</p></main>` + pageFooter + `</body></html>`,
			want: []string{"The kiln fires at night", "No results found? Try", "No questions asked", "No comments were made at the meeting",
				"We found no posts on the forum about it."},
			unwanted: []string{"No posts\n", "No results found.", "No Reviews Yet", "No ratings", "cart is", "nothing here", "Be the first"},
		},
		{
			name: "the words inside a sentence, a table's cells and code stay",
			page: `<!doctype html><html><head><title>Glazes - Example</title></head><body>` + pageHeader +
				`<main><h1>Comparing glazes</h1><p>` + body + ` You can <a href="/more">read more</a> in our notes.</p>` +
				`<table><tr><th>Glaze</th><th>Finish</th></tr><tr><td>Celadon</td><td>Compare</td></tr></table>` +
				`<pre><code>loading</code></pre><p>She earned 3 gold badges in a year.</p><p>` + body + `</p></main>` + pageFooter + `</body></html>`,
			want: []string{"[read more](", "| Celadon | Compare |", "loading\n```", "She earned 3 gold badges in a year."},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestAProseHeadingOverNothingStays(t *testing.T) {
	md := article(t, `<!doctype html><html><head><title>Gallery - Example</title></head><body>`+pageHeader+
		`<main><h1>Our gallery</h1><div><h2>Welcome!</h2><h4>For more than forty years we have offered a vast selection of handmade gifts, from jewellery and pottery to hand-blown glass.</h4></div>`+
		`<h2>Visit us</h2><p>`+strings.Repeat("The gallery opens every day but Monday, from ten until six. ", 5)+`</p>`+
		`<h2>Related</h2></main>`+pageFooter+`</body></html>`)
	checkHolds(t, md, []string{"For more than forty years", "Visit us"}, []string{"Related"})
}

func TestAShopsNoticesGoAndItsPromotionsSentencesStay(t *testing.T) {
	notices := `<div class="stock"><div>In stock</div><div>Only 3 left</div></div>` +
		`<div class="ship"><p>Free shipping on orders over $99.</p><p>Taxes, discounts and shipping calculated at checkout.</p></div>` +
		`<div class="size"><div><span>Select a size</span></div><div><a href="/size">Size guide</a></div><div>Qty:</div></div>`
	page := strings.Replace(productPage(productLD, "", 0), `<div class="description">`, notices+`<div class="description">`, 1)
	md := article(t, page)
	checkHolds(t, md, []string{"A kettle of brushed steel"},
		[]string{"In stock", "Only 3 left", "Free shipping on orders over", "calculated at checkout", "Select a size", "Size guide", "Qty"})

	// A notice that ends a sentence of the page's own stays in it.
	body := strings.Repeat("Our kettles are made by hand in a small workshop by the sea. ", 6)
	md = article(t, `<!doctype html><html><head><title>Membership - Example</title></head><body>`+pageHeader+
		`<main><h1>Membership</h1><p>`+body+`</p><div class="terms"><span>Every kettle ordered this winter comes <strong class="x"><div><p>with</p></div></strong> `+
		`<strong class="y"><div><p>FREE standard shipping</p></div></strong>.</span></div><p>`+body+`</p></main>`+pageFooter+`</body></html>`)
	checkHolds(t, md, []string{"FREE standard shipping"}, nil)

	// A grid's cards lose their stock and shipping notices, and keep
	// their names and prices.
	cards := strings.ReplaceAll(productCards(12), `</a>`, `</a><div class="badge">Low stock</div><div class="ship">Free delivery</div>`+
		`<div class="more"><a href="/more">+ More</a></div><div class="reviews"><a href="/reviews">Be the first to review this product</a></div>`)
	md = article(t, `<!doctype html><html><head><title>Side tables - Example</title></head><body>`+pageHeader+
		`<main><h1>Side tables</h1>`+cards+`</main>`+pageFooter+`</body></html>`)
	checkHolds(t, md, []string{"Walnut side table model 0", "Walnut side table model 11"},
		[]string{"Low stock", "Free delivery", "+ More", "Be the first"})
}

// TestALineThatGoesLeavesTheWordsAroundItApart removes lines set as
// blocks between two runs of inline text, and keeps the words on either
// side apart, as the block did.
func TestALineThatGoesLeavesTheWordsAroundItApart(t *testing.T) {
	cards := strings.ReplaceAll(productCards(12), `</a>`, `</a><span class="price">$89.73</span><div class="stock">In stock</div><span class="was">compared to $120.00</span>`)
	md := article(t, `<!doctype html><html><head><title>Side tables - Example</title></head><body>`+pageHeader+
		`<main><h1>Side tables</h1>`+cards+`</main>`+pageFooter+`</body></html>`)
	checkHolds(t, md, []string{"Walnut side table model 0", "$89.73 compared to $120.00"}, []string{"In stock", "73compared"})

	// A line between two paragraphs leaves nothing in its place.
	story := strings.Repeat("The workshop by the sea makes every kettle by hand. ", 6)
	md = article(t, `<!doctype html><html><head><title>Kettles - Example</title></head><body>`+pageHeader+
		`<main><h1>Kettles</h1><p>`+story+`</p><div>Read more</div><p>`+story+`</p></main>`+pageFooter+`</body></html>`)
	checkHolds(t, md, []string{"by hand.\n\nThe workshop"}, []string{"Read more"})
}

func TestShopLabelRe(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"In stock", true}, {"Out of stock", true}, {"Sold out", true}, {"Only 2 left in stock!", true},
		{"Notify me when available", true}, {"Coming soon!", true}, {"FREE Fast Delivery", true},
		{"Free shipping on all orders over $100", true}, {"Free shipping from 100€", true},
		{"Shipping calculated at checkout.", true}, {"Returns & exchanges accepted", true}, {"Quantity", true},
		{"Back-order", true}, {"Backordered", true}, {"+ More", true}, {"More options", true}, {"More colours", true},
		{"Available in additional 2 options", true}, {"Be the first to review this product", true}, {"Be the first to write a review", true},
		{"Save 25%", false}, {"More options for the garden", false}, {"Be the first to know", false},
		{"Free shipping is one reason shoppers come back", false}, {"Stock up on winter gear", false},
		{"Our stock comes from small farms", false}, {"Size matters less than fit", false},
	} {
		if got := shopLabelRe.MatchString(tc.text); got != tc.want {
			t.Errorf("shopLabelRe.MatchString(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestACountBesideAnIconNamedForItGoes drops the readers' counts of a
// list's cards when each sits beside an icon whose drawing names it
// ("<title>Comments</title>" before "27 comments"), as it drops them
// without the icon; the converter never writes the icon's name.
func TestACountBesideAnIconNamedForItGoes(t *testing.T) {
	var cards strings.Builder
	for i := range 6 {
		fmt.Fprintf(&cards, `<div class="story"><h2><a href="/p%d">Notes on firing kiln number %d</a></h2>`+
			`<p>The glaze cooled slowly overnight and the shelves held through the whole firing.</p><div class="bottom">`+
			`<a href="/p%d#comments"><svg role="img"><title>Comments</title><path d="M1 1h2"></path></svg>%d<span>&nbsp;comments</span></a>`+
			`</div></div>`, i, i, i, 20+i)
	}
	md := article(t, `<!doctype html><html><head><title>Posts</title></head><body><main><h1>Posts</h1>`+cards.String()+`</main></body></html>`)
	checkHolds(t, md, []string{"Notes on firing kiln number 3"}, []string{"comments"})
}

func TestArticleLeavesOutTheLinksItDrawsAsButtons(t *testing.T) {
	body := strings.Repeat("The kiln fires at night so the glaze cools slowly by morning. ", 6)
	page := `<!doctype html><html><head><title>Studio - Example</title></head><body>` + pageHeader +
		`<main><h1>Our studio</h1><p>` + body + `</p>` +
		`<p class="hero__actions"><a class="btn btn--primary" href="/book">Book your firing slot</a></p>` +
		`<p><a class="chakra-button css-1x2y" href="/shop">Shop all kilns</a></p>` +
		`<p>` + body + `</p>` +
		`<p><a class="Button_root__Stmhv" href="/app">Open the app</a></p>` +
		`<p>` + body + `</p>` +
		`<p class="cta_container"><a class="cta_button" href="/demo">Watch the kiln tour</a></p>` +
		`<p>` + body + `</p>` +
		// A sentence drawn as a button says more than a call to action;
		// a heading's button is the heading.
		`<p><a class="btn" href="/guide">Our guide to firing schedules explains each cone and how long the kiln holds it at peak</a></p>` +
		`<h2><a class="button-link" href="/classes">Evening classes</a></h2><p>` + body + `</p>` +
		`</main>` + pageFooter + `</body></html>`
	checkHolds(t, article(t, page),
		[]string{"The kiln fires at night", "Our guide to firing schedules", "Evening classes"},
		[]string{"Book your firing slot", "Shop all kilns", "Open the app", "Watch the kiln tour"})
}

func TestButtonClass(t *testing.T) {
	for _, tc := range []struct {
		class  string
		button bool
	}{
		{"btn", true},
		{"btn btn-primary", true},
		{"eds-btn eds-btn--link", true},
		{"pub__btn pub__btn--small", true},
		{"elementor-button elementor-size-sm", true},
		{"Button_root__Stmhv Button_variant", true},
		{"cta_button", true},
		{"short-cta", true},
		{"buttons-row", false},
		{"btnx", false},
		{"subtitle", false},
		{"", false},
	} {
		if got := buttonClass(tc.class); got != tc.button {
			t.Errorf("buttonClass(%q) = %v, want %v", tc.class, got, tc.button)
		}
	}
}

func TestButtonLabelLeavesTogglesAndSentences(t *testing.T) {
	for _, tc := range []struct {
		markup string
		label  bool
	}{
		{`<a class="btn" href="/book">Book a lesson</a>`, true},
		{`<button class="cta-button">Get started</button>`, true},
		{`<a class="accordion-button" href="#a" aria-expanded="false">Glaze recipes</a>`, false},
		{`<button class="btn" aria-controls="panel-2">Shipping and returns</button>`, false},
		{`<a class="btn" href="/guide">Our guide explains each cone and how long the kiln holds it</a>`, false},
		{`<a class="link" href="/book">Book a lesson</a>`, false},
	} {
		doc := parseBody(t, "<html><body><div>"+tc.markup+"</div></body></html>")
		n := findFirst(doc, func(k *html.Node) bool { return k.DataAtom == atom.A || k.DataAtom == atom.Button })
		if got := buttonLabel(n, flatText(n)); got != tc.label {
			t.Errorf("buttonLabel(%s) = %v, want %v", tc.markup, got, tc.label)
		}
	}
}

// TestArticleLeavesOutTheSignsControlsAreDrawnWith converts a page whose
// carousel, dialog, accordion and menu leave their signs on lines of
// their own, beside signs that say something.
func TestArticleLeavesOutTheSignsControlsAreDrawnWith(t *testing.T) {
	body := strings.Repeat("The kiln fires at night so the glaze cools slowly by morning. ", 6)
	page := `<!doctype html><html><head><title>Studio - Example</title></head><body>` + pageHeader +
		`<main><h1>Our studio</h1><p>` + body + `</p>` +
		`<div class="carousel"><span class="prev">←</span><span class="next">→</span><a href="#s2">↗</a><div>▶ ◀</div></div>` +
		`<div class="modal"><span class="close">×</span><p>` + body + `</p></div>` +
		`<div class="accordion"><h3>Glazes</h3><span>+</span><p>` + body + `</p><span>−</span></div>` +
		`<div class="menu">⋮</div><div class="sep">|</div><div>☰</div>` +
		`<p>★★★★☆</p><ul><li>✓</li><li>Kiln wash included</li></ul>` +
		`<table><tr><th>Kiln</th><th>Vent</th></tr><tr><td>Studio</td><td>–</td></tr><tr><td>Large</td><td>Yes</td></tr></table>` +
		`<dl><dt><code>--</code></dt><dd>Do not read any more arguments as options.</dd></dl>` +
		`<p>Press → to turn the dial.</p><pre><code>--- a/kiln.conf
+++ b/kiln.conf
+
-</code></pre></main>` + pageFooter + `</body></html>`
	md := article(t, page)
	checkHolds(t, md, []string{"The kiln fires at night", "Glazes", "★★★★☆", "✓", "| Studio | – |", "Press → to turn the dial.", "+++ b/kiln.conf\n+\n-", "`--`"},
		[]string{"←", "↗", "▶", "×", "⋮", "☰", "\n+\n\n", "−"})
	for _, line := range strings.Split(md, "\n") {
		if strings.TrimSpace(line) == "|" || strings.TrimSpace(line) == "→" {
			t.Errorf("a sign stands on a line of its own:\n%s", md)
		}
	}
}

// TestArticleLeavesOutTheControlsOfAPicture drops the controls a page
// sets by its pictures: the toggle of a caption, wherever it stands (a
// news site sets "hide caption" inside the caption's line, after the
// credit), and an invitation to enlarge the picture alone on its line.
// The same words in a sentence or a table's cell stay.
func TestArticleLeavesOutTheControlsOfAPicture(t *testing.T) {
	body := strings.Repeat("The kiln fires at night so the glaze cools slowly by morning. ", 6)
	page := `<!doctype html><html><head><title>Studio - Example</title></head><body>` + pageHeader +
		`<main><h1>Our studio</h1><figure><img src="/kiln.jpg" alt="The kiln"><figcaption><p>The new kiln in the yard. <b class="credit">Ada Lin</b> ` +
		`<b class="hc"><b>hide caption</b></b></p><b class="tc"><b>toggle caption</b></b></figcaption></figure><p>` + body + `</p>` +
		`<figure><img src="/glaze.jpg" alt="Glazes"><div>Click to enlarge</div><span>Show Caption</span></figure>` +
		`<p>` + body + `</p><p>The museum lets you view larger images of each pot on request, and you may show captions in three languages.</p>` +
		`<table><tr><th>Setting</th><th>What it does</th></tr><tr><td>Show captions</td><td>Prints each picture's caption under it.</td></tr></table></main>` + pageFooter + `</body></html>`
	md := article(t, page)
	checkHolds(t, md, []string{"The new kiln in the yard.", "view larger images of each pot", "show captions in three languages", "| Show captions | Prints each picture's caption under it. |"},
		[]string{"hide caption", "toggle caption", "Click to enlarge", "Show Caption"})
}

// TestArticleLeavesOutATicker drops the line of a ticker, one short
// phrase run over and over (in one box or in a box for each copy); a
// song's refrain said four times, a cheer of a word, and two prices
// stay.
func TestArticleLeavesOutATicker(t *testing.T) {
	body := strings.Repeat("The kiln fires at night so the glaze cools slowly by morning. ", 6)
	page := `<!doctype html><html><head><title>Studio - Example</title></head><body>` + pageHeader +
		`<main><h1>Our studio</h1><div class="marquee">` + strings.Repeat("Book Now *", 40) + `</div><p>` + body + `</p>` +
		`<div class="loop">` + strings.Repeat(`<span>Free shipping ✦</span>`, 8) + `</div>` +
		`<p>Let it glow, let it glow, let it glow, let it glow</p><p>Go go go go go go!</p><p>$99.99 $99.99</p><p>0 1 0 1 0 1 0 1 0 1 0 1 0 1</p><p>` + body + `</p></main>` +
		pageFooter + `</body></html>`
	md := article(t, page)
	checkHolds(t, md, []string{"Let it glow, let it glow, let it glow, let it glow", "Go go go go go go!", "$99.99 $99.99", "0 1 0 1 0 1 0 1 0 1 0 1 0 1"},
		[]string{"Book Now", "Free shipping"})
}

// TestArticleLeavesOutARowOfControls drops a block that is nothing but
// controls side by side (a hero's "Get started" and "Contact sales", a
// card's buttons); a row of links to the site's pages, a row holding
// words of its own or a picture, and a sentence with a control's words
// stay.
func TestArticleLeavesOutARowOfControls(t *testing.T) {
	body := strings.Repeat("The kiln fires at night so the glaze cools slowly by morning. ", 6)
	page := `<!doctype html><html><head><title>Studio - Example</title></head><body>` + pageHeader +
		`<main><article><h1>Our studio</h1><p>` + body + `</p><p class="ctas"><a href="/signup">Get started</a><a href="/sales">Contact sales</a>` +
		`<a href="/app"><svg><title>Arrow</title></svg></a><a class="btn-primary" href="/reserve">Reserve a kiln slot</a></p>` +
		`<p>` + body + `</p><p><a href="/glazes">Glazes</a> <a href="/clay">Clay bodies</a></p><p>` + body + `</p>` +
		`<p><a href="/signup">Get started</a> or <a href="/sales">talk to sales</a></p><p>` + body + `</p>` +
		`<p>New to the wheel? <a href="/learn">Learn more</a> about our classes.</p><p>` + body + `</p>` +
		`<p><a href="/kilns/k2"><img src="/k2.jpg" alt="The K2 kiln"></a><a href="/kilns/k2">View details</a><a class="btn" href="/cart">Add to cart</a></p></article></main>` +
		pageFooter + `</body></html>`
	md := article(t, page)
	checkHolds(t, md, []string{"[Glazes](https://example.com/glazes) [Clay bodies](https://example.com/clay)", "[Get started](https://example.com/signup) or [talk to sales]", "[Learn more](https://example.com/learn) about our classes",
		"![The K2 kiln](https://example.com/k2.jpg)"},
		[]string{"Contact sales", "Reserve a kiln slot"})
}
