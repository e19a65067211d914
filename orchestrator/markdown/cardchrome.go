package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Every card of a grid is drawn by one template too: the item's picture,
// name and price, and the shop's controls beside them ("Quick view",
// "Compare", "More options", "Calculate shipping", "+ Wishlist"). The
// name and the price differ from card to card; a control reads the same,
// word for word, in every card. A short part of the template, without
// figures, that reads the same in most cards of a grid names what the
// reader can do, not what the item is.

const (
	// maxCardChromeText is the longest text, in bytes, of one card's part
	// of the template that counts as a control.
	maxCardChromeText = 40
	// minCardChromeShare is the least share of a grid's cards in which a
	// part reads the same for it to be a control.
	minCardChromeShare = 0.6
)

// dropCardChrome removes, from the cards of each grid under art, the short
// parts of their template that read the same in most cards. A link that
// reads the same and leads to the same page from each card is the item's
// maker or author, and stays; a control leads to each card's own item
// ("Quick view", "View options"), or nowhere but to a script ("Book
// now" with an empty address).
func dropCardChrome(art *html.Node) {
	for _, g := range cardGroups(art) {
		reads := map[string]int{}
		targets := map[string]map[string]bool{}
		for _, c := range g.cards {
			seen := map[string]bool{}
			eachPart(c, func(n *html.Node, key string) bool {
				t, ok := cardControl(n)
				if !ok || seen[key+"\x00"+t] {
					return true
				}
				k := key + "\x00" + t
				seen[k] = true
				reads[k]++
				if leadsAway(n) {
					if targets[k] == nil {
						targets[k] = map[string]bool{}
					}
					targets[k][attr(n, "href")] = true
				}
				return true
			})
		}
		least := max(minCards, int(minCardChromeShare*float64(len(g.cards))+0.999))
		for _, c := range g.cards {
			var drop []*html.Node
			eachPart(c, func(n *html.Node, key string) bool {
				t, ok := cardControl(n)
				k := key + "\x00" + t
				if ok && reads[k] >= least && (!leadsAway(n) || len(targets[k]) >= least) {
					drop = append(drop, n)
					return false
				}
				return true
			})
			for _, n := range drop {
				n.Parent.RemoveChild(n)
			}
		}
	}
}

// cardControl is the text of n, lower-cased, when n may be a control of a
// card: a button, a link or a field's label of a few words without
// figures, not a sentence nor a date, with no text beside it ("Buy: <a>,
// <a>").
func cardControl(n *html.Node) (string, bool) {
	if !interactive(n) || n.Parent == nil || holdsText(n.Parent) {
		return "", false // a link amid words is the words' own
	}
	t := spacedText(n)
	if t == "" || len(t) > maxCardChromeText || strings.IndexFunc(t, wordRune) < 0 ||
		strings.ContainsAny(t, "0123456789") || sentence(t) || namesDate(t) {
		return "", false
	}
	return strings.ToLower(t), true
}

// interactive reports an element a reader acts on: a button, a link, a
// field's label, a disclosure's summary, or what says it is one.
func interactive(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Button, atom.A, atom.Label, atom.Summary, atom.Select:
		return true
	}
	switch strings.ToLower(strings.TrimSpace(attr(n, "role"))) {
	case "button", "link", "checkbox", "switch":
		return true
	}
	return false
}

// holdsText reports an element that holds text of its own beside its
// elements, words or marks.
func holdsText(n *html.Node) bool {
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.TextNode && strings.TrimSpace(k.Data) != "" {
			return true
		}
	}
	return false
}

// leadsAway reports a link to a page: not an empty address, a place on
// this page or a script.
func leadsAway(n *html.Node) bool {
	if n.DataAtom != atom.A {
		return false
	}
	href := strings.TrimSpace(attr(n, "href"))
	return href != "" && !strings.HasPrefix(href, "#") && !strings.HasPrefix(strings.ToLower(href), "javascript:")
}
