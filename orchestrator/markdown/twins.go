package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Layout twins: a card written twice, once for each layout the site's
// stylesheet chooses between. A listing of events writes each event as a
// wide card and again as a narrow one; a shop's theme writes a product's
// name in a box shown only when the product has no picture and again
// under the picture. The stylesheet shows one; the page's markup holds
// both, so the item's name, date and price came twice. The twins are
// known by their headings: one linked heading, its text and its link
// alike, written twice in one small block. The copy whose words the
// other holds all of goes, as high as it holds nothing more: the box of
// the name alone, or the whole narrow card.

const (
	// maxTwinBlock is the most text, in bytes, of the block that holds
	// both copies: a card's two layouts, not a section's.
	maxTwinBlock = 2 * maxCardText
	// maxTwinClimb is how many elements up from each heading the block
	// holding both is looked for.
	maxTwinClimb = 10
)

// dropLayoutTwins removes, for each linked heading root holds exactly
// twice within one small block, the copy whose text the other holds.
func dropLayoutTwins(root *html.Node) {
	type pair struct{ a, b *html.Node }
	found := map[string]*pair{}
	var keys []string
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if headingLevel(n) == 0 {
			return true
		}
		key := linkedHeadingKey(n)
		switch p := found[key]; {
		case key == "":
		case p == nil:
			found[key] = &pair{a: n}
			keys = append(keys, key)
		case p.b == nil:
			p.b = n
		default:
			found[key] = &pair{} // three or more: a listing's repeats, not twins
		}
		return false
	})
	for _, key := range keys {
		if p := found[key]; p.a != nil && p.b != nil && p.a.Parent != nil && p.b.Parent != nil {
			dropTwin(p.a, p.b)
		}
	}
}

// linkedHeadingKey is what makes a heading the twin of another: its text
// and where its link leads, or "" for a heading without a link of its own
// (a section's title may well come twice: "Parameters", "Examples").
func linkedHeadingKey(h *html.Node) string {
	text := flatText(h)
	if len(text) < minCardTitle {
		return ""
	}
	var link *html.Node
	for a, i := h.Parent, 0; a != nil && i < 3 && link == nil; a, i = a.Parent, i+1 {
		if a.DataAtom == atom.A {
			link = a
		}
	}
	if link == nil {
		link = findFirst(h, func(a *html.Node) bool { return a.DataAtom == atom.A })
	}
	href := ""
	if link != nil {
		href = strings.TrimSpace(attr(link, "href"))
	}
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	return text + "\x00" + href
}

// dropTwin removes the copy of the heading a or b whose text the other
// copy holds, if the two stand in one small block.
func dropTwin(a, b *html.Node) {
	block := commonAncestor(a, b, maxTwinClimb)
	if block == nil || textUpTo(block, maxTwinBlock) > maxTwinBlock {
		return
	}
	ca, cb := childTowards(block, a), childTowards(block, b)
	la, lb := textLines(ca), textLines(cb)
	switch {
	case subsetOf(la, lb):
		removeCopy(a, ca, lb, hasPicture(cb))
	case subsetOf(lb, la):
		removeCopy(b, cb, la, hasPicture(ca))
	}
}

// removeCopy removes the highest element from the heading h up to top
// whose every line the other copy holds, one with a picture only when
// the other copy has one too.
func removeCopy(h, top *html.Node, other map[string]bool, otherPicture bool) {
	var drop *html.Node
	for x := h; x != nil; x = x.Parent {
		if subsetOf(textLines(x), other) && (otherPicture || !hasPicture(x)) {
			drop = x
		}
		if x == top {
			break
		}
	}
	if drop != nil && drop.Parent != nil {
		drop.Parent.RemoveChild(drop)
	}
}

// commonAncestor is the nearest element holding both a and b, at most
// limit elements above each, or nil.
func commonAncestor(a, b *html.Node, limit int) *html.Node {
	above := map[*html.Node]bool{}
	for x, i := a.Parent, 0; x != nil && i < limit; x, i = x.Parent, i+1 {
		above[x] = true
	}
	for x, i := b.Parent, 0; x != nil && i < limit; x, i = x.Parent, i+1 {
		if above[x] {
			return x
		}
	}
	return nil
}

// childTowards is the child of block that holds n.
func childTowards(block, n *html.Node) *html.Node {
	for n.Parent != block {
		n = n.Parent
	}
	return n
}

// textLines is the set of the texts under n, each with its white space
// collapsed.
func textLines(n *html.Node) map[string]bool {
	lines := map[string]bool{}
	walk(n, func(k *html.Node) bool {
		if k.Type == html.TextNode {
			if t := strings.Join(strings.Fields(k.Data), " "); t != "" {
				lines[t] = true
			}
		}
		return true
	})
	if n.Type == html.TextNode {
		if t := strings.Join(strings.Fields(n.Data), " "); t != "" {
			lines[t] = true
		}
	}
	return lines
}

// subsetOf reports whether every line of a is one of b.
func subsetOf(a, b map[string]bool) bool {
	for l := range a {
		if !b[l] {
			return false
		}
	}
	return true
}

// hasPicture reports whether n is or holds a picture.
func hasPicture(n *html.Node) bool {
	return findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.Img || k.DataAtom == atom.Picture }) != nil
}
