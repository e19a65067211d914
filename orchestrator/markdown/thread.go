package markdown

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A thread is a series of posts of one shape, the opening post first:
// each a block of its own (its author, perhaps a date, then its text),
// siblings of the same tag and class. A story with readers' comments
// under it has the same series, but after the story, which is a block of
// another shape; a thread's series starts where its content starts. Many
// forums declare nothing, or call every page an article, and only this
// shape tells their replies from the comments under a story.

// minThreadShare is the least share of the region's prose that the posts
// of a thread hold together.
const minThreadShare = 0.5

// threadShape reports whether region is a thread: a series of at least
// minRepeats posts holding minThreadShare of its prose, with no more prose
// before the first post than the first post holds (its title, a line of
// breadcrumbs).
func threadShape(region *html.Node) bool {
	total := proseLen(region)
	if total == 0 {
		return false
	}
	var first *html.Node
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		groups := map[string][]*html.Node{}
		var order []string
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if !postShape(k) {
				continue
			}
			key := k.Data + "." + attr(k, "class")
			if groups[key] == nil {
				order = append(order, key)
			}
			groups[key] = append(groups[key], k)
		}
		for _, key := range order {
			g := groups[key]
			if len(g) < minRepeats {
				continue
			}
			prose := 0
			for _, k := range g {
				prose += proseLen(k)
			}
			if float64(prose) >= minThreadShare*float64(total) {
				first = g[0]
				return
			}
		}
		for k := n.FirstChild; k != nil && first == nil; k = k.NextSibling {
			if k.Type == html.ElementNode {
				visit(k)
			}
		}
	}
	visit(region)
	return first != nil && proseBefore(region, first) <= min(proseLen(first), maxProseBeforeThread)
}

// maxProseBeforeThread is the most prose, in bytes, a thread's region
// holds before its first post: a title, a count of replies, a line of
// breadcrumbs. A story before its comments says more.
const maxProseBeforeThread = 200

// postShape reports a block shaped like a post: a container (not a
// paragraph, a list or a table) of at least two blocks, such as the
// author's line and the text, with prose of its own.
func postShape(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	switch n.DataAtom {
	case atom.P, atom.Blockquote, atom.Pre, atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Figure, atom.A, atom.Span,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Img, atom.Picture:
		return false
	}
	// A post says something of its own; a card of a listing is mostly
	// its link.
	if p := proseLen(n); p < minRepeatProse || float64(p) < minRepeatProseShare*float64(collapsedText(n)) {
		return false
	}
	// An excerpt in a listing is headed by its title; a post is not.
	if findFirst(n, func(k *html.Node) bool { return headingLevel(k) > 0 }) != nil {
		return false
	}
	// Wrappers of one block each lead down to the post's parts.
	for depth := 0; depth < maxPostWrappers; depth++ {
		var only *html.Node
		blocks := 0
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if k.Type == html.ElementNode && collapsedText(k) > 0 {
				blocks++
				only = k
			}
		}
		if blocks >= 2 {
			return true
		}
		if blocks == 0 {
			return false
		}
		n = only
	}
	return false
}

// maxPostWrappers is how many wrappers of one block each a post may be
// nested in.
const maxPostWrappers = 4

// proseBefore is the prose of root that comes before the element at in
// document order, outside it.
func proseBefore(root, at *html.Node) int {
	total, done := 0, false
	walk(root, func(k *html.Node) bool {
		switch {
		case done || k == at:
			done = true
			return false
		case k.Type == html.TextNode:
			total += collapsedLen(k.Data)
		case k.DataAtom == atom.A, k.DataAtom == atom.Script, k.DataAtom == atom.Noscript, k.DataAtom == atom.Style:
			return false
		}
		return true
	})
	return total
}
