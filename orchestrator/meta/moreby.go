package meta

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// "All articles by …": a post's page links to the other posts of its
// writer, and the link says whose they are ("All articles by Jane Roe",
// "More posts from Jane Roe", "View all posts by Jane Roe"), in its text
// or in the label a screen reader reads. One name there is the writer; a
// page that links to the posts of several people (a blog's index, a team
// page) names no writer of its own by it.

// moreByRe is the whole text of such a link, with the name last.
var moreByRe = regexp.MustCompile(`(?i)^(?:view |see |read |browse |show |explore )?(?:all |more )?(?:of )?(?:the )?` +
	`(?:articles|posts|blog posts|stories|entries|insights|columns|writing|publications|content) ` +
	`(?:by|from|written by) (.{3,60}?)\s*[»›→>)]?$`)

// maxMoreByElements bounds the links and buttons read for such a label,
// and maxMoreByText the text read of each.
const (
	maxMoreByElements = 3000
	maxMoreByText     = 120
)

// moreByNames returns the one writer the page's "all articles by" links
// name; none when they name several, or nobody.
func (p *page) moreByNames() []authorValue {
	var name string
	several := false
	p.doc.Find("a, button").EachWithBreak(func(i int, s *goquery.Selection) bool {
		own, whole := boundedText(s.Nodes[0], 4*maxMoreByText)
		if !whole {
			own = "" // a link around a block, not a label
		}
		for _, text := range []string{s.AttrOr("aria-label", ""), s.AttrOr("title", ""), own} {
			text = strings.Join(strings.Fields(text), " ")
			if len(text) > maxMoreByText {
				continue
			}
			m := moreByRe.FindStringSubmatch(text)
			if m == nil || !looksLikeName(m[1], false) {
				continue
			}
			switch {
			case name == "":
				name = m[1]
			case foldKey(name) != foldKey(m[1]):
				several = true
				return false
			}
		}
		return i < maxMoreByElements
	})
	if name == "" || several {
		return nil
	}
	return []authorValue{{text: name, printed: true}}
}

// A label over a name: a box that heads the writer's name with a label of
// its own ("Article by", "Written by", "About the author") in the element
// before it, with nothing in the markup naming either as a byline. The
// name is the next element's whole text, or, under "About the author", the
// name a short biography opens with ("Jane Roe is a writer …").

// nameLabels are such labels, folded to lower case, their colon cut.
var nameLabels = map[string]bool{
	"article by": true, "written by": true, "posted by": true, "authored by": true, "post by": true,
	"story by": true, "words by": true, "author": true, "the author": true, "about the author": true,
	"contributor": true, "contributors": true, "contributed by": true,
	"about the writer": true, "geschrieben von": true, "écrit par": true, "escrito por": true, "scritto da": true,
}

// inlineByLabels open a line that names the author after them; "posted
// by" is left out, as every comment's line reads so.
var inlineByLabels = []string{"written by", "article by", "authored by", "story by", "words by", "contributed by",
	"author:", "authors:", "contributor:", "contributors:"}

// inlineLabelledName is the name in a line that is a label and a name,
// "Written by Jane Roe".
func inlineLabelledName(line string) (string, bool) {
	for _, l := range inlineByLabels {
		if len(line) > len(l)+1 && line[len(l)] == ' ' && strings.EqualFold(line[:len(l)], l) {
			if name := strings.Trim(line[len(l):], " :."); looksLikeName(name, false) {
				return name, true
			}
		}
	}
	return "", false
}

// bioOpeningRe is the name a biography opens with: two to four
// capitalised words, then the verb that starts the sentence about them.
var bioOpeningRe = regexp.MustCompile(`^((?:\p{Lu}[\p{L}'’.-]*\s+){1,3}\p{Lu}[\p{L}'’-]+)(?:,\s+[^,]{1,60},)?\s+(?:is|was|has|writes|works|leads|covers|joined)\b`)

// maxLabelElements bounds the elements read for such a label, maxLabelText
// the text of a label, and maxBioOpening what is read of the element after
// it.
const (
	maxLabelElements = 5000
	maxLabelText     = 40
	maxBioOpening    = 200
)

// labelledNames returns the first name a label heads.
func (p *page) labelledNames() []authorValue {
	var out []authorValue
	p.doc.Find("h2, h3, h4, h5, h6, p, span, div, dt, strong, b").EachWithBreak(func(i int, s *goquery.Selection) bool {
		if i >= maxLabelElements {
			return false
		}
		if s.Children().Length() > 1 {
			return true
		}
		own, short := boundedText(s.Nodes[0], maxLabelText)
		if !short {
			return true
		}
		label := strings.ToLower(strings.Trim(strings.Join(strings.Fields(own), " "), " :"))
		if !nameLabels[label] {
			// The label and the name in one line: "Written by Jane Roe"
			// heading a box about the author.
			if name, ok := inlineLabelledName(strings.Join(strings.Fields(own), " ")); ok && !outsideArticle(s, nil) {
				out = append(out, authorValue{text: name, printed: true})
				return false
			}
			return true
		}
		next := s.Next()
		if next.Length() == 0 {
			return true
		}
		// The name alone, or the opening of a biography.
		opening, whole := boundedText(next.Nodes[0], maxBioOpening)
		text := strings.Join(strings.Fields(opening), " ")
		switch {
		case whole && len(text) <= 60 && looksLikeName(text, false):
			out = append(out, authorValue{text: text, printed: true})
			return false
		case strings.HasPrefix(label, "about the"):
			if m := bioOpeningRe.FindStringSubmatch(text); m != nil && looksLikeName(m[1], false) {
				out = append(out, authorValue{text: m[1], printed: true})
				return false
			}
		}
		return true
	})
	return out
}

// boundedText is the text under n, each run of white space and each edge
// of a block one space, up to about limit bytes, and whether that is all
// of it: a large block is read no further than its start.
func boundedText(n *html.Node, limit int) (string, bool) {
	var b strings.Builder
	whole := true
	space := func() {
		if b.Len() > 0 && b.String()[b.Len()-1] != ' ' {
			b.WriteByte(' ')
		}
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for k := n.FirstChild; k != nil && whole; k = k.NextSibling {
			switch k.Type {
			case html.TextNode:
				for i, w := range strings.Fields(k.Data) {
					if i > 0 || b.Len() > 0 && strings.IndexFunc(k.Data[:1], unicode.IsSpace) == 0 {
						b.WriteByte(' ')
					}
					b.WriteString(w)
				}
				if len(k.Data) > 0 && unicode.IsSpace(rune(k.Data[len(k.Data)-1])) && b.Len() > 0 {
					b.WriteByte(' ')
				}
				if b.Len() > limit {
					whole = false
				}
			case html.ElementNode:
				if k.DataAtom == atom.Script || k.DataAtom == atom.Style {
					continue
				}
				// Blocks are apart on the page however the markup runs them
				// together: <p>Written by</p><p>Jane Roe</p>.
				block := blockTags[k.Data] || k.DataAtom == atom.Br
				if block {
					space()
				}
				walk(k)
				if block {
					space()
				}
			}
		}
	}
	walk(n)
	return b.String(), whole
}
