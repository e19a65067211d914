package markdown

import (
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// skipLinkRe matches the text of the links a page offers to move about
// itself: "Skip to main content", "Jump to recipe", "Back to top", "Go to
// footer". They are the page's controls, not its words.
var skipLinkRe = regexp.MustCompile(`(?i)^(?:skip|jump|go|back|return|scroll)\s+(?:back\s+)?(?:to|navigation|nav)\b`)

// maxSkipLinkWords is the most words such a link has.
const maxSkipLinkWords = 6

// skipLink reports a link to a place on this very page whose text is
// one of the page's controls for moving about it, standing apart from any
// sentence ("readers can skip to the results" is prose).
func skipLink(a *html.Node, href string, pageURL, base *url.URL) bool {
	text := strings.Join(strings.Fields(textOf(a)), " ")
	if countWords(text) > maxSkipLinkWords || !skipLinkRe.MatchString(text) {
		return false
	}
	for k := a.Parent.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.TextNode && countWords(k.Data) > 0 {
			return false
		}
	}
	u, err := url.Parse(href)
	if err != nil || u.Fragment == "" && !strings.HasSuffix(href, "#") {
		return false
	}
	u.Fragment, u.RawFragment = "", ""
	here := strings.TrimSuffix(u.String(), "#")
	return here == withoutFragment(pageURL) || here == withoutFragment(base)
}
