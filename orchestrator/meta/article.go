package meta

import (
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// Where the article is. Bylines, printed dates and first paragraphs are only
// the article's when read from the article: the rest of a page lists other
// stories with their own authors and dates, and menus link to every writer
// of the site. These helpers find the article's headline and the blocks
// around it, nearest first, and tell the page's furniture (navigation,
// site header and footer, sidebars, menus) apart.

// furnitureTokens are the class and id words of page furniture.
var furnitureTokens = map[string]bool{
	"nav": true, "navbar": true, "navigation": true, "menu": true, "menus": true, "submenu": true,
	"megamenu": true, "dropdown": true, "breadcrumb": true, "breadcrumbs": true, "sidebar": true,
	"footer": true, "topbar": true,
}

// elsewhereTokens are the class and id words of blocks inside the content
// that are about other pages or other people: related and recommended
// stories, comments, quotes.
var elsewhereTokens = map[string]bool{
	"related": true, "recommended": true, "recommendations": true, "recommend": true, "comment": true,
	"comments": true, "quote": true, "pullquote": true, "blockquote": true, "testimonial": true,
	"testimonials": true, "promo": true, "teasers": true, "caption": true, "trending": true,
	"popular": true, "mostread": true, "outbrain": true, "taboola": true, "newsletter": true,
}

// classTokens splits an element's class and id into words (ClassWords).
func classTokens(s *goquery.Selection) []string {
	return ClassWords(s.AttrOr("class", "") + " " + s.AttrOr("id", ""))
}

// ClassWords splits class names and ids into lower-case words at
// punctuation and at camelCase humps: "nr-applet-nav-item" and
// "relatedStories" give "nav" and "related", while "MainCanvas" gives no
// "nav" and "shareholder" no "share".
func ClassWords(raw string) []string {
	var out []string
	var word []rune
	flush := func() {
		if len(word) > 0 {
			out = append(out, strings.ToLower(string(word)))
			word = word[:0]
		}
	}
	var prev rune
	for _, r := range raw {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				flush()
			}
			word = append(word, r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}

func hasClassToken(s *goquery.Selection, words map[string]bool) bool {
	for _, t := range classTokens(s) {
		if words[t] {
			return true
		}
	}
	return false
}

// isFurniture reports an element that is page furniture by its tag, role or
// class: navigation, menus, sidebars, the site's footer, and a header that
// is the site's (outside any article, and not holding the headline).
func isFurniture(s *goquery.Selection) bool {
	switch goquery.NodeName(s) {
	case "footer", "aside":
		// The article's own footer or aside (its byline box, its notes)
		// belongs to it; only the site's are furniture. One left open
		// before the page's main element swallows the page: it holds the
		// main element and is no furniture. An aside inside the main
		// element is a column of the page's (its byline, its date
		// beside the text), not the site's.
		if inHeadlineArticle(s) || s.Find("main, [role=main]").Length() > 0 {
			return false
		}
		return goquery.NodeName(s) == "footer" || s.ParentsFiltered("main, [role=main]").Length() == 0
	case "nav", "menu":
		return true
	case "header":
		return s.Find("h1").Length() == 0 && s.ParentsFiltered("article, main, [role=main]").Length() == 0
	}
	switch strings.ToLower(s.AttrOr("role", "")) {
	case "navigation", "menu", "menubar", "contentinfo", "complementary", "banner":
		return true
	}
	return hasClassToken(s, furnitureTokens) && !holdsHeadline(s)
}

// inHeadlineArticle reports an element inside an <article> that holds an
// <h1>: the article the page is about, not a teaser in a list.
func inHeadlineArticle(s *goquery.Selection) bool {
	a := s.ParentsFiltered("article").First()
	return a.Length() > 0 && holdsHeadline(a)
}

// holdsHeadline reports an element with an <h1> inside: a wrapper of the
// whole page, whatever its class says ("layout has-sidebar",
// "comments-open"), is no furniture.
func holdsHeadline(s *goquery.Selection) bool {
	return s.Find("h1").Length() > 0
}

// isElsewhere reports an element about other pages or other people: related
// stories, comments, quotes, figures.
func isElsewhere(s *goquery.Selection) bool {
	switch goquery.NodeName(s) {
	case "blockquote", "q", "figure", "figcaption", "svg", "script", "style", "noscript", "template":
		return true
	}
	return hasClassToken(s, elsewhereTokens) && !holdsHeadline(s)
}

// outsideArticle reports an element inside page furniture or a block about
// something else, up to (not including) stop. The body's own classes are
// page-wide switches and do not count.
func outsideArticle(s *goquery.Selection, stop *goquery.Selection) bool {
	for e := s; e.Length() > 0; e = e.Parent() {
		if stop != nil && stop.Length() > 0 && e.IsSelection(stop) {
			return false
		}
		switch goquery.NodeName(e) {
		case "body", "html", "#document":
			return false
		}
		if isFurniture(e) || isElsewhere(e) {
			return true
		}
	}
	return false
}

// mainHeading is the page's headline: the first <h1> whose text is the
// page's title (or part of it), else the first <h1> inside the article or
// main element, else the first <h1> outside page furniture. Nil when the page
// has none.
func (p *page) mainHeading() *goquery.Selection {
	if p.headingDone {
		return p.heading
	}
	p.headingDone = true
	title := foldKey(p.meta("og:title", "twitter:title") + " " + p.documentTitle())
	var titled, inArticle, first *goquery.Selection
	p.doc.Find("h1").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		text := foldKey(s.Text())
		if text == "" || outsideArticle(s, nil) || p.isSiteHeading(s, text) {
			return true
		}
		if len(text) >= 8 && strings.Contains(title, text) {
			titled = s
			return false
		}
		if inArticle == nil && s.ParentsFiltered("article, main, [role=main], [itemprop~=articleBody]").Length() > 0 {
			inArticle = s
		}
		if first == nil {
			first = s
		}
		return true
	})
	for _, h := range []*goquery.Selection{titled, inArticle, first} {
		if h != nil {
			p.heading = h
			break
		}
	}
	return p.heading
}

// isSiteHeading reports an <h1> that names the site rather than the page:
// its text is one of the site's names (see siteNames), or it is a short
// link to the site's home page, as a logo is.
func (p *page) isSiteHeading(h *goquery.Selection, folded string) bool {
	for _, name := range p.siteNames("") {
		if folded == name {
			return true
		}
	}
	if len(strings.Fields(cleanText(h.Text()))) > 4 {
		return false
	}
	home := false
	h.Find("a[href]").EachWithBreak(func(_ int, a *goquery.Selection) bool {
		if u, err := p.base.Parse(strings.TrimSpace(a.AttrOr("href", ""))); err == nil &&
			strings.EqualFold(u.Hostname(), p.base.Hostname()) && strings.Trim(u.Path, "/") == "" && u.RawQuery == "" {
			home = true
		}
		return !home
	})
	return home
}

// maxBlocks bounds the blocks articleBlocks climbs through; each is searched
// whole, so a headline under hundreds of wrappers must not cost hundreds of
// searches of the page.
const maxBlocks = 16

// articleBlocks are the blocks an article's byline and date are looked for
// in, nearest the headline first: each ancestor of the headline in turn, up
// to the article or main element that holds it (or the body when none
// does). A page without a headline offers its article or main element, and
// a page without those its body.
func (p *page) articleBlocks() []*goquery.Selection {
	if p.blocksDone {
		return p.blocks
	}
	p.blocksDone = true
	if h := p.mainHeading(); h != nil {
		for e := h.Parent(); e.Length() > 0; e = e.Parent() {
			name := goquery.NodeName(e)
			if name == "html" || name == "#document" {
				break
			}
			if len(p.blocks) == maxBlocks {
				// Wrappers this deep around a headline are a page built to
				// be deep; its body stands for the rest of them.
				if body := p.doc.Find("body").First(); body.Length() > 0 {
					p.blocks = append(p.blocks, body)
				}
				break
			}
			p.blocks = append(p.blocks, e)
			if name == "body" || e.Is("article, main, [role=main]") {
				break
			}
		}
		return p.blocks
	}
	for _, sel := range []string{"article", "[itemprop~=articleBody]", "main", "[role=main]"} {
		var found *goquery.Selection
		p.doc.Find(sel).EachWithBreak(func(_ int, s *goquery.Selection) bool {
			if outsideArticle(s, nil) {
				return true
			}
			found = s
			return false
		})
		if found != nil {
			p.blocks = append(p.blocks, found)
			return p.blocks
		}
	}
	// A page marked up with neither: its body, furniture left out.
	if body := p.doc.Find("body").First(); body.Length() > 0 {
		p.blocks = append(p.blocks, body)
	}
	return p.blocks
}

// spacedText is an element's text with a space at every element boundary,
// so that "By<span>Jane Doe</span>" reads "By Jane Doe". Scripts, styles
// and drawings give no text.
func spacedText(s *goquery.Selection) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			switch n.Data {
			case "script", "style", "noscript", "template", "svg":
				return
			}
			b.WriteByte(' ')
			defer b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range s.Nodes {
		walk(n)
	}
	return cleanText(b.String())
}

// maxBylineDistance is how far from the headline, in characters of text, a
// byline found beyond the headline's own surroundings may stand: bylines are
// printed next to the title, while lists of contributors and writers end
// the page.
const maxBylineDistance = 600

// textDistance is how many characters of text lie between the headline and
// s, in document order; 0 when the page has no headline or s holds it.
func (p *page) textDistance(s *goquery.Selection) int {
	h := p.mainHeading()
	if h == nil || len(s.Nodes) == 0 {
		return 0
	}
	hs, ss := p.textSpan(h.Nodes[0]), p.textSpan(s.Nodes[0])
	switch {
	case ss[0] >= hs[1]:
		return ss[0] - hs[1]
	case ss[1] <= hs[0]:
		return hs[0] - ss[1]
	}
	return 0
}

// textLength is the length of an element's text, in bytes, without
// whitespace at the ends of its text nodes.
func (p *page) textLength(s *goquery.Selection) int {
	if len(s.Nodes) == 0 {
		return 0
	}
	span := p.textSpan(s.Nodes[0])
	return span[1] - span[0]
}

// textSpan is where an element's text starts and ends in the text of the
// whole document, in bytes. One walk over the document finds them all.
func (p *page) textSpan(n *html.Node) [2]int {
	if p.offsets == nil {
		p.offsets = map[*html.Node][2]int{}
		pos := 0
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.TextNode {
				pos += len(strings.TrimSpace(n.Data))
				return
			}
			if n.Type == html.ElementNode {
				switch n.Data {
				case "script", "style", "noscript", "template":
					p.offsets[n] = [2]int{pos, pos}
					return
				}
			}
			start := pos
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
			if n.Type == html.ElementNode {
				p.offsets[n] = [2]int{start, pos}
			}
		}
		for _, n := range p.doc.Nodes {
			walk(n)
		}
	}
	return p.offsets[n]
}
