package meta

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
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

// maxMoreByElements bounds the links and buttons read for such a label.
const maxMoreByElements = 3000

// moreByNames returns the one writer the page's "all articles by" links
// name; none when they name several, or nobody.
func (p *page) moreByNames() []authorValue {
	var name string
	several := false
	p.doc.Find("a, button").EachWithBreak(func(i int, s *goquery.Selection) bool {
		for _, text := range []string{s.AttrOr("aria-label", ""), s.AttrOr("title", ""), s.Text()} {
			text = strings.Join(strings.Fields(text), " ")
			if len(text) > 120 {
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
