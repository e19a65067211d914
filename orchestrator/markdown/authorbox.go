package markdown

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/meta"
)

// An author box ("Jane Doe is a staff writer who covers …", with a photo
// and links to her other posts) closes many articles on every page of a
// site: it is about the writer, not the subject, and the answer's
// metadata names the author. It is known by class or id words that pair
// the author with a box, a biography or a profile; "author-info" and
// "card-authors" also name bylines, the signature under a testimonial and
// lists of a paper's authors, and are left alone.

// authorBoxParts are the words that, beside "author", name the box.
var authorBoxParts = map[string]bool{
	"bio": true, "biography": true, "profile": true, "description": true, "desc": true, "box": true,
	"about": true,
}

// authorNames are the words a site calls its writer by: a student paper's
// or a magazine's "contributor", a blog's "writer".
var authorNames = []string{"author", "contributor", "writer"}

// authorBox reports class and id words of an author box: "author-bio",
// "about-author", "authorBox", "entry-author-profile", "contributor-bio".
func authorBox(words []string) bool {
	author, part := false, false
	for _, w := range words {
		if authorBoxParts[w] {
			part = true
			continue
		}
		for _, name := range authorNames {
			switch {
			case w == name:
				author = true
			case strings.HasPrefix(w, name) && authorBoxParts[strings.TrimPrefix(w, name)],
				strings.HasPrefix(w, "about") && strings.TrimPrefix(w, "about") == name:
				return true
			}
		}
	}
	return author && part
}

// minAuthorBioWords is the fewest words, outside links, of an author
// marked up as an item that make it a box about the writer: a byline is a
// name, perhaps a title and a date; a box says who the writer is in a
// sentence or two.
const minAuthorBioWords = 25

// authorCard reports the author of the page's work marked up as an item of
// its own (itemprop="author" with itemscope, a Person), which is how
// author box plugins draw the box whatever their class ("saboxplugin-wrap",
// "abh_tab"), when it says more than a byline does.
func authorCard(n *html.Node) bool {
	if !hasAttr(n, "itemscope") || !meta.HasToken(attr(n, "itemprop"), "author") {
		return false
	}
	words := 0
	walk(n, func(k *html.Node) bool {
		if k.Type == html.TextNode {
			words += countWords(k.Data)
		}
		switch k.DataAtom {
		case atom.A, atom.Script, atom.Style, atom.Noscript:
			return false
		}
		return words < minAuthorBioWords
	})
	return words >= minAuthorBioWords
}

// maxAuthorCardShare is the most of the page's text such a box may hold:
// its markup says what it is, so it may be larger than furniture known by
// its class words (a short post's three paragraphs about its writer), but
// not the page.
const maxAuthorCardShare = 0.3

// An author box may be named for nothing ("bio-box", a page builder's
// hashed "PersonalCard_wrapper__0FFRY") and still say what it is in its
// first words: "Written by", "About the author", over the writer's name,
// title and a line or two about them.

// authorLabelRe is the whole text of the label that opens such a box.
var authorLabelRe = regexp.MustCompile(`(?i)^(?:written\s+by|about\s+the\s+(?:author|writer)s?|meet\s+the\s+(?:author|writer)s?)\s*:?$`)

// maxLabelledAuthorBox is the most text, in bytes, of a box its label
// calls the writer's: a name, a title and a few lines.
const maxLabelledAuthorBox = 1200

// dropLabelledAuthorBoxes removes under art the boxes that open with the
// label of an author box and say more than it (the name, at least): the
// largest block whose first words are the label that holds less than half
// of art's text (a short post under a byline of that label is no box).
func dropLabelledAuthorBoxes(art *html.Node) {
	var labels []*html.Node
	walk(art, func(n *html.Node) bool {
		switch {
		case n.Type == html.TextNode:
			// The label stands as an element of its own: "Written by
			// <a>Ana</a>" in a paragraph is a sentence.
			if t := strings.Join(strings.Fields(n.Data), " "); len(t) <= 40 && authorLabelRe.MatchString(t) && flatTextUpTo(n.Parent, 2*len(t)) == t {
				labels = append(labels, n)
			}
			return false
		case n.Type != html.ElementNode:
			return false
		}
		switch n.DataAtom {
		case atom.Pre, atom.Code, atom.Table, atom.Blockquote, atom.Script, atom.Style:
			return false
		}
		return true
	})
	if len(labels) == 0 {
		return
	}
	lengths, first := textLengths(art), firstTexts(art)
	limit := min(maxLabelledAuthorBox, (lengths[art]-1)/2)
	for _, label := range labels {
		var box *html.Node
		for a := label.Parent; a != nil && a != art; a = a.Parent {
			if first[a] != label || lengths[a] > limit {
				break
			}
			box = a
		}
		if box == nil || box.Parent == nil || wordsUpTo(box, 1+countWords(label.Data)) <= countWords(label.Data) {
			continue
		}
		box.Parent.RemoveChild(box)
	}
}

// firstTexts maps every element under root to the first text under it
// that is not all white space, of the text textLengths counts; nil for
// none.
func firstTexts(root *html.Node) map[*html.Node]*html.Node {
	first := map[*html.Node]*html.Node{}
	var find func(n *html.Node) *html.Node
	find = func(n *html.Node) *html.Node {
		switch {
		case n.Type == html.TextNode:
			if strings.TrimSpace(n.Data) != "" {
				return n
			}
			return nil
		case n.DataAtom == atom.Head || n.DataAtom == atom.Script || n.DataAtom == atom.Noscript ||
			n.DataAtom == atom.Style || n.DataAtom == atom.Template:
			return nil
		}
		var found *html.Node
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if t := find(k); found == nil {
				found = t
			}
		}
		if n.Type == html.ElementNode {
			first[n] = found
		}
		return found
	}
	find(root)
	return first
}
