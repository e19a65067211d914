package markdown

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// productPage is the page of one kettle in a made-up shop: the product's
// name, price and buying form, its description and specifications, then
// what a shop puts around them: shoppers' reviews, a carousel of other
// products and a newsletter box. declare is markup for the head (JSON-LD,
// og:type) and item the attributes of the product's box (microdata).
func productPage(declare, item string, others int) string {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Stovetop Kettle 1.7 l - Example Shop</title>` + declare + `</head><body>` +
		pageHeader + `<main><div class="product"` + item + `><h1>Stovetop Kettle 1.7 l</h1>
<div class="price-box"><span class="price">$49.00</span> <s>$59.00</s></div>
<ul class="currencies"><li>EUR 45,10</li><li>GBP 38.90</li><li>AUD 75.20</li></ul>
<form action="/basket/add"><label>Quantity</label><input name="q"><button>Add to cart</button></form>
<div class="description"><h2>Description</h2><p>A kettle of brushed steel that boils a litre and a half on gas, electric and
induction hobs, with a whistle that sounds when the water boils and a handle that stays cool.</p>
<p>The spout opens with a thumb lever, so it pours without a cloth, and the base is thick enough to spread the heat evenly.</p></div>
<h2>Specifications</h2><table><tr><th>Capacity</th><td>1.7 litres</td></tr><tr><th>Weight</th><td>1.1 kg</td></tr>
<tr><th>Hobs</th><td>gas, electric, induction</td></tr></table></div>
<section id="reviews"><h2>Customer reviews</h2>
<div class="review-item"><p>Bought it for the camper van, the whistle wakes the whole campsite.</p></div>
<div class="review-item"><p>Heavier than it looks, but it has lasted three winters already.</p></div></section>`)
	if others > 0 {
		sb.WriteString(`<section><h2>You may also like</h2><ul class="carousel">`)
		for i := range others {
			fmt.Fprintf(&sb, `<li><a href="/p/%d"><img src="/i/%d.jpg" alt="">Teapot model %d</a> <span>$%d.00</span></li>`, i, i, i, 20+i)
		}
		sb.WriteString(`</ul></section>`)
	}
	sb.WriteString(`</main>` + pageFooter + `</body></html>`)
	return sb.String()
}

const productLD = `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Stovetop Kettle"}</script>`

func TestArticleKeepsTheProductAndNotWhatSellsIt(t *testing.T) {
	description := []string{"boils a litre and a half", "thumb lever", "| Capacity | 1.7 litres |"}
	selling := []string{"$49.00", "EUR 45,10", "whistle wakes", "three winters", "Teapot model 2", "$21.00"}
	for _, tc := range []struct {
		name     string
		page     string
		want     []string
		unwanted []string
	}{
		{"a page declaring a Product in JSON-LD keeps the description and the specifications, without price, reviews or other products",
			productPage(productLD, "", 5), description, selling},
		{"a Product in a JSON-LD graph declares it too",
			productPage(`<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebPage"},{"@type":["Product","Thing"]}]}</script>`, "", 5),
			description, selling},
		{"a Product item of microdata declares it too",
			productPage("", ` itemscope itemtype="https://schema.org/Product"`, 5), description, selling},
		{"an og:type of product declares it too",
			productPage(`<meta property="og:type" content="product">`, "", 5), description, selling},
		{"a page declaring nothing but selling one product in its box is a product page",
			productPage("", "", 5), description, selling},
		{"a Product declared in JSON-LD inside a footer hidden from assistive technology declares it too",
			strings.Replace(strings.Replace(productPage("", "", 5), `action="/basket/add"`, `action="/search"`, 1),
				`</main>`, `</main><div aria-hidden="true"><div class="seo">`+productLD+`</div></div>`, 1), description, selling},
		{"as does one in a box hidden by its style",
			strings.Replace(strings.Replace(productPage("", "", 5), `action="/basket/add"`, `action="/search"`, 1),
				`</main>`, `</main><div style="display:none">`+productLD+`</div>`, 1), description, selling},
		{"a page declaring nothing without a buying form keeps what the shop puts around the product",
			strings.Replace(productPage("", "", 5), `action="/basket/add"`, `action="/search"`, 1), description, []string{}},
		{"a page declaring a product but listing many priced cards is a list, and keeps its prices",
			productPage(`<meta property="og:type" content="product">`, "", 20), append(description, "$49.00", "EUR 45,10"), []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestDeclaresProductReadsOnlyWhatThePageSaysItIs(t *testing.T) {
	for _, tc := range []struct {
		name, head, body string
		want             bool
	}{
		{"one JSON-LD Product", productLD, "", true},
		{"a ProductGroup with its variants", `<script type="application/ld+json">{"@type":"ProductGroup","hasVariant":[{"@type":"Product"},{"@type":"Product"}]}</script>`, "", true},
		{"a review of a product is an article about it",
			`<script type="application/ld+json">{"@type":"Review","itemReviewed":{"@type":"Product","name":"Kettle"}}</script>`, "", false},
		{"a list of products is not one product",
			`<script type="application/ld+json">{"@type":"ItemList","itemListElement":[{"@type":"Product"},{"@type":"Product"}]}</script>`, "", false},
		{"several JSON-LD Products are a list of them",
			productLD + productLD + productLD, "", false},
		{"an article that also declares a product it is about",
			`<script type="application/ld+json">[{"@type":"NewsArticle"},{"@type":"Product"}]</script>`, "", false},
		{"a Product item of microdata inside another item is a part of it",
			"", `<div itemscope itemtype="https://schema.org/Review"><div itemscope itemtype="https://schema.org/Product">Kettle</div></div>`, false},
		{"SomeProducts, a set of products, is no one product",
			`<script type="application/ld+json">{"@graph":[{"@type":"SomeProducts","name":"Rental shoes"}]}</script>`, "", false},
		{"a Product that carries only a rating is a site's stars, not a product",
			`<script type="application/ld+json">{"@type":"Product","name":"Pest Control Services","description":"Local exterminators.","aggregateRating":{"@type":"AggregateRating","ratingValue":"5","ratingCount":"12"}}</script>`, "", false},
		{"reviews alone, in a graph, are no product either",
			`<script type="application/ld+json">{"@graph":[{"@type":"WebPage"},{"@type":"Product","name":"Moving Company","review":[{"@type":"Review","author":"A. Customer"}]}]}</script>`, "", false},
		{"a rated Product with an offer is one",
			`<script type="application/ld+json">{"@type":"Product","name":"Kettle","offers":{"@type":"Offer","price":"35"},"aggregateRating":{"@type":"AggregateRating","ratingValue":"4.5"}}</script>`, "", true},
		{"a rated Product with a stock number is one",
			`<script type="application/ld+json">{"@type":"Product","name":"Kettle","sku":"K-12","aggregateRating":{"@type":"AggregateRating","ratingValue":"4.5"}}</script>`, "", true},
		{"a rated Product with a trade item number is one",
			`<script type="application/ld+json">{"@type":"Product","name":"Kettle","gtin13":"0123456789012","review":{"@type":"Review"}}</script>`, "", true},
		{"og:type product.item", `<meta property="og:type" content="product.item">`, "", true},
		{"og:type website", `<meta property="og:type" content="website">`, "", false},
		{"malformed JSON-LD declares nothing", `<script type="application/ld+json">{"@type":"Product",</script>`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, `<html><head>`+tc.head+`</head><body>`+tc.body+`<p>text</p></body></html>`)
			if got := declaresProduct(doc.Nodes[0]); got != tc.want {
				t.Errorf("declaresProduct = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestProductRulesTellPricesAndReviewsFromTheDescription(t *testing.T) {
	for _, tc := range []struct {
		name, block string
		price       bool
		reviews     bool
	}{
		{"a price alone", `<span>$49.00</span>`, true, false},
		{"a sale price and the former price", `<div>Sale price €45,10 Regular price €59,00</div>`, true, false},
		{"an amount with its currency code after it", `<p>549.56 AED</p>`, true, false},
		{"a sentence that mentions a price is a description", `<p>It costs $49.00 and boils a litre and a half on any hob.</p>`, false, false},
		{"the shipping terms", `<p>Free standard shipping on orders over $65</p>`, true, false},
		{"the terms of an instalment plan", `<div>or $91.58/mo. for 12 mo.</div>`, true, false},
		{"a discount and the former price", `<div>Was $212.01, now $190.80: save 10% off</div>`, true, false},
		{"a plan named by its heading keeps its terms", `<div><h3>Starter plan</h3><p>Starts at $15/mo per seat</p></div>`, false, false},
		{"a sentence about shipping is a description", `<p>Orders over $65 ship free and the kettle arrives boxed in recycled card.</p>`, false, false},
		{"a short sentence with a price and no terms of sale is a description", `<p>Add the kettle to your kitchen for $49</p>`, false, false},
		{"a block without an amount", `<p>Brushed steel</p>`, false, false},
		{"a block named for reviews", `<div class="product-reviews">Great kettle</div>`, false, true},
		{"a block named in one compound word", `<div id="productreviews">Great kettle</div>`, false, true},
		{"a review item of microdata", `<div itemprop="review">Great kettle</div>`, false, true},
		{"testimonials", `<section class="testimonials">Great kettle</section>`, false, true},
		{"a preview is not a review", `<div class="image-previews">Front view</div>`, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, `<html><body><main><h1>Kettle</h1>`+tc.block+`</main></body></html>`)
			block := findFirst(doc.Nodes[0], func(n *html.Node) bool {
				return n.Type == html.ElementNode && n.Parent != nil && n.Parent.DataAtom == atom.Main && n.DataAtom != atom.H1
			})
			if got := reviews(block); got != tc.reviews {
				t.Errorf("reviews = %v, want %v", got, tc.reviews)
			}
			main := block.Parent
			dropPrices(main, map[*html.Node]bool{})
			if gone := block.Parent == nil; gone != tc.price {
				t.Errorf("removed as a price tag: %v, want %v", gone, tc.price)
			}
		})
	}
}

func TestDialogsAreNotThePageUnlessTheyHoldIt(t *testing.T) {
	terms := strings.Repeat("<p>The seller may change these terms of sale at any time, and the buyer agrees to them by ordering.</p>", 40)
	for _, tc := range []struct {
		name     string
		page     string
		want     []string
		unwanted []string
	}{
		{"a long policy in a role=dialog box is left out",
			`<html><head><title>Kettle</title></head><body><main><h1>Kettle</h1><p>A kettle of brushed steel that boils a litre and a half on any hob, with a whistle.</p></main>` +
				`<footer><div role="dialog" id="terms"><h2>Terms of sale</h2>` + terms + `</div></footer></body></html>`,
			[]string{"brushed steel"}, []string{"terms of sale", "Terms of sale"}},
		{"a box marked aria-modal is left out, even with a first-rank heading of its own",
			`<html><head><title>Kettle</title></head><body><main><h1>Kettle</h1><p>A kettle of brushed steel that boils a litre and a half on any hob, with a whistle.</p></main>` +
				`<div aria-modal="true"><h1>Join our club</h1>` + terms + `</div></body></html>`,
			[]string{"brushed steel"}, []string{"terms of sale", "Join our club"}},
		{"a dialog that holds the page's main content is the page",
			`<html><head><title>Kettle</title></head><body><div role="dialog"><main><h1>Kettle</h1><p>A kettle of brushed steel that boils a litre and a half on any hob, with a whistle.</p></main></div></body></html>`,
			[]string{"brushed steel"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestSellsOneReadsTheBuyingFormBesideTheHeading(t *testing.T) {
	story := `<p>` + strings.Repeat("A long story about the history of kettles and the people who made them in the valley. ", 10) + `</p>`
	for _, tc := range []struct {
		name, body string
		want       bool
	}{
		{"a form adding to the cart in the product's box",
			`<header><a href="/">Shop</a></header><div class="box"><h1>Kettle</h1><form action="/cart/add"><label>Qty</label></form></div>` + story, true},
		{"a form named add-to-basket", `<div><h1>Kettle</h1><form id="add-to-basket"><label>Qty</label></form></div>` + story, true},
		{"a basket form in the site's header, far from the heading of a story",
			`<header><form action="/cart"><label>Basket</label></form></header><article><h1>Kettles</h1>` + story + `</article>`, false},
		{"a grid of products, each with its own form",
			`<h1>Kettles</h1>` + strings.Repeat(`<div><form action="/cart/add"><label>Kettle</label></form></div>`, 3) + story, false},
		{"a search form", `<div><h1>Kettle</h1><form action="/search"><label>Find</label></form></div>` + story, false},
		{"no heading", `<div><form action="/cart/add"><label>Qty</label></form></div>` + story, false},
		// The heading that names the product is the one the title names,
		// not a widget's set ahead of it.
		{"a widget's heading ahead of the product's name", `<div class="popover"><h1>Follow the author</h1></div>` +
			`<div class="box"><h1>Kettle of brushed steel</h1><form action="/cart/add"><label>Qty</label></form></div>` + story, true},
		// A shop that sets the product's box, its reviews and the other
		// products in one container that holds most of the page.
		{"one container for the product and all around it", `<div id="container"><div class="buy"><form id="addToCart" action="/cart/add"><label>Qty</label></form></div>` +
			`<div class="centre"><h1>Kettle of brushed steel</h1></div>` + story + `</div>`, true},
		{"one container, its basket form in the site's header", `<div id="container"><div class="site-header"><form id="addToCart" action="/cart/add"><label>Basket</label></form></div>` +
			`<div class="centre"><h1>Kettle of brushed steel</h1></div>` + story + `</div>`, false},
		{"one container, its heading not the one the title names", `<div id="container"><div class="buy"><form id="addToCart" action="/cart/add"><label>Qty</label></form></div>` +
			`<div class="centre"><h1>Kettles and their makers</h1></div>` + story + `</div>`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, `<html><head><title>Kettle of brushed steel, 1.5 l – The Kettle Shop</title></head><body>`+tc.body+`</body></html>`)
			if got := sellsOne(doc.Nodes[0]); got != tc.want {
				t.Errorf("sellsOne = %v, want %v", got, tc.want)
			}
		})
	}
}

// A box of other products under a heading that says so ("Customers also
// viewed") leaves a product page wherever it stands, above the
// description as well as after it, and with cards that scripts make
// clickable rather than links.
func TestRecommendedProductsLeaveFromAnywhereOnTheProductPage(t *testing.T) {
	var cards strings.Builder
	for i := range 5 {
		fmt.Fprintf(&cards, `<li class="snap-point"><div class="k3x"><img src="/i/%d.jpg" alt=""><h3>Enamel teapot in colour %d with a bamboo handle</h3><span>New</span> <span>$%d.00</span> <span>+ $4.00 delivery</span></div></li>`, i, i, 20+i)
	}
	page := `<!doctype html><html><head><title>Stovetop Kettle 1.7 l - Example Shop</title>` + productLD + `</head><body>` + pageHeader +
		`<main><div class="product"><h1>Stovetop Kettle 1.7 l</h1><div class="price-box"><span class="price">$49.00</span></div>
<section><h2>Customers who viewed this item also viewed</h2><ul class="list">` + cards.String() + `</ul></section>
<div class="description"><h2>Description</h2><p>A kettle of brushed steel that boils a litre and a half on gas, electric and
induction hobs, with a whistle that sounds when the water boils and a handle that stays cool.</p>
<p>The spout opens with a thumb lever, so it pours without a cloth, and the base is thick enough to spread the heat evenly.</p></div>
<h2>Specifications</h2><table><tr><th>Capacity</th><td>1.7 litres</td></tr><tr><th>Weight</th><td>1.1 kg</td></tr></table></div></main>` +
		pageFooter + `</body></html>`
	md := article(t, page)
	checkHolds(t, md, []string{"boils a litre and a half", "1.7 litres"},
		[]string{"also viewed", "Enamel teapot", "$4.00 delivery"})
}

// TestAProductsPageBeginsAtItsName drops what a shop lays out before the
// heading that names the product (a promotion, a notice of the currency,
// a store's line), keeping the gallery; a heading that does not name the
// product, or blocks before it that outweigh what follows, leave the page
// as it is.
func TestAProductsPageBeginsAtItsName(t *testing.T) {
	declare := `<script type="application/ld+json">{"@type":"Product","name":"Stovetop Kettle 1.7 l"}</script>`
	before := `<div class="promo"><p>Free delivery on every order over fifty dollars, this week only, while stocks last.</p></div>` +
		`<div class="notice"><p>You are now shopping in Australian dollars.</p></div>` +
		`<div class="gallery"><img src="/i/kettle-front.jpg" alt="The kettle from the front"><p>Front view</p></div>`
	page := strings.Replace(productPage(declare, "", 0), `<h1>Stovetop Kettle 1.7 l</h1>`, before+`<h1>Stovetop Kettle 1.7 l</h1>`, 1)
	checkHolds(t, article(t, page), []string{"kettle-front.jpg", "brushed steel"}, []string{"Free delivery", "Australian dollars"})

	other := strings.Replace(page, `<h1>Stovetop Kettle 1.7 l</h1>`, `<h1>Our kitchen range</h1>`, 1)
	checkHolds(t, article(t, other), []string{"Australian dollars", "brushed steel"}, nil)

	// A word the title holds ("Shop") is found in any title: no name.
	word := strings.Replace(page, `<h1>Stovetop Kettle 1.7 l</h1>`, `<h1>Shop</h1>`, 1)
	checkHolds(t, article(t, word), []string{"Australian dollars", "brushed steel"}, nil)

	story := strings.Repeat("<p>Our founder forged the first kettle in a shed behind the house, and every one since is shaped by hand.</p>", 8)
	long := strings.Replace(productPage(declare, "", 0), `<h1>Stovetop Kettle 1.7 l</h1>`, `<div class="story">`+story+`</div><h1>Stovetop Kettle 1.7 l</h1>`, 1)
	checkHolds(t, article(t, long), []string{"forged the first kettle", "brushed steel"}, nil)
}

// TestCarouselsOfAProductsPageAreWeighedOneByOne reads a product's page
// whose carousels of other products ("Similar items", "Sponsored") hold
// more of the page than one carousel may, and a category whose grid
// sets its cards in rows, a box each: the carousels each stand under a
// heading of their own and go, while the rows of one grid are one list
// and stay, and a page that calls itself a group of products is a list
// as before.
func TestCarouselsOfAProductsPageAreWeighedOneByOne(t *testing.T) {
	cards := func(n, from int) string {
		var sb strings.Builder
		for i := from; i < from+n; i++ {
			fmt.Fprintf(&sb, `<li><a href="/p/%d">Enamel teapot in colour %d with a bamboo handle</a> <span>$%d.00</span></li>`, i, i, 20+i)
		}
		return sb.String()
	}
	description := `<p>` + strings.Repeat("A kettle of brushed steel that boils a litre and a half on any hob. ", 13) + `</p>`
	var carousels, rows strings.Builder
	for i, heading := range []string{"Similar items", "Sponsored items", "Top picks for you"} {
		carousels.WriteString(`<section><h2>` + heading + `</h2><ul class="carousel">` + cards(8, 10*i) + `</ul></section>`)
	}
	for i := range 4 {
		rows.WriteString(`<ul class="row">` + cards(8, 10*i) + `</ul>`)
	}
	for _, tc := range []struct {
		name     string
		body     string
		apart    bool
		wantList bool
	}{
		{"three carousels under their headings, each a small part of the page, go",
			`<div class="product"><h1>Stovetop Kettle</h1>` + description + `</div>` + carousels.String(), true, false},
		{"the same carousels, on a page whose heading the title does not name or that calls itself a group, are a list",
			`<div class="product"><h1>Stovetop Kettle</h1>` + description + `</div>` + carousels.String(), false, true},
		{"the rows of one grid, a box each, are one list",
			`<h1>Teapots</h1><p>Teapots of enamel, cast iron and glass.</p><div class="grid">` + rows.String() + `</div>`, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := parseBody(t, `<html><body>`+tc.body+`</body></html>`)
			list := dropOtherProducts(body, map[*html.Node]bool{}, tc.apart)
			if list != tc.wantList {
				t.Fatalf("list = %v, want %v", list, tc.wantList)
			}
			text := flatText(body)
			if gone := !strings.Contains(text, "Enamel teapot"); gone == tc.wantList {
				t.Errorf("cards gone = %v with list = %v:\n%s", gone, list, text)
			}
			if !strings.Contains(text, "Stovetop Kettle") && !strings.Contains(text, "Teapots of enamel") {
				t.Errorf("the page's own text went:\n%s", text)
			}
		})
	}
	// From the page: a declared Product with a heading its title names.
	page := `<!doctype html><html><head><title>Stovetop Kettle - Example Shop</title>` + productLD + `</head><body>` + pageHeader +
		`<main><div class="product"><h1>Stovetop Kettle</h1>` + description + `</div>` + carousels.String() + `</main>` + pageFooter + `</body></html>`
	checkHolds(t, article(t, page), []string{"boils a litre and a half"}, []string{"Enamel teapot", "$21.00"})
	for _, tc := range []struct {
		name, page string
		product    bool
	}{
		{"a product's page", page, true},
		{"a page that calls itself a group of products", strings.Replace(page, `</title>`, `</title><meta property="og:type" content="product.group">`, 1), false},
		{"a page whose title does not name its heading", strings.Replace(page, `<title>Stovetop Kettle`, `<title>Kitchen`, 1), false},
	} {
		if got := pruneProduct(parse(t, tc.page).Nodes[0]); got != tc.product {
			t.Errorf("%s: pruneProduct = %v, want %v", tc.name, got, tc.product)
		}
	}
}

// TestACarouselsHeadingGoesWithItsCards reads a shop that sets a
// carousel's heading in a box of its own before the slides: once the
// cards have gone, the heading would head what follows, the product
// itself. A heading over a box that still holds text, and a box that
// holds more than its heading, stay.
func TestACarouselsHeadingGoesWithItsCards(t *testing.T) {
	var cards strings.Builder
	for i := range 5 {
		fmt.Fprintf(&cards, `<li><a href="/p/%d">Enamel teapot in colour %d</a> <span>$%d.00</span></li>`, i, i, 20+i)
	}
	product := `<div class="product"><h1>Stovetop Kettle</h1><p>` + strings.Repeat("A kettle of brushed steel that boils a litre and a half on any hob. ", 12) + `</p></div>`
	for _, tc := range []struct {
		name, body string
		want       []string
		unwanted   []string
	}{
		{"a heading in a box of its own before the slides goes",
			`<div class="rec"><div class="head"><div><h2>People who viewed this item also viewed</h2></div></div><div class="slides"><button aria-label="Next"></button><ul>` + cards.String() + `</ul></div></div>` + product,
			[]string{"Stovetop Kettle", "boils a litre"}, []string{"also viewed", "Enamel teapot"}},
		{"a heading over a box that keeps text stays",
			`<div class="rec"><div class="head"><h2>Care and cleaning</h2></div><ul><li>Rinse it after use and dry it upside down.</li>` + cards.String() + `</ul></div>` + product,
			[]string{"Care and cleaning", "Rinse it after use"}, []string{"Enamel teapot"}},
		{"a heading over slides beside text stays",
			`<div class="rec"><div class="head"><h2>Care and cleaning</h2></div><div class="slides"><p>Rinse it after use and dry it upside down.</p><ul>` + cards.String() + `</ul></div></div>` + product,
			[]string{"Care and cleaning", "Rinse it after use"}, []string{"Enamel teapot"}},
		{"a box holding more than its heading stays",
			`<div class="rec"><div class="head"><h2>Teapots</h2><p>Our potters' latest glazes.</p></div><div class="slides"><ul>` + cards.String() + `</ul></div></div>` + product,
			[]string{"Teapots", "latest glazes"}, []string{"Enamel teapot"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := parseBody(t, `<html><body>`+tc.body+`</body></html>`)
			if dropOtherProducts(body, map[*html.Node]bool{}, true) {
				t.Fatal("read as a list")
			}
			checkHolds(t, flatText(body), tc.want, tc.unwanted)
		})
	}
}
