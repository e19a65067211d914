package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/meta"
)

// A reply often quotes the post it answers: a block quotation holding the
// quoted member's name ("Ann said:"), the quoted text and a control to
// expand it. On a thread whose quoted post is on the same page the text is
// there twice; the copy in the quotation goes. A quotation of a post that
// is not on the page (an earlier page of the thread, an outside source)
// stays.

// minQuotedShare is the least share of a quotation's text found earlier
// in the thread for the quotation to be a copy; the rest is its furniture.
const minQuotedShare = 0.6

// minQuotedText is the least text, in bytes, of a quotation's piece that
// counts as found earlier: shorter pieces ("Ann", "said:") occur anywhere.
const minQuotedText = 12

// dropRepeatedQuotes removes, from the posts under root, the block
// quotations whose text the thread already holds before them.
func dropRepeatedQuotes(root *html.Node) {
	var earlier strings.Builder
	var quotes []*html.Node
	copies := map[*html.Node]bool{}
	walk(root, func(n *html.Node) bool {
		switch {
		case n.Type == html.TextNode:
			earlier.WriteString(collapseSpaces(n.Data))
			return false
		case n.Type != html.ElementNode:
			return false
		case n.DataAtom == atom.Script || n.DataAtom == atom.Style || n.DataAtom == atom.Noscript:
			return false
		case headingLevel(n) > 0:
			// The thread's title, which the opening post may repeat in
			// its first line, is no post's text to quote.
			earlier.WriteByte(' ')
			return false
		case copies[n]:
			return false
		case n.DataAtom == atom.Blockquote:
			if quotedEarlier(n, earlier.String()) {
				// Forum software that draws each post's text as a
				// quotation holds a quoted post in a box of its own
				// inside it, with the reply after the box.
				if inner := innerCopy(n, earlier.String()); inner != nil {
					quotes = append(quotes, inner)
					copies[inner] = true
					break
				}
				quotes = append(quotes, n)
				return false // its text is not new: the thread's text goes on without it
			}
		}
		if blockElement(n) {
			earlier.WriteByte(' ')
		}
		return true
	})
	for _, q := range quotes {
		if q.Parent != nil {
			q.Parent.RemoveChild(q)
		}
	}
}

// innerCopy is the quotation's box (see quoteBox) inside the quotation q
// that holds the copy of an earlier post, when new words of q's own
// follow it: a reply of minQuotedText bytes or more, not found earlier in
// the thread and not a control's label ("Click to expand…" closes a
// quotation's own box). It is nil when the copy is all q says.
func innerCopy(q *html.Node, earlier string) *html.Node {
	var inner *html.Node
	walk(q, func(k *html.Node) bool {
		if inner != nil || k.Type != html.ElementNode {
			return false
		}
		if k != q && quoteBox(k) && quotedEarlier(k, earlier) {
			inner = k
			return false
		}
		return true
	})
	if inner == nil {
		return nil
	}
	own := 0 // bytes of new words after the box
	for n := inner; n != q; n = n.Parent {
		for s := n.NextSibling; s != nil; s = s.NextSibling {
			t := ""
			switch {
			case s.Type == html.TextNode:
				t = strings.TrimSpace(collapseSpaces(s.Data))
			case s.Type == html.ElementNode && !interfaceLabelRe.MatchString(flatText(s)):
				t = flatText(s)
			}
			if !strings.Contains(earlier, t) {
				own += len(t)
			}
		}
	}
	if own < minQuotedText {
		return nil
	}
	return inner
}

// quoteBox reports a block that says it is a quotation: a <blockquote>,
// or a box whose class names it one ("bbcode_quote", "quote-box").
func quoteBox(n *html.Node) bool {
	if n.DataAtom == atom.Blockquote {
		return true
	}
	if n.DataAtom != atom.Div && n.DataAtom != atom.Aside && n.DataAtom != atom.Section {
		return false
	}
	for _, w := range meta.ClassWords(attr(n, "class")) {
		if strings.HasPrefix(w, "quot") {
			return true
		}
	}
	return false
}

// quotedEarlier reports a quotation most of whose text (by its pieces of
// minQuotedText bytes or more) occurs in earlier.
func quotedEarlier(q *html.Node, earlier string) bool {
	found, total := 0, 0
	walk(q, func(k *html.Node) bool {
		if k.Type != html.TextNode {
			return k.Type == html.ElementNode && k.DataAtom != atom.Script && k.DataAtom != atom.Style
		}
		t := strings.TrimSpace(collapseSpaces(k.Data))
		total += len(t)
		if len(t) >= minQuotedText && strings.Contains(earlier, t) {
			found += len(t)
		}
		return false
	})
	return total > 0 && float64(found) >= minQuotedShare*float64(total)
}

// collapseSpaces replaces each run of white space in s by one space.
func collapseSpaces(s string) string {
	if !strings.ContainsAny(s, " \t\n\r\f\v\u00a0") || !needsCollapse(s) {
		return s
	}
	var sb strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' || r == '\u00a0' {
			if !space {
				sb.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		sb.WriteRune(r)
	}
	return sb.String()
}

// needsCollapse reports white space other than single spaces in s.
func needsCollapse(s string) bool {
	prev := false
	for _, r := range s {
		isSpace := r == ' '
		if r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' || r == '\u00a0' || isSpace && prev {
			return true
		}
		prev = isSpace
	}
	return false
}

// blockElement reports an element that starts a line of its own, so that
// the texts on either side of it do not read as one word.
func blockElement(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Div, atom.Li, atom.Td, atom.Th, atom.Tr, atom.Br, atom.Section, atom.Article, atom.Aside,
		atom.Header, atom.Footer, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Pre, atom.Dd, atom.Dt:
		return true
	}
	return false
}

// prunePosts removes the furniture of a thread's posts under root: the
// members' figures beside each post, the quotations of posts the thread
// already holds and, with template, the parts of the posts' template that
// say little in every post (not on a product page, whose cards of
// variants repeat the labels of their specifications).
func prunePosts(root *html.Node, template bool) {
	dropPostStats(root)
	dropRepeatedQuotes(root)
	if template {
		dropPostChrome(root)
	}
}
