package markdown

import (
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skipLinkRe matches the text of the links a page offers to move about
// itself: "Skip to main content", "Jump to recipe", "Back to top", "Go to
// footer", and the links past each of its blocks that some content
// systems print, "Skip Course introduction and Topic navigation block".
// They are the page's controls, not its words.
var skipLinkRe = regexp.MustCompile(`(?i)^(?:skip|jump|go|back|return|scroll)\s+(?:back\s+)?(?:to|navigation|nav)\b|^skip\s.*\bblock$`)

// maxSkipLinkWords is the most words such a link has.
const maxSkipLinkWords = 10

// skipLink reports a link to a place on this very page whose text is
// one of the page's controls for moving about it, standing apart from any
// sentence ("readers can skip to the results" is prose).
func skipLink(a *html.Node, href string, pageURL, base *url.URL) bool {
	text := flatText(a)
	if countWords(text) > maxSkipLinkWords || !skipLinkRe.MatchString(text) {
		return false
	}
	return standsApart(a) && withinPage(href, pageURL, base)
}

// standsApart reports a link with no words of a sentence beside it in its
// parent.
func standsApart(a *html.Node) bool {
	for k := a.Parent.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.TextNode && countWords(k.Data) > 0 {
			return false
		}
	}
	return true
}

// withinPage reports an address of a place on this very page: its
// fragment, or a bare "#".
func withinPage(href string, pageURL, base *url.URL) bool {
	u, err := url.Parse(href)
	if err != nil || u.Fragment == "" && !strings.HasSuffix(href, "#") {
		return false
	}
	u.Fragment, u.RawFragment = "", ""
	here := strings.TrimSuffix(u.String(), "#")
	return here == withoutFragment(pageURL) || here == withoutFragment(base)
}

// minRepeatedControls is how many times a page repeats a link to a place
// on itself, word for word, for the link to be one of its controls.
const minRepeatedControls = 3

// markedUp reports a link set apart as more than a control: a footnote's
// marker (in <sup>, where a source cited thrice is marked thrice), a title
// in bold or a heading.
func markedUp(a *html.Node) bool {
	for p := a.Parent; p != nil && p.Type == html.ElementNode; p = p.Parent {
		if p.DataAtom == atom.Sup || headingLevel(p) > 0 {
			return true
		}
		if blockLevel(p) {
			break
		}
	}
	return findFirst(a, func(k *html.Node) bool {
		return k.DataAtom == atom.Strong || k.DataAtom == atom.B || k.DataAtom == atom.Sup || headingLevel(k) > 0
	}) != nil
}

// repeatedPageControls finds the links to a place on this very page that
// the page repeats with the same words and the same target, each standing
// apart from any sentence: "map" beside every restaurant of a guide, all
// leading to #map, "Read more" on every card, leading to "#" for a script
// to open it. Each is a control of the page, and said once per item it is
// noise in the text. A table of contents and footnotes lead to places of
// their own, each once; a footnote's marker and a title in bold or a
// heading are no controls (see markedUp).
func repeatedPageControls(elems []*html.Node, pageURL, base *url.URL) map[*html.Node]bool {
	type key struct{ text, href string }
	groups := map[key][]*html.Node{}
	for _, n := range elems {
		if n.DataAtom != atom.A || n.Parent == nil {
			continue
		}
		raw := strings.TrimSpace(attr(n, "href"))
		href := resolve(base, raw)
		text := strings.ToLower(flatText(n))
		here := strings.HasPrefix(raw, "#") || withinPage(href, pageURL, base)
		if text == "" || countWords(text) > maxSkipLinkWords || !here || !standsApart(n) || markedUp(n) {
			continue
		}
		k := key{text, href}
		groups[k] = append(groups[k], n)
	}
	var out map[*html.Node]bool
	for _, links := range groups {
		if len(links) < minRepeatedControls {
			continue
		}
		if out == nil {
			out = map[*html.Node]bool{}
		}
		for _, n := range links {
			out[n] = true
		}
	}
	return out
}
