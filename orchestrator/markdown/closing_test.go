package markdown

import (
	"fmt"
	"strings"
	"testing"
)

func TestACategorysDescriptionUnderItsGridIsContent(t *testing.T) {
	guide := `<div class="category-description"><h2>How to choose a side table</h2>` +
		`<p>A side table stands beside a sofa or a bed and holds a lamp, a book and a cup, so its height matters more than its width: ` +
		`the top should sit level with the arm of the sofa, or an inch or two below it, so that a cup can be put down without looking.</p>` +
		`<h2>Which wood lasts longest?</h2>` +
		`<p>Walnut and oak both last for generations when they are oiled once a year. Walnut is softer and darker and takes a dent more ` +
		`easily; oak is pale, hard and heavy, and its open grain hides the marks a family leaves on a table that is used every day.</p>` +
		`<p>Every table in this range is made to order, so allow three weeks for it to reach you.</p></div>`
	page := func(inMain, afterMain, footer string) string {
		return `<!doctype html><html><head><title>Side tables - Example</title></head><body>` + pageHeader +
			`<main><h1>Side tables</h1>` + inMain + productCards(24) + `</main>` + afterMain + footer + `</body></html>`
	}
	newsletter := `<div class="signup"><h2>Join our list</h2><p>Get ten per cent off your first order and hear about new tables ` +
		`before anyone else does, once a month and never more often than that.</p>` +
		`<p>We never share your address, and every letter has a link to leave the list.</p></div>`
	var moreLinks strings.Builder
	moreLinks.WriteString(`<div class="popular"><h2>Popular searches</h2><p>`)
	for i := range 20 {
		fmt.Fprintf(&moreLinks, `<a href="/s/%d">oak side table with drawer %d</a> `, i, i)
	}
	moreLinks.WriteString(`</p></div>`)
	for _, tc := range []struct {
		name     string
		page     string
		want     []string
		unwanted []string
	}{
		{
			name: "a buying guide after <main> follows the grid",
			page: page("", guide, pageFooter),
			want: []string{"Walnut side table model 23", "## How to choose a side table", "its height matters more", "## Which wood lasts longest?",
				"its open grain hides"},
		},
		{
			name:     "a guide in a wrapper that also holds the footer is read up to the footer",
			page:     page("", `<div class="page-bottom">`+guide+pageFooter+`<p>`+strings.Repeat("Text after the footer is no description. ", 3)+`</p></div>`, ""),
			want:     []string{"Walnut side table model 23", "its height matters more"},
			unwanted: []string{"Copyright Example Site", "Text after the footer"},
		},
		{
			name:     "prose after the footer is not the page's",
			page:     page("", "", pageFooter+guide),
			want:     []string{"Walnut side table model 23"},
			unwanted: []string{"its height matters more"},
		},
		{
			name:     "a box asking the reader to sign up is not a description",
			page:     page("", newsletter, pageFooter),
			want:     []string{"Walnut side table model 23"},
			unwanted: []string{"Join our list", "ten per cent off"},
		},
		{
			name:     "a paragraph of links is not a description",
			page:     page("", moreLinks.String(), pageFooter),
			want:     []string{"Walnut side table model 23"},
			unwanted: []string{"Popular searches", "oak side table with drawer"},
		},
		{
			name:     "a guide in an aside stays out",
			page:     page("", `<aside>`+guide+`</aside>`, pageFooter),
			want:     []string{"Walnut side table model 23"},
			unwanted: []string{"its height matters more"},
		},
		{
			name: "a declared story keeps its text alone",
			page: `<!doctype html><html><head><title>The move - Example</title><meta property="og:type" content="article">` +
				`<meta property="article:published_time" content="2024-05-03T09:00:00Z"></head><body>` + pageHeader +
				`<main><article><h1>The move</h1><p>` + strings.Repeat("The workshop moved to the old mill this spring, and the makers tell how the move went. ", 12) +
				`</p></article></main>` + guide + pageFooter + `</body></html>`,
			want:     []string{"old mill"},
			unwanted: []string{"its height matters more"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkHolds(t, article(t, tc.page), tc.want, tc.unwanted)
		})
	}
}

func TestClosingProseIsParagraphsNotCards(t *testing.T) {
	paragraph := `<p>` + strings.Repeat("Walnut and oak both last for generations when they are oiled once a year. ", 4) + `</p>`
	var cards strings.Builder
	cards.WriteString(`<section><h2>From the same workshop</h2><ul>`)
	for i := range 12 {
		fmt.Fprintf(&cards, `<li><a href="/p/%d"><img src="/img/%d.jpg" alt=""></a><h3>Oak bedside cabinet %d</h3>`+
			`<span>Made to order in the workshop</span><span>$%d.00</span><span>In stock (%d units)</span></li>`, i, i, i, 150+i, 10+i)
	}
	cards.WriteString(`</ul></section>`)
	for _, tc := range []struct {
		name  string
		after string
		want  int // blocks found
	}{
		{"three paragraphs under a heading", `<div><h2>How to choose</h2>` + paragraph + paragraph + paragraph + `</div>`, 1},
		{"paragraphs in boxes of their own", `<div>` + paragraph + `</div><div>` + paragraph + `</div><div>` + paragraph + `</div>`, 3},
		{"a grid of cards whose names are not links", cards.String(), 0},
		{"two paragraphs, too little to describe a category", `<div>` + paragraph + paragraph + `</div>`, 0},
		{"paragraphs after a footer", `<footer><p>Copyright</p></footer><div>` + paragraph + paragraph + paragraph + `</div>`, 0},
		{"paragraphs in a form", `<form>` + paragraph + paragraph + paragraph + `</form>`, 0},
		{"more boxes than a description has", strings.Repeat(`<div>`+paragraph+`</div>`, maxClosingBlocks+1), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := parse(t, `<!doctype html><html><body><main>`+productCards(24)+`</main>`+tc.after+`</body></html>`).Nodes[0]
			main, blocks := closingProse(root)
			if main == nil || main.Data != "main" {
				t.Fatalf("closingProse found no <main>")
			}
			if len(blocks) != tc.want {
				t.Errorf("closingProse found %d blocks, want %d", len(blocks), tc.want)
			}
		})
	}
}
