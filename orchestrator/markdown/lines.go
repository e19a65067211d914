package markdown

import (
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// dropLines removes, under root, the short elements that line reports as
// lines to leave out: an account prompt, a listing's control, a dateline.
// candidate says, before any text is read, which elements may be such a
// line; line is given the element's text, white space collapsed, read
// only when it is at most limit bytes. A removed element takes what it
// holds; the walk goes into the others, never into code, which says what
// it says, nor into the elements of closed.
func dropLines(root *html.Node, limit int, closed []atom.Atom, candidate func(*html.Node) bool, line func(n *html.Node, text string) bool) {
	var drop []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		switch n.DataAtom {
		case atom.Pre, atom.Code, atom.Kbd, atom.Samp:
			return false
		}
		if slices.Contains(closed, n.DataAtom) {
			return false
		}
		if !candidate(n) || textUpTo(n, limit) > limit {
			return true
		}
		if text := strings.Join(strings.Fields(textOf(n)), " "); text != "" && line(n, text) {
			drop = append(drop, n)
			return false
		}
		return true
	})
	for _, n := range drop {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
}

// noTextBeside reports an element with no text beside it in its line: no
// words in its parent around it, nor in the inline elements next to it
// ("<span>Sort</span><span>: </span><span>Best Match</span>" is one line).
func noTextBeside(n *html.Node) bool {
	for k := n.Parent.FirstChild; k != nil; k = k.NextSibling {
		if k == n {
			continue
		}
		switch {
		case k.Type == html.TextNode && strings.TrimSpace(k.Data) != "":
			return false
		case k.Type == html.ElementNode && inlineElement(k) && strings.TrimSpace(textOf(k)) != "":
			return false
		}
	}
	return true
}

// inlineElement reports an element that stays in the line of the text
// around it.
func inlineElement(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Span, atom.A, atom.Strong, atom.B, atom.Em, atom.I, atom.Small, atom.Label, atom.Abbr, atom.Mark, atom.Code, atom.Sup, atom.Sub:
		return true
	}
	return false
}
