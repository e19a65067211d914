package markdown

import (
	"strings"

	"github.com/glimpse/glimpse/orchestrator/meta"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Cards: the content of a category page, a search result or an index is a
// grid of cards or a column of rows, each naming one item in a linked
// title with a little beside it (a picture, a price, a date, a line of
// summary, a count). Their text is mostly inside links, so the measure of
// prose that finds an article's block passes them by, and a hero banner,
// an SEO paragraph or a newsletter box outweighs the whole grid. These
// rules find the cards by their shape, never by their names: siblings of
// one tag and class, each holding a linked title and a little more.

const (
	// minCards is the fewest siblings of one shape that make a grid.
	minCards = 4
	// minCardTitle is the least text, in bytes, of a card's title.
	minCardTitle = 8
	// maxCardText is the most text, in bytes, one card holds: past it a
	// sibling is a section or a post, not a card.
	maxCardText = 1500
	// minCardShare is the least share of the siblings of one shape that
	// must be cards for the shape to be a grid: a list of links with a
	// few linked titles among them is a menu.
	minCardShare = 0.6
	// maxCardLinks is the most places a card leads to by named links:
	// the item, and perhaps its maker or a button to buy it. A block of
	// many named links is a column of a menu or of an archive.
	maxCardLinks = 3
)

// cardGroup is one grid of cards: siblings under parent with one shape.
type cardGroup struct {
	parent *html.Node
	cards  []*html.Node
	// text is the length of the cards' text together.
	text int
}

// cardGroups returns the grids of cards under root in document order.
// A grid inside a card of another grid counts once, as that card.
func cardGroups(root *html.Node) []cardGroup {
	groups := siblingCards(root)
	if len(groups) > 0 {
		return groups
	}
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if chrome(n) == chromeByTag {
			return false // a grid in a menu or a footer is a mega-menu
		}
		found := siblingCards(n)
		groups = append(groups, found...)
		return len(found) == 0
	})
	return groups
}

// siblingCards returns the grids among the children of n.
func siblingCards(n *html.Node) []cardGroup {
	shapes := map[string][]*html.Node{}
	var order []string
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type != html.ElementNode {
			continue
		}
		key := shapeKey(k)
		if shapes[key] == nil {
			order = append(order, key)
		}
		shapes[key] = append(shapes[key], k)
	}
	var out []cardGroup
	for _, key := range order {
		members := shapes[key]
		if len(members) < minCards {
			continue
		}
		g := cardGroup{parent: n}
		for _, k := range members {
			if t, ok := card(k); ok {
				g.cards = append(g.cards, k)
				g.text += t
			}
		}
		if len(g.cards) >= minCards && float64(len(g.cards)) >= minCardShare*float64(len(members)) {
			out = append(out, g)
		}
	}
	return out
}

// shapeKey is what siblings of one kind share: the tag and the first
// word of the class, without its digits. Grids number their cells
// ("order-3", "col-4") and blogs add a class per post and category
// ("post-8812 category-baking"); the first word names the kind of block.
func shapeKey(n *html.Node) string {
	first := ""
	if f := strings.Fields(attr(n, "class")); len(f) > 0 {
		first = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, f[0])
	}
	return n.Data + "." + first
}

// card reports whether n is a card, and the length of its text: a linked
// title (a link of a few words, or a heading) and something beside it,
// a picture, a price, a date or a line of its own, within maxCardText.
func card(n *html.Node) (int, bool) {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Option, atom.Input, atom.Select, atom.Button:
		return 0, false
	}
	text := textUpTo(n, maxCardText)
	if text == 0 || text > maxCardText {
		return text, false
	}
	title, picture, titleText := false, false, 0
	targets := map[string]bool{}
	walk(n, func(k *html.Node) bool {
		if k.Type != html.ElementNode {
			return false
		}
		switch {
		case k.DataAtom == atom.Img || k.DataAtom == atom.Picture || k.DataAtom == atom.Svg:
			picture = true
			return false
		case k.DataAtom == atom.A:
			t := strings.TrimSpace(textOf(k))
			if t != "" && !asideLink(k) {
				// Swatches of a product's colours link to its variants
				// with a picture or nothing; named links are where the
				// card leads.
				targets[attr(k, "href")] = true
			}
			if h := findFirst(k, func(h *html.Node) bool { return headingLevel(h) > 0 }); h != nil {
				t = strings.TrimSpace(textOf(h))
			}
			if len(t) >= minCardTitle && strings.ContainsRune(t, ' ') && !title {
				title, titleText = true, collapsedLen(t)
			}
		case headingLevel(k) > 0 && findFirst(k, func(a *html.Node) bool { return a.DataAtom == atom.A }) != nil:
			if !title {
				title, titleText = true, collapsedText(k)
			}
		}
		return true
	})
	if !title || len(targets) > maxCardLinks {
		return text, false
	}
	// A bare link in a list is a menu entry; a card says a little more
	// than its title, or shows a picture.
	return text, picture || text-titleText >= minCardBeside
}

// asideLink reports a link of a card that is not where the card leads: a
// tag or category the item is filed under (rel="tag", "category"), or a
// button drawn as a link ("Add to cart", role="button" or a class that
// says "button"). A shop's card names its categories and a button beside
// the item's title.
func asideLink(a *html.Node) bool {
	for _, r := range strings.Fields(strings.ToLower(attr(a, "rel"))) {
		if r == "tag" || r == "category" {
			return true
		}
	}
	if button(a) {
		return true
	}
	for _, w := range meta.ClassWords(attr(a, "class")) {
		if w == "button" || w == "btn" {
			return true
		}
	}
	return false
}

// minCardBeside is the least text, in bytes, a card without a picture
// holds beside its title: a price, a date, a count.
const minCardBeside = 3

// minMissedCardShare is the least share of the chosen block's text the
// cards it leaves out must hold for the region to be the content: on a
// page that declares nothing, a grid that outweighs the block by a fifth.
// A page that declares many blocks (an item list, a collection, search
// results) needs less: its grid is what it says it is.
var minMissedCardShare = map[pageKind]float64{kindUnknown: 1.2, kindMany: 0.75}

// maxIntroText is the most text, in bytes, of a category page's
// introduction: a page that says it is an article only by its og:type (see
// declaredKind), whose chosen block is no longer and leaves out a grid that
// outweighs it, is a category page whose template calls every page an
// article. A story, even a short one, says more.
const maxIntroText = 1000

// missesCards reports whether the chosen block, taken from the page, leaves
// out a grid of cards of region that outweighs it: the products of a
// category page beside its banner, the stories of an index beside its
// introduction. A page that declares itself an article keeps its block:
// the grid beside a story is its related stories.
func missesCards(chosen *chosenText, region *html.Node, kind pageKind) bool {
	share, ok := minMissedCardShare[kind]
	if !ok {
		return false
	}
	return float64(missedCards(chosen, region)) >= share*float64(collapsedText(chosen.art))
}

// missedCards is the length of the text of the largest grid of region,
// counting only the cards the chosen block does not hold. Grids are
// weighed one by one: an archive of many short lists (posts by month,
// links by topic) is not one listing.
func missedCards(chosen *chosenText, region *html.Node) int {
	largest := 0
	for _, g := range cardGroups(region) {
		missed := 0
		for _, c := range g.cards {
			if !chosen.holds(c) {
				missed += collapsedText(c)
			}
		}
		largest = max(largest, missed)
	}
	return largest
}

// textUpTo is the length of the text under n, each run of white space
// counted once, counted only until it passes limit: a large block is
// not a card, and how large does not matter.
func textUpTo(n *html.Node, limit int) int {
	return measureUpTo(n, limit, collapsedLen)
}

// measureUpTo sums measure over the texts under n, only until the sum
// passes limit.
func measureUpTo(n *html.Node, limit int, measure func(string) int) int {
	total := 0
	var count func(n *html.Node)
	count = func(n *html.Node) {
		for k := n.FirstChild; k != nil && total <= limit; k = k.NextSibling {
			if k.Type == html.TextNode {
				total += measure(k.Data)
			} else {
				count(k)
			}
		}
	}
	count(n)
	return total
}
