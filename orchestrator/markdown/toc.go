package markdown

import (
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A table of contents lists the headings of the page it heads, linked to
// them or not: what it says, the page says again below it, and a reader
// of the Markdown has the headings themselves. It is known by what it
// holds, whatever its class: a list of at least minTOCItems entries that
// nearly all name a heading of the content or link to a place on this
// page. Its label ("Table of contents", "On this page") goes with it, and
// the label goes wherever it stands alone.

const (
	// minTOCItems is the fewest entries of a table of contents.
	minTOCItems = 3
	// minTOCShare is the share of a list's entries that must name a
	// heading or link into the page.
	minTOCShare = 0.8
	// maxTOCLabel is the most text, in bytes, of its label.
	maxTOCLabel = 40
)

// tocLabelRe is the whole text of a label that names a table of
// contents in every case; tocWordRe also names other things ("Contents"
// of a box, "Inhalt" of a package) and counts only over such a list.
var (
	tocLabelRe = regexp.MustCompile(`(?i)^\s*(?:table\s+of\s+contents?|in\s+this\s+(?:article|post|guide|page)|on\s+this\s+page|` +
		`article\s+contents|jump\s+to\s+section|inhaltsverzeichnis|sommaire|tabla\s+de\s+contenidos?|índice\s+de\s+contenidos?|inhoudsopgave|` +
		`indice\s+dei\s+contenuti)\s*:?\s*$`)
	tocWordRe = regexp.MustCompile(`(?i)^\s*(?:contents|inhalt|índice|indice|inhoud|contenu|sumário|sumario)\s*:?\s*$`)
	// tocNumberRe is the numbering a table of contents or a heading puts
	// before its words: "1.", "2.3", "IV.".
	tocNumberRe = regexp.MustCompile(`^(?:\d+(?:\.\d+)*[.)]?|[ivxlc]+[.)])\s+`)
)

// dropTableOfContents removes, under art, the tables of contents and
// their labels. base is the page's address, for links into the page.
func dropTableOfContents(art *html.Node, base *url.URL) {
	// Where each heading stands, and each list: a table of contents names
	// the headings after it; a list that sums up those before it ("The
	// full top 10, for quick reference") is the content's own.
	headings := map[string]tocHeading{}
	at := map[*html.Node]int{}
	pos := 0
	walk(art, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		pos++
		switch {
		case headingLevel(n) > 0:
			if k := tocKey(textOf(n)); k != "" {
				headings[k] = tocHeading{n, pos}
			}
			return false
		case n.DataAtom == atom.Ul || n.DataAtom == atom.Ol:
			at[n] = pos
		}
		return true
	})
	here := ""
	if base != nil {
		here = withoutFragment(base)
	}
	lists := listsWhere(art, func(n *html.Node) bool { return tableOfContents(n, at[n], headings, here) })
	for _, list := range lists {
		dropTOCLabel(list)
		if list.Parent != nil {
			list.Parent.RemoveChild(list)
		}
	}
	dropLines(art, maxTOCLabel, []atom.Atom{atom.Table}, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.P, atom.Div, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Summary:
			return true
		case atom.Span, atom.Strong, atom.B, atom.A:
			return noTextBeside(n)
		}
		return false
	}, func(_ *html.Node, text string) bool {
		return tocLabelRe.MatchString(text)
	})
}

// tocHeading is a heading of the content and where it stands.
type tocHeading struct {
	n   *html.Node
	pos int
}

// inside reports whether n lies under root.
func inside(n, root *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p == root {
			return true
		}
	}
	return false
}

// tableOfContents reports a list, standing at pos, whose entries nearly
// all name a heading after it, not one of its own (a list of cards titled
// with headings), or link into the page at here.
func tableOfContents(list *html.Node, pos int, headings map[string]tocHeading, here string) bool {
	entries, matched := 0, 0
	walk(list, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n.DataAtom != atom.Li {
			return n.Type == html.ElementNode
		}
		text := ownItemText(n)
		if strings.TrimSpace(text) == "" {
			return true
		}
		entries++
		if h, ok := headings[tocKey(text)]; ok && h.pos > pos && !inside(h.n, list) || linksIntoPage(n, text, here) {
			matched++
		}
		return true
	})
	return entries >= minTOCItems && float64(matched) >= minTOCShare*float64(entries)
}

// ownItemText is the text of a list entry without the lists nested in it.
func ownItemText(li *html.Node) string {
	return textSkipping(li, func(n *html.Node) bool { return n.DataAtom == atom.Ul || n.DataAtom == atom.Ol })
}

// linksIntoPage reports an entry that is a link to a place on this page:
// its first link, holding nearly all of the entry's own text, leads there.
// A footnote's mark or a cross-reference in an entry that says more is no
// entry of a table of contents.
func linksIntoPage(li *html.Node, text, here string) bool {
	a := findFirst(li, func(n *html.Node) bool { return n.DataAtom == atom.A && hasAttr(n, "href") })
	if a == nil || float64(len(flatText(a))) < minTOCShare*float64(len(strings.Join(strings.Fields(text), " "))) {
		return false
	}
	href := strings.TrimSpace(attr(a, "href"))
	if strings.HasPrefix(href, "#") {
		return len(href) > 1
	}
	u, err := url.Parse(href)
	if err != nil || u.Fragment == "" || here == "" {
		return false
	}
	return withoutFragment(u) == here
}

// tocKey is a heading's or an entry's words, lower-cased, without its
// numbering and end punctuation: how an entry names a heading.
func tocKey(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	s = tocNumberRe.ReplaceAllString(s, "")
	return strings.Trim(s, " .:;,–—-")
}

// dropTOCLabel removes the label just before a table of contents: the
// element before it, or before the boxes that hold nothing but it.
func dropTOCLabel(list *html.Node) {
	n := list
	for range 3 {
		prev := n.PrevSibling
		for prev != nil && (prev.Type == html.TextNode && strings.TrimSpace(prev.Data) == "" || prev.Type == html.CommentNode) {
			prev = prev.PrevSibling
		}
		if prev != nil {
			if prev.Type == html.ElementNode && textUpTo(prev, maxTOCLabel) <= maxTOCLabel {
				if t := flatText(prev); tocLabelRe.MatchString(t) || tocWordRe.MatchString(t) {
					prev.Parent.RemoveChild(prev)
				}
			}
			return
		}
		if n.Parent == nil || n.Parent.DataAtom == atom.Body {
			return
		}
		n = n.Parent
	}
}
