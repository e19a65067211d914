package meta

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// description returns the page's description. Sources, most specific first:
// og:description; twitter:description; <meta name=description>; the main
// JSON-LD item's description; Dublin Core and sailthru descriptions;
// microdata and RDFa description; the main JSON-LD item's articleBody; the
// first paragraph of the article text (see firstParagraph). A news agency dateline ("NEW YORK —")
// is dropped, "..." becomes "…", and long text is cut at a word boundary
// (see DescriptionLimit).
func (p *page) description() string {
	sources := []func() string{
		func() string { return p.meta("og:description") },
		func() string { return p.meta("twitter:description") },
		func() string { return p.meta("description") },
		func() string { return p.ldProp(kindPage, "description") },
		func() string {
			return p.meta("dc.description", "dcterms.description", "dcterms.abstract", "sailthru.description")
		},
		func() string { return p.microdata("description") },
		func() string { return p.ldProp(kindArticle, "articleBody") },
		p.firstParagraph,
	}
	for _, source := range sources {
		if d := normDescription(source()); d != "" {
			return d
		}
	}
	return ""
}

// datelineRe matches the dateline news agencies open a story with: "NEW
// YORK — ", "SAN FRANCISCO (Reuters) - ".
var datelineRe = regexp.MustCompile(`^[A-Z][A-Z.,'’ ]{4,40}(?:\s*\([A-Za-z .]{2,20}\))?\s+[-—–]\s+`)

func normDescription(s string) string {
	s = cleanText(s)
	if rest := datelineRe.ReplaceAllString(s, ""); foldKey(rest) != "" {
		s = rest // a preview shows the story, not where it was filed
	}
	if foldKey(s) == "" {
		return ""
	}
	s = smartQuotes(s)
	if strings.HasSuffix(s, "...") {
		s = strings.TrimRight(strings.TrimSuffix(s, "..."), " ") + "…"
	}
	return Truncate(s, DescriptionLimit)
}

// firstParagraph is the first paragraph of the article text that reads like
// prose, inside the article body, the article or main element, or else the
// block whose class or id says it holds the content (see contentBlock). A
// page that marks none of them has no text worth quoting as its
// description. Cookie banners, newsletter boxes and page furniture are
// skipped wherever they sit.
func (p *page) firstParagraph() string {
	var scopes []*goquery.Selection
	for _, sel := range []string{"[itemprop~=articleBody]", "article", "main", "[role=main]"} {
		scopes = append(scopes, p.doc.Find(sel).First())
	}
	if block := p.contentBlock(); block != nil {
		scopes = append(scopes, block)
	}
	for _, scope := range scopes {
		found := ""
		scope.Find("p").EachWithBreak(func(_ int, s *goquery.Selection) bool {
			if s.ParentsFiltered("header, footer, nav, aside, form, figure, blockquote").Length() > 0 || notProse(s, scope) {
				return true
			}
			if t := cleanText(s.Text()); len([]rune(t)) >= 80 && strings.Count(t, " ") >= 8 {
				found = t
				return false
			}
			return true
		})
		if found != "" {
			return found
		}
	}
	return ""
}

// contentWords are the class and id words of the block that holds a page's
// text.
var contentWords = map[string]bool{"article": true, "content": true, "post": true, "entry": true, "story": true}

// noticeWords are the class and id words of the boxes a page lays over or
// between its text: cookie and consent banners, sign-up and paywall boxes,
// advertisements.
var noticeWords = map[string]bool{
	"cookie": true, "cookies": true, "consent": true, "gdpr": true, "banner": true, "newsletter": true,
	"subscribe": true, "subscription": true, "signup": true, "paywall": true, "promo": true, "advert": true,
	"advertisement": true, "ad": true, "ads": true, "sponsor": true, "sponsored": true, "modal": true, "popup": true,
}

// notProse reports a paragraph inside page furniture or a notice box, up to
// scope.
func notProse(s, scope *goquery.Selection) bool {
	for e := s; e.Length() > 0 && !e.IsSelection(scope); e = e.Parent() {
		if goquery.NodeName(e) == "body" {
			break
		}
		if isFurniture(e) || hasClassToken(e, noticeWords) {
			return true
		}
	}
	return false
}

// contentBlock is the block whose class or id says article, content, post,
// entry or story and that holds the most paragraph text, outside page
// furniture and notice boxes; nil when no such block holds any.
func (p *page) contentBlock() *goquery.Selection {
	var best *goquery.Selection
	bestLen := 0
	p.doc.Find("div, section, td").Each(func(_ int, s *goquery.Selection) {
		if !hasClassToken(s, contentWords) {
			return
		}
		n := 0
		s.Find("p").Each(func(_ int, para *goquery.Selection) { n += p.textLength(para) })
		if n > bestLen && !notProse(s, p.doc.Find("body")) {
			best, bestLen = s, n
		}
	})
	return best
}
