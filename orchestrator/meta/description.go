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
// first paragraph of the article text. A news agency dateline ("NEW YORK —")
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
// prose, inside the article or main element; a page that marks neither has
// no text worth quoting as its description.
func (p *page) firstParagraph() string {
	for _, scope := range []string{"[itemprop~=articleBody]", "article", "main", "[role=main]"} {
		found := ""
		p.doc.Find(scope).First().Find("p").EachWithBreak(func(_ int, s *goquery.Selection) bool {
			if s.ParentsFiltered("header, footer, nav, aside, form, figure, blockquote").Length() > 0 {
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
