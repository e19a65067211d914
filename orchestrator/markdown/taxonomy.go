package markdown

import (
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A site files its pages under sections, categories, tags and, on a
// forum, boards; a line that only links to such indexes ("Cafe Society",
// "movies, gatsby", "Tablets & iPads" beside a similar thread) is the
// page's place in the site, not what it says. Their addresses tell them,
// whatever the software: /c/<name>/<number> and /tag/ of Discourse (a
// bare /c/ is some shops' catalogue), /forums/ of
// XenForo, viewforum.php of phpBB, forumdisplay.php of vBulletin,
// /category/ and /tag/ of WordPress.

// taxonomyPathRe matches the path (with its query) of an index of a
// site's sections, categories, tags or boards.
var taxonomyPathRe = regexp.MustCompile(`(?i)^/(?:[^?#]*/)?(?:tag|tags|category|categories|forum|forums|board|boards|subforum)/[^/?#]+|` +
	`^/c/[^/?#]+(?:/[^/?#]+)?/\d+/?(?:$|\?)|(?:viewforum|forumdisplay)\.php|[?&]f=\d+(?:&|$)`)

const (
	// maxTaxonomyLine is the most text, in bytes, of a line of links to
	// indexes: a name or a few.
	maxTaxonomyLine = 80
	// maxTaxonomyShare is the most of the content's text such lines may
	// hold together: more, and the links are the page (an index of a
	// forum's boards).
	maxTaxonomyShare = 0.2
)

// dropTaxonomyLines removes from art the lines that are only links to the
// indexes of page's site (see taxonomyPathRe), unless together they are
// much of art.
func dropTaxonomyLines(art *html.Node, page *url.URL) {
	var lines []*html.Node
	total := 0
	walk(art, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		switch n.DataAtom {
		case atom.Pre, atom.Code, atom.Table, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			return false
		case atom.P, atom.Div, atom.Li, atom.Dd, atom.Span:
			if textUpTo(n, maxTaxonomyLine) <= maxTaxonomyLine && taxonomyLine(n, page) && (n.DataAtom != atom.Span || noTextBeside(n)) {
				lines = append(lines, n)
				total += collapsedText(n)
				return false
			}
		}
		return true
	})
	if len(lines) == 0 || float64(total) > maxTaxonomyShare*float64(collapsedText(art)) {
		return
	}
	for _, n := range lines {
		n.Parent.RemoveChild(n)
	}
}

// taxonomyLine reports an element whose words are all inside links, each
// to an index of page's site, with nothing but separators between them.
func taxonomyLine(n *html.Node, page *url.URL) bool {
	links, ok := 0, true
	walk(n, func(k *html.Node) bool {
		if !ok {
			return false
		}
		switch {
		case k.Type == html.TextNode:
			if strings.IndexFunc(k.Data, wordRune) >= 0 {
				ok = false
			}
		case k.DataAtom == atom.A:
			href := strings.TrimSpace(attr(k, "href"))
			u, err := url.Parse(href)
			if err != nil || page == nil || !otherPageOfSite(href, page) || !taxonomyPathRe.MatchString(u.RequestURI()) ||
				strings.IndexFunc(textOf(k), wordRune) < 0 {
				ok = false
			}
			links++
			return false
		case k.DataAtom == atom.Img, k.DataAtom == atom.Svg:
			return false
		}
		return true
	})
	return ok && links > 0
}
