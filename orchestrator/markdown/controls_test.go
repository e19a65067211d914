package markdown

import (
	"strings"
	"testing"
)

func TestArticleLeavesOutAListingsControls(t *testing.T) {
	for _, tc := range []struct {
		name           string
		page           string
		want, unwanted []string
	}{
		{
			name: "a category page loses its count, its sort label and its filters label, and keeps its grid",
			page: `<!doctype html><html><head><title>Side tables - Example</title></head><body>` + pageHeader +
				`<main><h1>Side tables</h1><p>Showing 24 of 133 results</p><div class="bar"><h2>Sort By:</h2><span>Filters</span></div>` +
				productCards(12) + `</main>` + pageFooter + `</body></html>`,
			want:     []string{"Walnut side table model 0", "Walnut side table model 11"},
			unwanted: []string{"Showing 24", "133 results", "Sort By", "Filters"},
		},
		{
			name: "a category page's combined filter and sort buttons and its view options go",
			page: `<!doctype html><html><head><title>Side tables - Example</title></head><body>` + pageHeader +
				`<main><h1>Side tables</h1><div class="bar"><div><span>Filter &amp; Sort</span></div><div><span>Sort options</span></div><div><span>View Options</span></div></div>` +
				productCards(12) + `</main>` + pageFooter + `</body></html>`,
			want:     []string{"Walnut side table model 0", "Walnut side table model 11"},
			unwanted: []string{"Filter &", "Sort options", "View Options"},
		},
		{
			name: "a category page's sort line with the order chosen goes, and its count in brackets",
			page: `<!doctype html><html><head><title>Side tables - Example</title></head><body>` + pageHeader +
				`<main><h1>Side tables</h1><p>Products (133)</p><div class="bar"><p><span>Sort:</span> <span class="current">Best Match</span></p><div>Sort by: Price: Low to High</div></div>` +
				productCards(12) + `</main>` + pageFooter + `</body></html>`,
			want:     []string{"Walnut side table model 0", "Walnut side table model 11"},
			unwanted: []string{"Best Match", "Low to High", "Products (133)"},
		},
		{
			name: "a guide keeps a line on how its picks are sorted",
			page: `<!doctype html><html><head><title>Brewing - Example</title><meta property="og:type" content="article"></head><body>` + pageHeader +
				`<main><article><h1>Brewing by hand</h1><p>` + strings.Repeat("A pour-over brews one cup at a time from freshly ground beans. ", 5) + `</p>` +
				`<p>Sorted by price: low to high</p><p>` + strings.Repeat("Paper filters give a clean cup; metal ones let the oils through. ", 4) + `</p></article></main>` + pageFooter + `</body></html>`,
			want: []string{"Sorted by price: low to high"},
		},
		{
			name: "a category page's card badges go, its items stay",
			page: `<!doctype html><html><head><title>Side tables - Example</title></head><body>` + pageHeader +
				`<main><h1>Side tables</h1>` + strings.Replace(strings.Replace(productCards(12), `<li class="cell order-2">`, `<li class="cell order-2"><div class="badge">Best Seller</div>`, 1),
				`<li class="cell order-5">`, `<li class="cell order-5"><p>New arrival</p>`, 1) + `</main>` + pageFooter + `</body></html>`,
			want:     []string{"Walnut side table model 2", "Walnut side table model 5"},
			unwanted: []string{"Best Seller", "New arrival"},
		},
		{
			name: "a guide keeps a section named Filters, and a sentence that counts",
			page: `<!doctype html><html><head><title>Brewing - Example</title><meta property="og:type" content="article"></head><body>` + pageHeader +
				`<main><article><h1>Brewing by hand</h1><p>` + strings.Repeat("A pour-over brews one cup at a time from freshly ground beans. ", 5) + `</p>` +
				`<h2>Filters</h2><p>` + strings.Repeat("Paper filters give a clean cup; metal ones let the oils through. ", 4) + `</p>` +
				`<p>We tested 12 items over a month.</p><h3>New</h3><p>` + strings.Repeat("The new grinder holds its setting between cups. ", 3) + `</p></article></main>` + pageFooter + `</body></html>`,
			want: []string{"## Filters", "clean cup", "We tested 12 items over a month.", "### New"},
		},
		{
			name: "a listing's code keeps every word, a control's name among them",
			page: `<!doctype html><html><head><title>Recipes - Example</title>` +
				`<script type="application/ld+json">{"@type":"ItemList"}</script></head><body>` + pageHeader +
				`<main><h1>Query recipes</h1><pre><code><span>qs</span><span>.</span><span>filter</span><span>(</span><span>name</span><span>=</span><span>"x"</span><span>)</span></code></pre>` +
				productCards(12) + `</main>` + pageFooter + `</body></html>`,
			want: []string{`qs.filter(name="x")`, "Walnut side table model 3"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

// TestAButtonInsideASentenceIsWords keeps the words of buttons a page sets
// inside a line of text, as a link's are kept, in the content it extracts
// and in a conversion of the page as it is; a button alone in its box is
// a control and goes.
func TestAButtonInsideASentenceIsWords(t *testing.T) {
	story := `<p>` + strings.Repeat("The cream sank into the skin within a minute and left no shine on the cheeks. ", 8) + `</p>`
	for _, tc := range []struct {
		name     string
		body     string
		want     []string
		unwanted []string
	}{
		{"words to click in a paragraph", `<p>Highly rated by customers for: <button type="button">satisfaction</button>, <button type="button">texture</button>, <button type="button">results</button></p>`,
			[]string{"for: satisfaction, texture, results"}, nil},
		{"a word to click in a list item", `<ul><li>Sizes: <button>30 mL</button> or <button>50 mL</button></li><li>Free returns</li></ul>`,
			[]string{"Sizes: 30 mL or 50 mL"}, nil},
		{"a control alone in its box", `<div><button type="button">Add to basket</button></div><p><button>Share</button></p>`,
			nil, []string{"Add to basket", "Share"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkStoryAndBody(t, "The cream", story, tc.body, tc.want, tc.unwanted)
		})
	}
}

// TestAButtonThatIsAllItsHeadingSaysIsItsTitle keeps the label of an
// accordion's toggle set in its heading, the section's title (WAI-ARIA's
// pattern, with or without a panel it names), and still drops a control
// beside a heading's own words.
func TestAButtonThatIsAllItsHeadingSaysIsItsTitle(t *testing.T) {
	story := `<p>` + strings.Repeat("The course runs for fourteen weeks, with a live session and a project every week. ", 8) + `</p>`
	answer := `<div><p>Editors, engineers and sales people who lead products, or want to, in a newsroom of any size.</p></div>`
	for _, tc := range []struct {
		name     string
		body     string
		want     []string
		unwanted []string
	}{
		{"a toggle in a heading", `<h3><button aria-expanded="true">Who is this program for?</button></h3>` + answer,
			[]string{"Who is this program for?", "Editors, engineers"}, nil},
		{"a toggle wrapped in spans in an element whose role is a heading", `<p role="heading" aria-level="3"><button aria-expanded="false">` +
			`<span class="title">Who is this program for?</span><span class="icon"></span></button></p>` + answer,
			[]string{"Who is this program for?", "Editors, engineers"}, nil},
		{"a control beside a heading's words", `<h2>Crate tokio <button>Copy item path</button></h2>` + answer,
			[]string{"Crate tokio", "Editors, engineers"}, []string{"Copy item path"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkStoryAndBody(t, "The course", story, tc.body, tc.want, tc.unwanted)
		})
	}
}

// TestAnIconFontsGlyphNameIsNoWord drops the name an icon font draws as
// its glyph ("chevron_right" in Material's icons), and keeps a word set
// in an icon's box that is no glyph's name, and a name of code in
// emphasis.
func TestAnIconFontsGlyphNameIsNoWord(t *testing.T) {
	story := `<p>` + strings.Repeat("The parser reads each value once and keeps the order of the keys it finds. ", 8) + `</p>`
	for _, tc := range []struct {
		name     string
		body     string
		want     []string
		unwanted []string
	}{
		{"a chevron after a question", `<p>Can the parser keep the order? <i class="material-icons">chevron_right</i></p>`,
			[]string{"Can the parser keep the order?"}, []string{"chevron_right"}},
		{"an outlined symbol before a label", `<p><span class="material-symbols-outlined" aria-hidden="true">local_offer</span> On sale</p>`,
			[]string{"On sale"}, []string{"local_offer"}},
		{"a name of code in emphasis", `<p>Pass <em>object_pairs_hook</em> to keep the order.</p>`,
			[]string{"object_pairs_hook"}, nil},
		{"a word in an icon's box", `<p><span class="icon">New</span> releases every week</p>`,
			[]string{"New"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkStoryAndBody(t, "The parser", story, tc.body, tc.want, tc.unwanted)
		})
	}
}

// checkStoryAndBody checks want and unwanted in the content extracted
// from an article titled title that sets body between two copies of
// story, and in a conversion of body as it is.
func checkStoryAndBody(t *testing.T, title, story, body string, want, unwanted []string) {
	t.Helper()
	md := article(t, `<html><head><title>`+title+`</title></head><body><article><h1>`+title+`</h1>`+story+body+story+`</article></body></html>`)
	checkHolds(t, md, want, unwanted)
	checkHolds(t, convertBody(t, body), want, unwanted)
}

// TestATooltipsDescriptionIsNotInTheText drops what an element whose
// role is tooltip says (a glossary's definition inside a sentence, a
// badge's explanation with its link), and keeps an element given the
// role that is a control: a link that opens a card, a button.
func TestATooltipsDescriptionIsNotInTheText(t *testing.T) {
	story := `<p>` + strings.Repeat("Search engines now answer many questions on the results page itself. ", 8) + `</p>`
	for _, tc := range []struct {
		name     string
		body     string
		want     []string
		unwanted []string
	}{
		{"a definition inside a sentence", `<p>Every <dfn aria-describedby="tip-1">keyword</dfn><span id="tip-1" role="tooltip"><strong>Keyword</strong><br>` +
			`What users type into a search engine to find something.</span> still counts.</p>`,
			[]string{"Every keyword still counts."}, []string{"What users type", "Keyword"}},
		{"a badge's explanation with a link", `<p>Star Seller</p><div role="tooltip"><p>Star Sellers shipped on time and replied quickly to messages.</p>` +
			`<p><a href="/help/star">Learn more</a></p></div>`,
			[]string{"Star Seller"}, []string{"shipped on time", "Learn more"}},
		{"the role on a link that opens a card", `<p>Written with <span role="tooltip"><a href="/team">the Platform Team</a></span> over a year.</p>`,
			[]string{"Written with [the Platform Team](https://example.com/team) over a year."}, nil},
		{"the role on a box with a button", `<p>Written with the team.</p><div role="tooltip"><p>Maria Lopez, editor</p><button>Follow</button></div>`,
			[]string{"Maria Lopez, editor"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkStoryAndBody(t, "Search results", story, tc.body, tc.want, tc.unwanted)
		})
	}
}

// TestAComponentsShadowTreeIsWhatItShows converts a component whose
// shadow tree comes with the page (declarative shadow DOM, and a rendered
// page's open shadow roots as glimpse reads them) as the browser shows
// it: the tree in place of the host's children, each child where its
// slot is, a slot's own text when nothing fills it, and children no slot
// takes left out.
func TestAComponentsShadowTreeIsWhatItShows(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
		unwanted   []string
	}{
		{"slots by name and the default slot",
			`<kiln-card><template shadowrootmode="open"><h2>The kiln</h2><p>It fires <slot></slot> every night.</p>` +
				`<div><slot name="note">No note.</slot></div></template><b>slowly</b><span slot="note">Mind the shelves.</span></kiln-card>`,
			[]string{"## The kiln", "It fires **slowly** every night.", "Mind the shelves."}, []string{"No note."}},
		{"a slot's own text when nothing fills it",
			`<kiln-card><template shadowrootmode="open"><p>It fires <slot name="when">at night</slot>.</p></template></kiln-card>`,
			[]string{"It fires at night."}, nil},
		{"a tree inside a tree, and a child no slot takes",
			`<outer-card><template shadowrootmode="open"><inner-card><template shadowrootmode="closed"><p>The glaze is <slot></slot>.</p>` +
				`</template><em><slot name="colour"></slot></em></inner-card></template><span slot="colour">celadon</span><span>hidden away</span></outer-card>`,
			[]string{"The glaze is *celadon*."}, []string{"hidden away"}},
		{"a template that is no shadow tree stays out",
			`<p>Shown.</p><template><p>A row to clone.</p></template>`, []string{"Shown."}, []string{"A row to clone."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkHolds(t, convertBody(t, tc.body), tc.want, tc.unwanted)
			story := `<p>` + strings.Repeat("The kiln fires at night so the glaze cools slowly by morning. ", 8) + `</p>`
			md := article(t, `<html><head><title>Kilns</title></head><body><article><h1>Kilns</h1>`+story+tc.body+story+`</article></body></html>`)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}
