package meta

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Pages that draw themselves with scripts often serve their content a
// second time, as plain markup inside <noscript>, for readers and crawlers
// without scripts: a forum's thread with every post and its poster's
// microdata. A browser with scripts keeps that markup as text, so it is
// parsed here on its own when the rest of the page names no author.

// maxNoscriptViews and maxNoscriptBytes bound the blocks parsed and their
// size: a page may hold many small ones (tracking pixels) and a hostile one
// a huge one.
const (
	maxNoscriptViews = 4
	maxNoscriptBytes = 1 << 20
)

// noscriptViews returns the parsed markup of the body's <noscript> blocks
// that carry microdata, in document order.
func (p *page) noscriptViews() []*goquery.Selection {
	var out []*goquery.Selection
	context := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	p.doc.Find("body noscript").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		raw := s.Text()
		if len(raw) > maxNoscriptBytes || !strings.Contains(raw, "itemprop") {
			return true
		}
		nodes, err := html.ParseFragment(strings.NewReader(raw), context)
		if err != nil || len(nodes) == 0 {
			return true // too deep to parse, or nothing in it
		}
		root := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
		for _, n := range nodes {
			root.AppendChild(n)
		}
		out = append(out, goquery.NewDocumentFromNode(root).Selection)
		return len(out) < maxNoscriptViews
	})
	return out
}

// noscriptAuthors returns the microdata authors of the first <noscript>
// view that names any.
func (p *page) noscriptAuthors() []authorValue {
	for _, view := range p.noscriptViews() {
		if vs := p.microdataAuthorsIn(view); len(vs) > 0 {
			return vs
		}
	}
	return nil
}
