package markdown

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Repeats: a page built for several screens often ships one section twice,
// once laid out for a phone and once for a desktop, and lets its style
// sheet show one of them; a product's features, a shop's banner and a
// store's reassurances ("Free returns within 30 days …") come in twice,
// word for word. In the Markdown a reader sees the second copy as noise.
// A block whose whole text is that of an earlier block (not one holding
// it) is the same section again, and goes. Short blocks may repeat for a
// reason (a "Sale" badge, a size, a date), so only blocks of at least
// minRepeatText bytes count.

const (
	// minRepeatText is the least text, in bytes, of a block that is left
	// out when it repeats an earlier one word for word.
	minRepeatText = 80
	// maxRepeatText is the most text, in bytes, of a block compared with
	// the others: past it a block is a large part of the page, and its
	// parts are compared instead.
	maxRepeatText = 20000
)

// dropRepeats removes from root each block whose text, of at least
// minRepeatText bytes, is word for word that of an earlier block that
// does not hold it. Unless the content is a thread, whose replies quote
// the posts before them, items of lists that say the same are kept: a
// tutorial's steps repeat a warning or a snippet, and two offers their
// terms.
func dropRepeats(root *html.Node, thread bool) {
	seen := map[string]*html.Node{}
	var repeats []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if !repeatBlock(n) {
			return true
		}
		size := textUpTo(n, maxRepeatText)
		if size < minRepeatText {
			return false // nothing under it is long enough
		}
		if size > maxRepeatText {
			return true
		}
		if mostlyCode(n, size) {
			return false // a tutorial shows the same snippet in each example
		}
		key := flatText(n)
		first, ok := seen[key]
		if !ok {
			seen[key] = n
			return true
		}
		if holds(first, n) {
			return true // a wrapper's only child says what the wrapper says
		}
		if !thread && inListItem(first) && inListItem(n) {
			return true
		}
		repeats = append(repeats, n)
		return false
	})
	for _, n := range repeats {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
}

// repeatBlock reports the elements compared: the containers of a layout
// (sections, boxes, lists), not a paragraph or a heading, which a writer
// may well say twice, nor the inline elements of a sentence or the cells
// of a table, whose rows may repeat a value.
func repeatBlock(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Div, atom.Section, atom.Article, atom.Aside, atom.Ul, atom.Ol, atom.Li, atom.Dl,
		atom.Figure, atom.Details:
		return true
	}
	return false
}

// holds reports whether a is n or one of its ancestors.
func holds(a, n *html.Node) bool {
	for p := n; p != nil; p = p.Parent {
		if p == a {
			return true
		}
	}
	return false
}

// inListItem reports whether n is an item of a list or inside one.
func inListItem(n *html.Node) bool {
	return n.DataAtom == atom.Li || insideTag(n, atom.Li)
}

// mostlyCode reports a block whose text, size bytes of it, is mostly that
// of its code blocks.
func mostlyCode(n *html.Node, size int) bool {
	code := 0
	walk(n, func(k *html.Node) bool {
		if k.DataAtom == atom.Pre {
			code += textUpTo(k, size)
			return false
		}
		return k.Type == html.ElementNode
	})
	return code > 0 && float64(code) >= minCodeShare*float64(size)
}

// minCodeShare is the least share of a block's text its code blocks hold
// for the block to be code.
const minCodeShare = 0.8

// A heading that says word for word what the heading just before it
// said, with nothing between them, is the same heading shown twice: a
// card's title once over its picture and once under it, a title once
// linked and once not. It is read once when it says at least
// minAdjacentRepeatWords words. A paragraph that repeats the one before
// it stays: a caption may be a picture's heading too, and a writer may
// say a sentence twice.

// minAdjacentRepeatWords is the fewest words of a heading that goes when
// it repeats the one just before it: a short label ("Pros") may head two
// columns.
const minAdjacentRepeatWords = 2

// dropAdjacentRepeats removes under root each heading whose words are
// those of the heading just before it, with no words between them.
// Tables and code are read as they are.
func dropAdjacentRepeats(root *html.Node) {
	var last string
	lastHeading := false
	clean := false // no words since the last block of text
	var repeats []*html.Node
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			switch {
			case k.Type == html.TextNode:
				if countWords(k.Data) > 0 {
					clean = false
				}
			case k.Type != html.ElementNode:
			case k.DataAtom == atom.Table || k.DataAtom == atom.Pre || k.DataAtom == atom.Code:
				if countWords(textOf(k)) > 0 {
					clean = false
				}
			case textUnit(k):
				text := flatText(k)
				if text == "" {
					continue
				}
				heading := headingLevel(k) > 0
				if clean && heading && lastHeading && text == last && countWords(text) >= minAdjacentRepeatWords {
					repeats = append(repeats, k)
					continue
				}
				last, lastHeading, clean = text, heading, true
			default:
				visit(k)
			}
		}
	}
	visit(root)
	for _, n := range repeats {
		n.Parent.RemoveChild(n)
	}
}

// textUnit reports a block of text read whole: a paragraph, a heading, or
// a box, an item or a term holding no other block.
func textUnit(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P:
		return true
	case atom.Div, atom.Li, atom.Dt, atom.Dd:
		return findFirst(n, blockElement) == nil
	}
	return headingLevel(n) > 0
}
