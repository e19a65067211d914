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
		if text := flatText(n); text != "" && line(n, text) {
			removeLine(n)
			return false
		}
		return true
	})
}

// removeLine removes n, a line of its own, from its parent. A block
// between two runs of inline text kept their words apart ("<span>$134</span>
// <div>In stock</div><span>compared to $180</span>"); a space in its place
// still does.
func removeLine(n *html.Node) {
	if !inlineTags[n.DataAtom] && n.PrevSibling != nil && n.NextSibling != nil {
		n.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, n)
	}
	n.Parent.RemoveChild(n)
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
		case k.Type == html.ElementNode && inlineTags[k.DataAtom] && strings.TrimSpace(textOf(k)) != "":
			return false
		}
	}
	return true
}
