package markdown

import (
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/meta"
)

// A product page's content is the product: its name, its description, its
// features, its specifications and its questions answered. Around it the
// page sells: a price and its currencies, the buying form, the shoppers'
// reviews and a carousel of other products, each a block of its own that a
// reader of the product's text does not need. These rules remove them, on
// a page that declares one product, by what the blocks are (their
// microdata, their words, a series of priced links) rather than by what
// one shop calls them.

// productTypes are the schema.org types of a page about one product.
var productTypes = map[string]bool{"product": true, "productgroup": true, "individualproduct": true,
	"productmodel": true}

// declaresProduct reports a page about one product: one JSON-LD Product
// at the top of a document (not the subject of a review or an item of a
// list, as an article or a listing names one), or one Product item of
// microdata that no other item holds, or else an og:type of product. A
// page that declares several products is a list of them, and one that
// declares an article at the top of its JSON-LD is an article about one.
func declaresProduct(page *html.Node) bool {
	ld, items, og, article := 0, 0, false, false
	walk(page, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if doc, ok := jsonLD(n); ok {
			topLevelNodes(doc, 0, func(node map[string]any) {
				nodeTypes(node, func(t string) {
					switch t := schemaType(t); {
					case productTypes[t] && !ratingOnly(node):
						ld++
					case articleTypes[t]:
						article = true
					}
				})
			})
			return false
		}
		switch {
		case n.DataAtom == atom.Meta && strings.EqualFold(attr(n, "property"), "og:type"):
			t := strings.ToLower(strings.TrimSpace(attr(n, "content")))
			og = og || t == "product" || strings.HasPrefix(t, "product.") || t == "og:product"
			return false
		case hasAttr(n, "itemscope"):
			if productTypes[schemaType(attr(n, "itemtype"))] {
				items++
			}
			return false // an item inside another is a part of it
		}
		return true
	})
	if article {
		return false
	}
	if ld > 0 || items > 0 {
		return max(ld, items) == 1
	}
	return og
}

// ratingOnly reports a Product node that carries a rating or reviews and
// nothing a shop declares of what it sells: no offer, no stock number or
// code. Sites of every kind declare their service, their company or their
// article so, for the stars a search engine shows beside it; the page is
// not one product's.
func ratingOnly(node map[string]any) bool {
	if node["aggregateRating"] == nil && node["review"] == nil {
		return false
	}
	for k := range node {
		switch {
		case k == "offers", k == "sku", k == "mpn", k == "productID", k == "hasVariant",
			strings.HasPrefix(k, "gtin"):
			return false
		}
	}
	return true
}

// topLevelTypes calls found with the lower-cased local @type names of a
// JSON-LD document, of each document of an array, and of each node of a
// @graph: what the page says it is, not what it mentions.
func topLevelTypes(v any, depth int, found func(string)) {
	topLevelNodes(v, depth, func(node map[string]any) {
		nodeTypes(node, func(t string) { found(schemaType(t)) })
	})
}

// topLevelNodes calls found with each node of a JSON-LD document that
// topLevelTypes reads the types of.
func topLevelNodes(v any, depth int, found func(map[string]any)) {
	if depth > 2 {
		return
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			topLevelNodes(e, depth+1, found)
		}
	case map[string]any:
		found(x)
		if g, ok := x["@graph"]; ok {
			topLevelNodes(g, depth+1, found)
		}
	}
}

// schemaType is the lower-cased local name of a schema.org type or
// itemtype URL ("https://schema.org/Product" is "product").
func schemaType(t string) string {
	t = strings.TrimSpace(t)
	if i := strings.IndexByte(t, ' '); i >= 0 {
		t = t[:i] // an itemtype may list several types
	}
	return strings.ToLower(strings.TrimRight(t[strings.LastIndexAny(t, "/:#")+1:], "/"))
}

// pruneProduct removes what sells the product rather than describes it
// from a product page the package owns: the cards of other products, the
// reviews and the price tags. The block that holds the heading that
// names the product (see nameHeading) and the page's <main> stay. A page
// whose cards show it lists products is left as it is, and pruneProduct
// reports false.
func pruneProduct(page *html.Node) bool {
	body := findFirst(page, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	if body == nil {
		return false
	}
	keep := map[*html.Node]bool{}
	h1, named := nameHeading(page, body)
	if h1 != nil {
		for p := h1; p != nil; p = p.Parent {
			keep[p] = true
		}
	}
	if dropOtherProducts(body, keep, named && !declaresGroup(page)) {
		return false // a list of products, whatever the page declares
	}
	walk(body, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n.DataAtom == atom.Main {
			return n.Type == html.ElementNode
		}
		if !keep[n] && reviews(n) {
			n.Parent.RemoveChild(n)
			return false
		}
		return true
	})
	dropPrices(body, keep)
	return true
}

// reviews reports the shoppers' reviews and ratings of a product: a
// review or rating item of microdata, or a block named for reviews,
// ratings or testimonials.
func reviews(n *html.Node) bool {
	switch strings.ToLower(attr(n, "itemprop")) {
	case "review", "reviews", "aggregaterating":
		return true
	}
	switch schemaType(attr(n, "itemtype")) {
	case "review", "aggregaterating":
		return true
	}
	switch n.DataAtom {
	case atom.A, atom.Span, atom.Em, atom.Strong, atom.B, atom.I, atom.Img, atom.Label, atom.Body, atom.Html:
		return false
	}
	words := meta.ClassWords(attr(n, "class"))
	if id := meta.ClassWords(attr(n, "id")); len(id) <= maxIDWords {
		words = append(words, id...)
	}
	for _, w := range words {
		switch {
		case w == "ratings", w == "testimonial", w == "testimonials":
			return true
		case strings.HasPrefix(w, "review"),
			strings.HasSuffix(w, "reviews") && !strings.HasSuffix(w, "previews"):
			return true
		}
	}
	return false
}

// A price: a currency sign or code next to an amount.
var priceRE = regexp.MustCompile(`(?i)(?:[$€£¥₹₩₽]|\b(?:usd|eur|gbp|cad|aud|nzd|chf|jpy|sek|nok|dkk|inr|aed|sar|qar|kwd|omr|sgd|zar|rs|kr)\b)\s?\d[\d.,\s]*\d?|\d[\d.,]*\s?(?:[$€£¥₹₩₽]|\b(?:usd|eur|gbp|cad|aud|nzd|chf|jpy|sek|nok|dkk|inr|aed|sar|qar|kwd|omr|sgd|zar|kr|zł|kč)\b)`)

// Another product is a card: a link to it, its price, and a name of a
// few words.
const (
	// minOtherProducts is the fewest priced cards that make a carousel.
	minOtherProducts = 3
	// maxCarouselCardText is the most text, in bytes, a carousel card holds.
	maxCarouselCardText = 400
)

// dropOtherProducts removes series of cards of other products: at least
// minOtherProducts siblings of the same tag, each short, with a link and a
// price. When the cards hold more than maxOtherProductsShare of the text
// of root, or one series has more than maxOtherProducts, they are what
// the page lists: they stay, and list is true. With apart (a page whose
// title names its heading, see nameHeading, and that does not call itself
// a group of products) the share is the cards' of each block: the
// carousels of a product's page ("Similar items", "Sponsored") stand
// apart, each under its heading, while the rows of a grid are series in
// sibling boxes and count as one block.
func dropOtherProducts(root *html.Node, keep map[*html.Node]bool, apart bool) (list bool) {
	var cards []*html.Node
	grid := false
	text := map[*html.Node]int{} // by the box that holds the series' boxes
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		groups := map[string][]*html.Node{}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if k.Type == html.ElementNode && !keep[k] && productCard(k) {
				groups[k.Data] = append(groups[k.Data], k)
			}
		}
		found := false
		for _, g := range groups {
			if len(g) < minOtherProducts {
				continue
			}
			if len(g) > maxOtherProducts {
				grid = true
			}
			block := n.Parent
			if block == nil || !apart {
				block = root
			}
			for _, k := range g {
				cards = append(cards, k)
				text[block] += collapsedText(k)
			}
			found = true
		}
		return !found
	})
	if grid {
		return true
	}
	total := collapsedText(root)
	for _, t := range text {
		if float64(t) > maxOtherProductsShare*float64(total) {
			return true
		}
	}
	emptied := map[*html.Node]bool{}
	for _, k := range cards {
		emptied[k.Parent] = true
		k.Parent.RemoveChild(k)
	}
	for box := range emptied {
		dropCarouselHeading(box)
	}
	return false
}

// dropCarouselHeading removes the heading of a carousel whose cards have
// gone: the box before the highest box around box that holds no text
// now, when that box holds a heading and nothing else to read ("People
// who viewed this item also viewed" set apart from its slides). Left, it
// would head what follows: on some shops, the product itself.
func dropCarouselHeading(box *html.Node) {
	if textUpTo(box, 0) > 0 {
		return
	}
	// A box around an empty one is empty when the boxes beside it are:
	// each is read once, and only to its first text.
	for box.Parent != nil && box.Parent.Type == html.ElementNode && box.Parent.DataAtom != atom.Body && !textBeside(box) {
		box = box.Parent
	}
	label := prevElement(box)
	if label == nil {
		return
	}
	h := findFirst(label, func(k *html.Node) bool { return headingLevel(k) > 0 })
	if h == nil || collapsedText(label) != collapsedText(h) || collapsedText(h) > maxLabelText {
		return
	}
	label.Parent.RemoveChild(label)
}

// textBeside reports whether a sibling of n holds text.
func textBeside(n *html.Node) bool {
	for k := n.Parent.FirstChild; k != nil; k = k.NextSibling {
		if k != n && (k.Type == html.TextNode && collapsedLen(k.Data) > 0 || k.Type == html.ElementNode && textUpTo(k, 0) > 0) {
			return true
		}
	}
	return false
}

// declaresGroup reports a page whose og:type calls it a group of products
// (product.group): a shop's category, whatever else it declares.
func declaresGroup(page *html.Node) bool {
	return findFirst(page, func(n *html.Node) bool {
		return n.DataAtom == atom.Meta && strings.EqualFold(attr(n, "property"), "og:type") &&
			strings.EqualFold(strings.TrimSpace(attr(n, "content")), "product.group")
	}) != nil
}

// maxOtherProducts is the most cards a carousel of other products shows;
// a series of more is a page's list of products, whatever the page says
// it is, and the page is left whole.
const maxOtherProducts = 16

// maxOtherProductsShare is the largest share of a product page's text
// that cards of other products hold; past it the page is a list.
const maxOtherProductsShare = 0.3

// productCard reports a short block with a link and a price.
func productCard(n *html.Node) bool {
	text := flatText(n)
	if len(text) == 0 || len(text) > maxCarouselCardText || !priceRE.MatchString(text) {
		return false
	}
	return n.DataAtom == atom.A || findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.A && hasAttr(k, "href") }) != nil
}

// maxPriceWords is the most words besides its amounts a block may say
// and still be a price tag ("Sale price", "from", "or 4 payments of").
const maxPriceWords = 4

// dropPrices removes price tags: blocks whose text is prices and a few
// words. A description that mentions a price says more.
func dropPrices(root *html.Node, keep map[*html.Node]bool) {
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if keep[n] || headingLevel(n) > 0 {
			return keep[n]
		}
		switch n.DataAtom {
		case atom.Body, atom.Main, atom.Table, atom.Thead, atom.Tbody, atom.Tr, atom.Td, atom.Th:
			return true // a specifications table may list prices
		}
		text := flatText(n)
		if text == "" || len(text) > 200 {
			return true
		}
		rest := priceRE.ReplaceAllString(text, " ")
		if rest == text {
			return true
		}
		words := strings.FieldsFunc(rest, func(r rune) bool { return !wordRune(r) })
		other, terms := priceWords(words)
		if len(words) <= maxPriceWords ||
			// A box with a heading over its terms is a plan or an offer.
			terms && other <= maxPriceWords && findFirst(n, func(k *html.Node) bool { return headingLevel(k) > 0 }) == nil {
			n.Parent.RemoveChild(n)
			return false
		}
		return true
	})
}

// salesTerms are the words of the terms a shop prints beside a price: its
// shipping, its discount, its instalments, its members' rewards; and
// salesFiller the words that join them. A line of a price, at least one
// such term and few other words is a price tag however long it is ("Free
// standard shipping on orders over $65", "or $91.58/mo. for 12 mo."); a
// sentence of a price and the product's words is not.
var (
	salesTerms = map[string]bool{
		"shipping": true, "delivery": true, "off": true, "save": true, "was": true, "previous": true, "price": true,
		"regular": true, "sale": true, "msrp": true, "rrp": true, "mo": true, "month": true, "months": true,
		"rewards": true, "apr": true, "payments": true, "interest": true, "trending": true, "est": true, "cart": true,
		"returns": true, "protection": true, "financing": true, "instalments": true, "installments": true,
		"coupon": true, "discount": true, "savings": true, "pricing": true,
	}
	salesFiller = map[string]bool{
		"free": true, "standard": true, "express": true, "orders": true, "order": true, "over": true, "above": true,
		"now": true, "list": true, "per": true, "for": true, "or": true, "and": true, "of": true, "on": true, "at": true,
		"to": true, "get": true, "spend": true, "from": true, "with": true, "the": true, "a": true, "in": true,
		"members": true, "new": true, "used": true, "only": true, "add": true, "plan": true, "notice": true,
	}
)

// priceWords counts the words, of a text with its prices taken out, that
// are not a shop's terms of sale; terms is false when none of the words
// is one.
func priceWords(words []string) (n int, terms bool) {
	for _, w := range words {
		lw := strings.ToLower(w)
		switch {
		case salesTerms[lw]:
			terms = true
		case salesFiller[lw] || strings.TrimFunc(w, func(r rune) bool { return r >= '0' && r <= '9' }) == "":
		default:
			n++
		}
	}
	return n, terms
}

func wordRune(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127
}

// minSpecRows is the fewest rows (or terms) a table or definition list
// has to be a product's specifications.
const minSpecRows = 3

// missesSpecs reports whether the chosen block, taken from a product page,
// leaves out a table or definition list of region: the specifications,
// which an article scorer takes for furniture beside the description.
func missesSpecs(chosen *chosenText, region *html.Node) bool {
	missed := false
	walk(region, func(n *html.Node) bool {
		if missed || n.Type != html.ElementNode {
			return false
		}
		if n.DataAtom != atom.Table && n.DataAtom != atom.Dl {
			return true
		}
		rows := 0
		walk(n, func(k *html.Node) bool {
			if k.DataAtom == atom.Tr || k.DataAtom == atom.Dt {
				rows++
			}
			return k.DataAtom != atom.Table || k == n
		})
		if rows >= minSpecRows && !chosen.holds(n) {
			missed = true
		}
		return false
	})
	return missed
}

// maxBuyBoxShare is the largest share of a page's text that the block
// holding both the product's heading and its buying form may hold: a
// product's box, not the whole page around a basket in the site's header.
const maxBuyBoxShare = 0.8

// sellsOne reports a page whose structure shows one product for sale,
// whatever it declares: one or two forms that put something in a cart or
// basket, in the same box as the heading that names the product (see
// nameHeading), a box of at most maxBuyBoxShare of the page's text unless
// the title names the heading and the form is outside the site's chrome.
func sellsOne(page *html.Node) bool {
	body := findFirst(page, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	if body == nil {
		return false
	}
	var forms []*html.Node
	walk(body, func(n *html.Node) bool {
		if n.DataAtom == atom.Form {
			if cartForm(n) {
				forms = append(forms, n)
			}
			return false
		}
		return n.Type == html.ElementNode
	})
	if len(forms) == 0 || len(forms) > 2 {
		return false
	}
	h1, named := nameHeading(page, body) // read only on a page with a cart form
	if h1 == nil {
		return false
	}
	holds := map[*html.Node]bool{}
	for p := h1; p != nil; p = p.Parent {
		holds[p] = true
	}
	box := forms[0]
	for box != nil && !holds[box] {
		box = box.Parent
	}
	if box == nil || box == body || box.DataAtom == atom.Main {
		return false
	}
	if float64(collapsedText(box)) <= maxBuyBoxShare*float64(collapsedText(body)) {
		return true
	}
	// A shop may set the product's box, its reviews and the other
	// products in one container, which holds most of the page: the
	// heading the title names, and a form outside the site's chrome,
	// still show one product for sale.
	if !named {
		return false
	}
	for p := forms[0]; p != box; p = p.Parent {
		if chrome(p) != notChrome {
			return false
		}
	}
	return true
}

// cartForm reports a form that adds to a cart or basket, by its action,
// id, class or name.
func cartForm(n *html.Node) bool {
	for _, a := range []string{"action", "id", "class", "name"} {
		v := attr(n, a)
		if a == "action" {
			if u, err := url.Parse(v); err == nil {
				v = u.Path
			}
		}
		for _, w := range meta.ClassWords(v) {
			switch w {
			case "cart", "basket", "addtocart", "addtobasket":
				return true
			}
		}
	}
	return false
}

// maxBeforeNameShare is the most of the text after a product's name that
// the blocks before it may hold for them to go: more, and the heading is
// not where the product's page begins.
const maxBeforeNameShare = 0.5

// pruneBeforeName removes from a product's page the blocks that come
// before the heading naming the product: the shop's promotions, its
// breadcrumbs and notices, a panel of reviews laid out above the name.
// The heading is the one nameHeading finds, and names the product when
// the page's title holds its words, eight bytes of them at least. A block
// with a picture and a few words (the product's gallery) stays, and so
// does everything when the blocks before the name hold more than
// maxBeforeNameShare of the text after it.
func pruneBeforeName(page *html.Node) {
	body := findFirst(page, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	if body == nil {
		return
	}
	h1, _ := nameHeading(page, body)
	title := findFirst(page, func(n *html.Node) bool { return n.DataAtom == atom.Title })
	if h1 == nil || title == nil {
		return
	}
	// A name as short as a word ("Shop", a logo's) is found in any title.
	name := strings.ToLower(flatText(h1))
	if len(name) < minCardTitle || !strings.Contains(strings.ToLower(flatText(title)), name) {
		return
	}
	var before []*html.Node
	beforeText, afterText := 0, 0
	for n := h1; n != body; n = n.Parent {
		for k := n.PrevSibling; k != nil; k = k.PrevSibling {
			if k.Type != html.ElementNode || k.DataAtom == atom.Script || k.DataAtom == atom.Style || k.DataAtom == atom.Template {
				continue
			}
			t := collapsedText(k)
			if t == 0 || t <= maxGalleryText && findFirst(k, func(i *html.Node) bool { return i.DataAtom == atom.Img }) != nil {
				continue
			}
			before = append(before, k)
			beforeText += t
		}
		for k := n.NextSibling; k != nil; k = k.NextSibling {
			afterText += collapsedText(k)
		}
	}
	afterText += collapsedText(h1)
	if len(before) == 0 || float64(beforeText) > maxBeforeNameShare*float64(afterText) {
		return
	}
	for _, k := range before {
		k.Parent.RemoveChild(k)
	}
}

// maxNameHeadings is the most <h1> elements of a page nameHeading weighs
// against its title; the rest are not read.
const maxNameHeadings = 20

// minNameTitleShare is the least share of a heading's words that the
// page's title must hold for the heading to name what the page is about.
const minNameTitleShare = 0.5

// nameHeading is the <h1> under body that names what the page is about:
// of the page's first maxNameHeadings, the one whose words the page's
// <title> holds the largest share of, at least minNameTitleShare, the
// first of equals, and named is true; the first <h1> when none does or
// the page has no title. A shop's page may set an <h1> in a widget ahead
// of the product's name ("Follow the author", "Your cart"), which the
// title does not hold.
func nameHeading(page, body *html.Node) (h1 *html.Node, named bool) {
	var first, best *html.Node
	bestShare, seen := 0.0, 0
	var title map[string]bool
	if t := findFirst(page, func(n *html.Node) bool { return n.DataAtom == atom.Title }); t != nil {
		title = map[string]bool{}
		for _, w := range descriptionWords(flatText(t)) {
			title[w] = true
		}
	}
	walk(body, func(n *html.Node) bool {
		if seen >= maxNameHeadings {
			return false
		}
		if n.DataAtom != atom.H1 {
			return n.Type == html.ElementNode
		}
		seen++
		if first == nil {
			first = n
		}
		if sh := share(descriptionWords(flatText(n)), title); sh >= minNameTitleShare && sh > bestShare {
			best, bestShare = n, sh
		}
		return false
	})
	if best != nil {
		return best, true
	}
	return first, false
}

// maxGalleryText is the most text, in bytes, of a block of pictures
// before a product's name that stays: the gallery and its captions.
const maxGalleryText = 40
