package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/meta"
)

// A shop's category page marks its grid of products as its <main> and
// prints the category's description under it, outside that element and
// before the footer: "Why choose a charcoal barbecue?", a buying guide of
// a few headed paragraphs. That text is the page's own, and the answer
// holds it after the grid.
const (
	// minClosingBlock is the least text, in bytes, of one block after
	// <main> for it to be read as prose: a newsletter's line or a
	// shipping promise is shorter.
	minClosingBlock = 200
	// minClosingProse is the least text of all those blocks together: a
	// description says more than a box asking the reader to sign up.
	minClosingProse = 600
	// minClosingProseShare is the least share of a block's text that
	// must lie outside links, and minClosingParagraphShare inside
	// paragraphs: a list of links is a menu, and a grid of cards, their
	// names, prices and stock, is no prose either.
	minClosingProseShare     = 0.8
	minClosingParagraphShare = 0.6
	// maxClosingBlocks is the most blocks read after <main>: a page that
	// prints more is not closing its grid with a description.
	maxClosingBlocks = 12
)

// closingProse returns the element page marks as its main content and
// copies of the blocks of prose that follow it, before the page's footer:
// the blocks, in their order, that hold at least minClosingBlock of text,
// mostly in paragraphs and outside links, and no chrome. No blocks when
// they hold less than minClosingProse together or are more than
// maxClosingBlocks. It reads the page before the rules remove its footer,
// which ends the search.
func closingProse(page *html.Node) (main *html.Node, blocks []*html.Node) {
	body := findFirst(page, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	if body == nil {
		return nil, nil
	}
	// The first element marked main, the outermost: the region, when
	// the page marks the content so (extract checks that it is).
	if main = findFirst(body, marksMain); main == nil {
		return nil, nil
	}
	var tail []*html.Node
	for n := main; n != nil && n.DataAtom != atom.Body; n = n.Parent {
		for s := n.NextSibling; s != nil; s = s.NextSibling {
			tail = append(tail, s)
		}
	}
	stats := map[*html.Node]blockStats{}
	for _, n := range tail {
		measureBlock(n, stats)
	}
	var found []*html.Node
	total := 0
	stop := false
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if stop || n.Type != html.ElementNode {
			return
		}
		switch {
		case footerLike(n):
			stop = true
			return
		case chrome(n) != notChrome, n.DataAtom == atom.Form, n.DataAtom == atom.Dialog, hidden(n):
			return
		}
		st := stats[n]
		if st.text < minClosingBlock {
			return
		}
		if !st.chrome && float64(st.prose) >= minClosingProseShare*float64(st.text) &&
			float64(st.paragraphs) >= minClosingParagraphShare*float64(st.text) {
			found = append(found, n)
			total += st.text
			stop = len(found) > maxClosingBlocks
			return
		}
		for k := n.FirstChild; k != nil && !stop; k = k.NextSibling {
			visit(k)
		}
	}
	for _, n := range tail {
		visit(n)
	}
	if total < minClosingProse || len(found) > maxClosingBlocks {
		return main, nil
	}
	for _, n := range found {
		blocks = append(blocks, cloneTree(n))
	}
	return main, blocks
}

// blockStats is what closingProse knows of a block: its text's length,
// the parts of it outside links and inside paragraphs, and whether it
// holds the page's chrome or a form below it.
type blockStats struct {
	text, prose, paragraphs int
	chrome                  bool
}

// measureBlock fills stats for n and every element under it, in one pass.
func measureBlock(n *html.Node, stats map[*html.Node]blockStats) blockStats {
	var st blockStats
	switch {
	case n.Type == html.TextNode:
		l := collapsedLen(n.Data)
		return blockStats{text: l, prose: l}
	case n.Type != html.ElementNode, n.DataAtom == atom.Script, n.DataAtom == atom.Noscript, n.DataAtom == atom.Style,
		n.DataAtom == atom.Template:
		return st
	}
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		ks := measureBlock(k, stats)
		st.text += ks.text
		st.prose += ks.prose
		st.paragraphs += ks.paragraphs
		st.chrome = st.chrome || ks.chrome
	}
	switch n.DataAtom {
	case atom.A:
		st.prose = 0
	case atom.P:
		st.paragraphs = st.text
	}
	stats[n] = st
	st.chrome = st.chrome || chrome(n) != notChrome || n.DataAtom == atom.Form || n.DataAtom == atom.Dialog
	return st
}

// footerLike reports the page's footer: a <footer>, role="contentinfo",
// or a box its class or id calls the footer.
func footerLike(n *html.Node) bool {
	if n.DataAtom == atom.Footer || strings.EqualFold(strings.TrimSpace(attr(n, "role")), "contentinfo") {
		return true
	}
	for _, w := range append(meta.ClassWords(attr(n, "class")), meta.ClassWords(attr(n, "id"))...) {
		if w == "footer" {
			return true
		}
	}
	return false
}
