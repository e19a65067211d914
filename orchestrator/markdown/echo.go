package markdown

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A page may write a short text twice side by side, once for each reader:
// a price and its copy for screen readers in a class only its own
// stylesheet clips ("EUR 163.12<span class=clipped>EUR 163.12</span>"), a
// date or a button's label once for wide screens and once for phones.
// Read without the stylesheet, the answer said "Jan 5, 2026Jan 5, 2026".
// A reader sees the words once.

// echoTags are the inline elements whose text may be such a copy.
var echoTags = map[atom.Atom]bool{atom.Span: true, atom.Time: true, atom.Small: true, atom.Strong: true, atom.B: true,
	atom.Em: true, atom.Abbr: true}

// minEchoText and maxEchoText bound the text of a copy, in bytes: a word
// or two said twice may be the page's own ("no, no"); a copy is a label,
// a price or a date.
const (
	minEchoText = 4
	maxEchoText = 200
)

// echoes reports an inline element holding only text that repeats, word
// for word, the text right before it: the text node before it in its
// parent, or the previous element, shown, of the same kind holding only
// text. Two copies make a pair; a longer run is a ticker (see ticker).
// Code, where a call may repeat, keeps both.
func (c *cleaner) echoes(n *html.Node) bool {
	if !echoTags[n.DataAtom] || n.Parent == nil {
		return false
	}
	text, ok := onlyText(n)
	if !ok || len(text) < minEchoText || len(text) > maxEchoText || !strings.ContainsFunc(text, unicode.IsLetter) {
		return false
	}
	prev := c.sameTextBeside(n, text, -1)
	if prev == nil || c.sameTextBeside(prev, text, -1) != nil || c.sameTextBeside(n, text, 1) != nil {
		return false // a ticker's run of copies is the ticker's rule's
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if literalText(p) {
			return false
		}
	}
	return true
}

// sameTextBeside returns the sibling before n (dir -1) or after it (dir
// 1), past white space, when it says text: a text node, or a shown
// element of n's kind holding only text; nil otherwise.
func (c *cleaner) sameTextBeside(n *html.Node, text string, dir int) *html.Node {
	next := func(k *html.Node) *html.Node {
		if dir < 0 {
			return k.PrevSibling
		}
		return k.NextSibling
	}
	k := next(n)
	for k != nil && k.Type == html.TextNode && strings.TrimSpace(k.Data) == "" {
		k = next(k)
	}
	switch {
	case k == nil:
		return nil
	case k.Type == html.TextNode:
		if strings.Join(strings.Fields(k.Data), " ") == text {
			return k
		}
	case k.Type == html.ElementNode && k.DataAtom == n.DataAtom && !c.hides(k):
		if t, ok := onlyText(k); ok && t == text {
			return k
		}
	}
	return nil
}

// onlyText returns the text of n, its runs of white space made one space,
// when n holds text nodes and nothing else.
func onlyText(n *html.Node) (string, bool) {
	if n.FirstChild == nil {
		return "", false
	}
	var sb strings.Builder
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type != html.TextNode || sb.Len() > maxEchoText {
			return "", false
		}
		sb.WriteString(k.Data)
	}
	return strings.Join(strings.Fields(sb.String()), " "), true
}
