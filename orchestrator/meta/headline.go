package meta

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// The declared title and the visible headline. Microlink's title is the
// one the publisher declares for shares and search (og:title, <title>), and
// most pages declare their headline there, with a site name around it. Some
// declare something else: a share title rewritten for clicks, an SEO title
// with its keywords, a category name. The rules here say when the headline
// readers see, the page's <h1>, is the better answer:
//   - the page's one JSON-LD article, or its microdata, gives the same
//     headline: the page itself says which of its titles is the headline;
//   - the page is an article whose declared titles disagree with each
//     other, and the headline is not a rewording of the one chosen: the
//     publisher wrote titles for several places, and the visible one is the
//     article's own;
//   - the declared title is the headline with search keywords after it
//     (", Tested & Reviewed", "[2025]: Costs and Fees", " Archives");
//   - the declared title is the start of the headline, shortened for
//     search results or cut at a length ("Networking" for "Networking in
//     Compose", "How to set up your k…");
//   - the page is an article whose headline is on the declared title's
//     subject (see onTopic) without rewording it: the headline is written
//     for the article's readers, the declared title for search.
// A declared title that carries the headline whole, with a site name or a
// section around it, stays as declared.

// headline is the text of the page's main heading (see mainHeading), as a
// reader sees it; "" when the page has none.
func (p *page) headline() string {
	h := p.mainHeading()
	if h == nil {
		return ""
	}
	return headingText(h)
}

// headingText is the visible text of a heading: the titles of drawings, a
// permalink anchor ("¶", "#"), scripts and styles give none, and a line
// break or a block inside it separates words. A <time> beside the words
// is the heading's date, printed with it, and no part of them.
func headingText(s *goquery.Selection) string {
	if t := headingWords(s, true); foldKey(t) != "" {
		return t
	}
	return headingWords(s, false)
}

// headingWords is headingText, without the heading's <time> elements when
// undated is set.
func headingWords(s *goquery.Selection, undated bool) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			switch n.Data {
			case "svg", "script", "style", "noscript", "template", "button":
				return
			case "time":
				if undated {
					b.WriteByte(' ')
					return
				}
			case "br", "div", "p", "li":
				b.WriteByte(' ')
				defer b.WriteByte(' ')
			case "a":
				if isPermalink(n) {
					return
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range s.Nodes {
		walk(n)
	}
	return strings.TrimRightFunc(cleanText(b.String()), func(r rune) bool {
		return r == '¶' || r == '§' || unicode.IsSpace(r)
	})
}

// isPermalink reports a link to a heading's own anchor that shows only a
// mark: Sphinx's "¶", a "#", a link icon.
func isPermalink(n *html.Node) bool {
	text := ""
	var collect func(n *html.Node)
	collect = func(n *html.Node) {
		if n.Type == html.TextNode {
			text += n.Data
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			collect(c)
		}
	}
	collect(n)
	if foldKey(text) != "" {
		return false
	}
	for _, a := range n.Attr {
		if a.Key == "href" && strings.HasPrefix(strings.TrimSpace(a.Val), "#") {
			return true
		}
	}
	return strings.TrimSpace(text) != ""
}

// headlineOver returns the page's headline when it, rather than the
// declared title, is the page's title (see above); "" when the declared
// title stands.
func (p *page) headlineOver(declared, publisher string) string {
	h := p.headline()
	hk, dk := foldKey(h), foldKey(declared)
	if hk == "" || dk == "" || hk == dk || strings.HasSuffix(h, ":") {
		return "" // a heading ending in a colon introduces what follows it
	}
	if keywordTail(declared, h) || extendsTitle(stripSiteSuffix(declared, publisher, p.url), h) {
		return h
	}
	if strings.Contains(dk, hk) {
		return "" // the headline, with a site name or a section around it
	}
	if p.confirmsHeadline(hk) {
		return h
	}
	if len(strings.Fields(h)) >= 4 && p.isArticle() && !sameWords(declared, h) && p.declaredTitles(publisher) > 1 {
		return h
	}
	if bare := stripSiteSuffix(declared, publisher, p.url); p.isArticle() && onTopic(bare, h) && !sameWords(bare, h) {
		return h
	}
	return ""
}

// onTopic reports a headline about what the declared title is about: at
// least two of its words, and half of them, are the title's too (words
// compared as in sameWords; numbers and the commonest English words do not
// count).
func onTopic(declared, headline string) bool {
	h, d := topicWords(headline), topicWords(declared)
	shared := 0
	for w := range h {
		if d[w] {
			shared++
		}
	}
	return shared >= 2 && 2*shared >= len(h)
}

// topicWords are the word stems of s (see wordStems) that say what it is
// about.
func topicWords(s string) map[string]bool {
	out := wordStems(s)
	for w := range out {
		if commonWords[w] || strings.IndexFunc(w, isLetter) < 0 {
			delete(out, w)
		}
	}
	return out
}

// commonWords are English words, as stems (see wordStems), that say
// nothing of a title's subject.
var commonWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "of": true, "to": true, "in": true,
	"on": true, "for": true, "with": true, "by": true, "at": true, "from": true, "is": true, "are": true,
	"how": true, "what": true, "why": true, "your": true, "you": true, "our": true, "we": true, "it": true,
	"its": true, "this": true, "that": true, "new": true, "best": true, "top": true, "guid": true,
}

// confirmsHeadline reports a headline (folded) that the page's structured
// data gives too: the headline of its JSON-LD article, when it describes
// one article and not a list of them, or its microdata headline.
func (p *page) confirmsHeadline(folded string) bool {
	var headlines []string
	for _, n := range p.ld.nodesUpTo(kindArticle) {
		if s := foldKey(p.ld.ldText(n["headline"])); s != "" {
			headlines = append(headlines, s)
		}
	}
	if len(headlines) == 1 && headlines[0] == folded {
		return true
	}
	return foldKey(p.microdata("headline")) == folded
}

// isArticle reports a page that says it is an article: og:type article, or
// a JSON-LD article with a headline.
func (p *page) isArticle() bool {
	if strings.EqualFold(strings.TrimSpace(p.meta("og:type")), "article") {
		return true
	}
	for _, n := range p.ld.nodesUpTo(kindArticle) {
		if strings.TrimSpace(p.ld.ldText(n["headline"])) != "" {
			return true
		}
	}
	return false
}

// declaredTitles counts the different titles the page declares: for shares,
// in JSON-LD, in Dublin Core and the like, and in <title>, each without a
// site name after it ("Story | Site" and "Story" are one title).
func (p *page) declaredTitles(publisher string) int {
	seen := map[string]bool{}
	for _, s := range []string{
		p.meta("og:title"), p.meta("twitter:title"), p.ldTitle(),
		p.meta("dc.title", "dcterms.title", "citation_title", "parsely-title", "sailthru.title", "title"),
		p.documentTitle(),
	} {
		if k := foldKey(stripSiteSuffix(cleanText(s), publisher, p.url)); k != "" {
			seen[k] = true
		}
	}
	return len(seen)
}

// sameWords reports two titles that are rewordings of each other: at least
// 70% of their words are shared, a word compared by its first four letters
// so that inflections ("observations", "observation") match.
func sameWords(a, b string) bool {
	wa, wb := wordStems(a), wordStems(b)
	shared := 0
	for w := range wa {
		if wb[w] {
			shared++
		}
	}
	all := len(wa) + len(wb) - shared
	return all > 0 && 10*shared >= 7*all
}

func wordStems(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !isLetter(r) && !unicode.IsDigit(r) }) {
		if r := []rune(w); len(r) > 4 {
			w = string(r[:4])
		}
		out[w] = true
	}
	return out
}

// yearTailRe is a year in brackets, as search titles add it: "[2025]".
var yearTailRe = regexp.MustCompile(`^\s*[\[(]\s*(?:19|20)\d\d\s*[\])]`)

// keywordTail reports a declared title that is the headline followed by
// search keywords rather than a site name: ", Tested & Reviewed", a
// bracketed year, or the " Archives" a blog adds to a category's name.
func keywordTail(declared, headline string) bool {
	h := strings.TrimRightFunc(headline, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("?!.", r) })
	if len(strings.Fields(h)) < 2 || len(declared) <= len(h) || !strings.EqualFold(declared[:len(h)], h) {
		return false
	}
	tail := declared[len(h):]
	return strings.HasPrefix(tail, ", ") || yearTailRe.MatchString(tail) ||
		strings.EqualFold(strings.TrimSpace(tail), "archives")
}

// bracketedRe finds a bracketed aside: "(example.com)", "[video]".
var bracketedRe = regexp.MustCompile(`\([^()]*\)|\[[^\[\]]*\]`)

// extendsTitle reports a headline that begins with the whole of a declared
// title (site name and a closing ellipsis taken off) and goes on in words:
// the declared one is the headline shortened. What a headline adds only in
// brackets or numbers ("(example.com) 87", a source and a comment count)
// does not make it longer.
func extendsTitle(declared, headline string) bool {
	d := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(declared), "…"), "...")
	dk := foldKey(d)
	if dk == "" || !strings.HasPrefix(foldKey(headline), dk) {
		return false
	}
	rest := afterFolded(headline, len(dk))
	return strings.IndexFunc(bracketedRe.ReplaceAllString(rest, ""), isLetter) >= 0
}

// afterFolded is what follows the part of s whose folded form (foldKey) is
// n bytes long.
func afterFolded(s string, n int) string {
	seen := 0
	for i, r := range s {
		if seen >= n {
			return s[i:]
		}
		seen += len(foldKey(string(r)))
	}
	return ""
}
