package markdown

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// productCards is a grid of n products: a picture, a linked name and a
// price, in cells numbered the way grid frameworks number them.
func productCards(n int) string {
	var sb strings.Builder
	sb.WriteString(`<ul class="grid">`)
	for i := range n {
		fmt.Fprintf(&sb, `<li class="cell order-%d"><a href="/p/%d"><img src="/img/%d.jpg" alt=""></a>`+
			`<a href="/p/%d">Walnut side table model %d</a><span class="price">$%d.00</span></li>`, i, i, i, i, i, 90+i)
	}
	sb.WriteString(`</ul>`)
	return sb.String()
}

// shopCards is a shop's grid of n items as a common shop plugin writes
// it: the categories an item is filed under (rel="tag"), its linked name,
// a line of summary, a sale price shown struck through beside the new one
// (each spoken in words to screen readers) and an "Add to cart" link drawn
// as a button beside a box for the quantity.
func shopCards(n int) string {
	var sb strings.Builder
	sb.WriteString(`<ul class="products columns-4">`)
	for i := range n {
		fmt.Fprintf(&sb, `<li class="product type-product post-%d"><div class="product-block">`+
			`<a href="/product/%d/"><img src="/img/%d.jpg" alt="Camping item number %d"></a><span class="onsale">-30%%</span>`+
			`<div class="product-caption"><div class="posted-in"><a href="/c/camping-accessories/" rel="tag">Camping Accessories</a> / `+
			`<a href="/c/on-sale/" rel="tag">On Sale</a> / <a href="/c/outdoor-gear/" rel="tag">Outdoor Gear</a></div>`+
			`<h3 class="woocommerce-loop-product__title"><a href="/product/%d/">Camping item number %d</a></h3>`+
			`<div class="short-description">Folds flat for the trip, item %d…</div>`+
			`<span class="price"><del aria-hidden="true">$%d.00</del> <span class="screen-reader-text">Original price was: $%d.00.</span>`+
			`<ins aria-hidden="true">$%d.50</ins><span class="screen-reader-text">Current price is: $%d.50.</span></span>`+
			`<div class="quantity_cart"><label>Qty:</label><input type="number" value="1">`+
			`<a href="?add-to-cart=%d" class="button add_to_cart_button" rel="nofollow">Add to cart</a></div></div></div></li>`,
			i, i, i, i, i, i, i, 100+i, 100+i, 70+i, 70+i, i)
	}
	sb.WriteString(`</ul>`)
	return sb.String()
}

// storyRows is an index of n stories: a linked headline, a date and a
// count of comments in each row of a table.
func storyRows(n int) string {
	var sb strings.Builder
	sb.WriteString(`<table><tbody>`)
	for i := range n {
		fmt.Fprintf(&sb, `<tr><td><a href="/s/%d">Council votes on the new harbour bridge, part %d</a></td>`+
			`<td>3 March</td><td>%d comments</td></tr>`, i, i, 10+i)
	}
	sb.WriteString(`</tbody></table>`)
	return sb.String()
}

// heroCopy is a long paragraph of marketing prose above a grid, longer
// than any one card and than what Readability needs to pick it.
const heroCopy = `<div class="hero"><p>Our side tables are made by hand in a small workshop from walnut grown within fifty miles,
finished with oil and wax so that the grain shows and the surface resists a wet glass. Every piece is signed by the
maker who built it, and every joint is cut and fitted by hand without screws or metal brackets.</p>
<p>Delivery is free within the country and each table arrives assembled, wrapped in blankets rather than plastic.</p></div>`

func TestCardGroupsFindGridsByTheirShape(t *testing.T) {
	for _, tc := range []struct {
		name  string
		body  string
		cards []int // the number of cards in each grid found, in order
	}{
		{"a grid of products with pictures and prices is one grid", productCards(8), []int{8}},
		{"the rows of an index, each a linked headline with counts, are one grid", storyRows(6), []int{6}},
		{"three products are too few to make a grid", productCards(3), nil},
		{"products with swatches linking to each colour are still cards",
			strings.Repeat(`<div class="card"><a href="/p/1"><h3>Oak bookcase, tall</h3>$120.00</a>`+
				`<a href="/p/1-white"><img src="/w.jpg" alt=""></a><a href="/p/1-black"><img src="/b.jpg" alt=""></a>`+
				`<a href="/p/1-oak"></a><a href="/p/1-grey"></a></div>`, 5), []int{5}},
		{"posts whose classes name each post and its category, each one link around a heading and a count, are one grid",
			`<div class="carousel">` +
				`<article class="cell post-1201 category-soup"><a href="/r/1"><h3>Roasted tomato soup</h3>12 reviews</a></article>` +
				`<article class="cell post-1388 category-salad"><a href="/r/2"><h3>Crunchy rice salad</h3>8 reviews</a></article>` +
				`<article class="cell post-1407 category-soup"><a href="/r/3"><h3>Green pea and mint soup</h3>31 reviews</a></article>` +
				`<article class="cell post-1533 category-bread"><a href="/r/4"><h3>Seeded rye loaf</h3>4 reviews</a></article>` +
				`</div>`, []int{4}},
		{"shop items filed under categories, each with a button drawn as a link, are still cards",
			shopCards(5), []int{5}},
		{"blocks each leading to four places by named links are not cards",
			strings.Repeat(`<div class="box"><h3><a href="/a">Oak bookcase, tall</a></h3><a href="/b">Bookcases</a> `+
				`<a href="/c">Living room</a> <a href="/d">Oak furniture</a></div>`, 5), nil},
		{"a menu of one-word links is not a grid",
			`<ul><li><a href="/a">Tables</a></li><li><a href="/b">Chairs</a></li><li><a href="/c">Lamps</a></li>` +
				`<li><a href="/d">Rugs</a></li><li><a href="/e">Beds</a></li></ul>`, nil},
		{"a list of linked titles with nothing beside them is a menu, not a grid",
			`<ul><li><a href="/a">Garden tables and benches</a></li><li><a href="/b">Dining chairs and stools</a></li>` +
				`<li><a href="/c">Floor and desk lamps</a></li><li><a href="/d">Rugs for every room</a></li></ul>`, nil},
		{"the columns of a mega-menu, each many links, are not cards",
			`<div>` + strings.Repeat(`<section class="col"><p>Living room</p><a href="/a">Sofa beds</a> <a href="/b">Armchairs sale</a>`+
				`<a href="/c">Coffee tables</a> <a href="/d">TV stands</a></section>`, 5) + `</div>`, nil},
		{"a grid inside the site's navigation is a mega-menu", `<nav>` + productCards(8) + `</nav>`, nil},
		{"sections of long prose are posts, not cards",
			strings.Repeat(`<div class="post"><h2><a href="/x">A heading of a post</a></h2><p>`+strings.Repeat("Prose of the post. ", 100)+`</p></div>`, 5), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := parse(t, `<!doctype html><html><body>`+tc.body+`</body></html>`).Nodes[0]
			body := findFirst(root, func(n *html.Node) bool { return n.DataAtom == atom.Body })
			var got []int
			for _, g := range cardGroups(body) {
				got = append(got, len(g.cards))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.cards) {
				t.Errorf("grids of %v cards, want %v", got, tc.cards)
			}
		})
	}
}

func TestAShopsGridKeepsEachItemsNameSummaryAndPrice(t *testing.T) {
	md := article(t, `<!doctype html><html><head><title>On sale - Example</title></head><body>`+pageHeader+
		`<main><h1>On sale</h1>`+shopCards(18)+`</main>`+pageFooter+`</body></html>`)
	var want []string
	for i := range 18 {
		want = append(want, fmt.Sprintf("Camping item number %d]", i), fmt.Sprintf("item %d…", i), fmt.Sprintf("~~$%d.00~~ $%d.50", 100+i, 70+i))
	}
	checkHolds(t, md, want, []string{"Original price was", "Add to cart"})
}

func TestArticleKeepsTheGridAProseBlockWouldHide(t *testing.T) {
	related := `<section class="more"><h2>More from the shop</h2>` + productCards(60) + `</section>`
	story := `<p>` + strings.Repeat("The workshop moved to the old mill this spring, and the makers tell how the move went. ", 12) + `</p>`
	archive := `<div class="archive">` + strings.Repeat(`<ul class="month">`+
		`<li><a href="/s/1">Notes from the spring fair in town</a> - 3 May</li><li><a href="/s/2">How we season walnut boards</a> - 9 May</li>`+
		`<li><a href="/s/3">A visit to the timber yard up north</a> - 14 May</li><li><a href="/s/4">Oil or wax for a dining table</a> - 20 May</li>`+
		`</ul>`, 6) + `</div>`
	for _, tc := range []struct {
		name     string
		page     string
		want     []string
		unwanted []string
	}{
		{
			name: "a category page keeps its products beside a long banner",
			page: `<!doctype html><html><head><title>Side tables - Example</title></head><body>` + pageHeader +
				`<main><h1>Side tables</h1>` + heroCopy + productCards(24) + `</main>` + pageFooter + `</body></html>`,
			want: []string{"made by hand", "Walnut side table model 0", "Walnut side table model 23", "$113.00"},
		},
		{
			name: "a page that declares nothing keeps a grid a third longer than the text beside it",
			page: `<!doctype html><html><head><title>Side tables - Example</title></head><body>` + pageHeader +
				`<main><h1>Side tables</h1>` + heroCopy + heroCopy + productCards(34) + `</main>` + pageFooter + `</body></html>`,
			want: []string{"made by hand", "Walnut side table model 0", "Walnut side table model 33"},
		},
		{
			name: "a page that declares nothing keeps its text alone beside a grid shorter than the text",
			page: `<!doctype html><html><head><title>Side tables - Example</title></head><body>` + pageHeader +
				`<main><h1>Side tables</h1>` + heroCopy + heroCopy + productCards(24) + `</main>` + pageFooter + `</body></html>`,
			want:     []string{"made by hand"},
			unwanted: []string{"Walnut side table model 0"},
		},
		{
			name: "a category page its template calls an article, with no article's date, keeps its grid",
			page: `<!doctype html><html><head><title>Side tables - Example</title><meta property="og:type" content="article"></head><body>` +
				pageHeader + `<main><h1>Side tables</h1>` + heroCopy + productCards(24) + `</main>` + pageFooter + `</body></html>`,
			want: []string{"made by hand", "Walnut side table model 0", "Walnut side table model 23"},
		},
		{
			name: "a page that declares a collection keeps its grid beside a longer text about the range",
			page: `<!doctype html><html><head><title>Side tables - Example</title>` +
				`<script type="application/ld+json">{"@context":"https://schema.org","@type":"CollectionPage","name":"Side tables"}</script>` +
				`</head><body>` + pageHeader + `<main><h1>Side tables</h1>` + heroCopy + heroCopy + productCards(20) + `</main>` +
				pageFooter + `</body></html>`,
			want: []string{"made by hand", "Walnut side table model 0", "Walnut side table model 19"},
		},
		{
			name: "an index keeps the headline of every row",
			page: `<!doctype html><html><head><title>Local news - Example</title></head><body>` + pageHeader +
				`<div class="content"><h1>Local news</h1><p>` + strings.Repeat("Every story from the town and the harbour, as it happens. ", 6) +
				`</p>` + storyRows(10) + `</div>` + pageFooter + `</body></html>`,
			want: []string{"harbour bridge, part 0", "harbour bridge, part 9", "19 comments"},
		},
		{
			name: "a declared story keeps its text alone when a long grid of related products follows it",
			page: `<!doctype html><html><head><title>The move - Example</title><meta property="og:type" content="article">` +
				`<meta property="article:published_time" content="2024-05-03T09:00:00Z"></head><body>` +
				pageHeader + `<main><article><h1>The move</h1>` + story + `</article>` + related + `</main>` + pageFooter + `</body></html>`,
			want:     []string{"old mill"},
			unwanted: []string{"Walnut side table model"},
		},
		{
			name: "a post beside an archive of many short lists keeps its text alone",
			page: `<!doctype html><html><head><title>The move - Example</title></head><body>` + pageHeader +
				`<div class="page"><div class="entry"><h1>The move</h1>` + story + `</div>` + archive + `</div>` + pageFooter + `</body></html>`,
			want:     []string{"old mill"},
			unwanted: []string{"timber yard"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestMainRegionWeighsMainAgainstThePageWithoutItsChrome(t *testing.T) {
	locator := `<footer><h2>Find a store</h2><ul>` + strings.Repeat(`<li><p>Example Store, 12 High Street, Springfield. `+
		`Open Monday to Saturday from nine to six, Sunday from ten to four.</p></li>`, 60) + `</ul></footer>`
	megaMenu := `<header><nav>` + strings.Repeat(`<div><p>Shop by room and by style, from the living room to the garden.</p>`+
		`<a href="/a">Sofas</a> <a href="/b">Tables</a></div>`, 100) + `</nav></header>`
	sidebar := `<div class="col"><p>` + strings.Repeat("A column of text beside the content that is not marked as chrome. ", 60) + `</p></div>`
	content := `<main><h1>Side tables</h1>` + heroCopy + productCards(24) + `</main>`
	for _, tc := range []struct {
		name     string
		body     string
		wantMain bool
	}{
		{"a main outweighed by a store locator in the footer is the region", content + locator, true},
		{"a main outweighed by a mega-menu in the header is the region", megaMenu + content, true},
		{"a main outweighed by unmarked text beside it is not", `<div>` + content + sidebar + sidebar + `</div>`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := parse(t, `<!doctype html><html><body>`+tc.body+`</body></html>`).Nodes[0]
			region := mainRegion(root, textLengths(root))
			if got := region != nil && region.DataAtom == atom.Main; got != tc.wantMain {
				t.Errorf("the region is <%s>, want <main>: %v", region.Data, tc.wantMain)
			}
		})
	}
}
