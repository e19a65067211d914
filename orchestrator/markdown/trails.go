package markdown

import (
	"net/url"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A breadcrumb trail names the sections above the page, each a link to
// it, in a line of their own joined by a mark: "Forum › Hardware › PC
// cards", "Home » Guides » Meditation cost". Most templates mark theirs
// (a class, a <nav>), which the cleaning removes; the rest are known by
// that shape.

// Marks a trail joins its sections with. An arrow joins two; a slash, a
// line of two links may use to offer a choice ("Sleeping bag / Quilt"),
// so it joins three at least.
const (
	trailArrows = ">›»→❯⟩"
	trailSlash  = '/'
)

const (
	// maxTrailText bounds the text of a trail's line, in bytes.
	maxTrailText = 300
	// maxTrailWords is the most words a section's name has.
	maxTrailWords = 6
	// maxTrailTitle is the most text, in bytes, of the page's own name
	// after the last link.
	maxTrailTitle = 120
	// maxTrailNodes is the most nodes a trail's block holds: its links,
	// their wrappers and the marks between them.
	maxTrailNodes = 200
)

// dropTrails removes, under art, the blocks that are a breadcrumb trail:
// links to pages of the site, each a short name, and nothing else but the
// marks between them and, after the last, a mark and the page's own name.
func dropTrails(art *html.Node, page *url.URL) {
	walk(art, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		switch n.DataAtom {
		case atom.Pre, atom.Code, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			return false
		}
		if (blockTag(n) || n.DataAtom == atom.Nav || n.DataAtom == atom.Ol || n.DataAtom == atom.Ul || n.DataAtom == atom.Tr) &&
			trail(n, page) {
			n.Parent.RemoveChild(n)
			return false
		}
		return true
	})
}

// trail reports whether the text of block is a breadcrumb trail.
func trail(block *html.Node, page *url.URL) bool {
	if !holdsAtMost(block, maxTrailNodes) || textUpTo(block, maxTrailText) > maxTrailText {
		return false
	}
	// The text between the links: gaps[i] is before link i, and the last
	// is after the last link.
	var (
		gaps  = []strings.Builder{{}}
		links int
		ok    = true
	)
	walk(block, func(k *html.Node) bool {
		switch {
		case !ok:
			return false
		case k.Type == html.TextNode:
			gaps[len(gaps)-1].WriteString(k.Data)
		case k.DataAtom == atom.Script || k.DataAtom == atom.Style:
			return false
		case k.DataAtom == atom.A:
			name := strings.Fields(textOf(k))
			if _, onSite := resolveOnSite(attr(k, "href"), page); len(name) == 0 || len(name) > maxTrailWords || !onSite {
				ok = false
				return false
			}
			links++
			gaps = append(gaps, strings.Builder{})
			return false
		}
		return true
	})
	if !ok || links < 2 || strings.TrimSpace(gaps[0].String()) != "" {
		return false
	}
	slashes, sections := false, links
	for i := 1; i < len(gaps); i++ {
		gap := strings.TrimSpace(gaps[i].String())
		last := i == len(gaps)-1
		if last && gap == "" {
			break
		}
		mark, rest := trailMark(gap)
		if mark == 0 || !last && rest != "" || last && (rest == "" || len(rest) > maxTrailTitle || strings.ContainsAny(rest, trailArrows)) {
			return false
		}
		slashes = slashes || mark == trailSlash
		if last {
			sections++
		}
	}
	return !slashes || sections >= 3
}

// holdsAtMost reports whether n holds at most limit nodes, reading no
// more than limit + 1 of them.
func holdsAtMost(n *html.Node, limit int) bool {
	count := 0
	var fits func(n *html.Node) bool
	fits = func(n *html.Node) bool {
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if count++; count > limit || !fits(k) {
				return false
			}
		}
		return true
	}
	return fits(n)
}

// trailMark reads the mark that opens gap, the text after a section of a
// trail: the mark, or 0 when it opens with none or mixes several, and the
// text after it.
func trailMark(gap string) (mark rune, rest string) {
	for i, r := range gap {
		switch {
		case unicode.IsSpace(r):
		case strings.ContainsRune(trailArrows, r) || r == trailSlash:
			if mark != 0 && r != mark {
				return 0, ""
			}
			mark = r
		default:
			return mark, strings.TrimSpace(gap[i:])
		}
	}
	return mark, ""
}
