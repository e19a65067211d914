package meta

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// date returns when the page was last published, as Microlink reports it:
// the modification date when the page gives one, else the publication date.
// Sources, most specific first:
//   - modified: JSON-LD dateModified; article:modified_time, og:updated_time
//     and the like; microdata dateModified;
//   - published: JSON-LD datePublished, dateCreated, uploadDate;
//     article:published_time and the like; microdata datePublished;
//     citation_publication_date, Dublin Core dates, parsely-pub-date,
//     sailthru.date, <meta name=date|pubdate|publish-date>;
//   - <time datetime> (inside the article first);
//   - visible dates in the article: bylines, post meta lines and elements
//     whose class or id says date, time or publish;
//   - a /2026/11/20/ path in the canonical or final URL;
//   - visible dates anywhere in the page.
func (p *page) date() string {
	sources := []func() []string{
		func() []string { return p.ldDates("dateModified") },
		func() []string {
			return p.metaMatching(func(k string) bool {
				return strings.Contains(k, "modified_time") || strings.Contains(k, "updated_time") ||
					k == "last-modified" || k == "lastmod" || k == "dcterms.modified" || k == "article:modified"
			})
		},
		func() []string { return p.itempropDates("dateModified") },
		func() []string { return p.ldDates("datePublished", "dateCreated", "uploadDate", "startDate") },
		func() []string {
			return p.metaMatching(func(k string) bool {
				return strings.Contains(k, "published_time") || strings.Contains(k, "release_date") ||
					strings.HasSuffix(k, "publication_date") || k == "article:published"
			})
		},
		func() []string { return p.itempropDates("datePublished", "dateCreated", "uploadDate") },
		func() []string {
			return p.metaEach("citation_publication_date", "citation_date", "citation_online_date",
				"dc.date.issued", "dcterms.issued", "dc.date", "dcterms.date", "dcterms.created", "dc.date.created",
				"parsely-pub-date", "sailthru.date", "date", "pubdate", "publish-date", "publishdate", "publish_date",
				"original-publish-date", "article.published", "datepublished", "displaydate")
		},
		func() []string { return p.itempropDates("date") },
		p.timeElements,
		func() []string { return p.visibleDates("article, main, [role=main], [itemprop~=articleBody]") },
		p.urlDates,
		func() []string { return p.visibleDates("body") },
	}
	for _, source := range sources {
		for _, raw := range source() {
			if t, ok := ParseDate(raw, p.now); ok {
				return FormatDate(t)
			}
		}
	}
	return ""
}

// ldDates returns the values of props that the main JSON-LD items carry:
// every item's first prop, then every item's second, and so on.
func (p *page) ldDates(props ...string) []string {
	var out []string
	for _, prop := range props {
		for _, n := range p.ld.nodesUpTo(kindPage) {
			if s := p.ld.ldText(n[prop]); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// itempropDates reads microdata and RDFa dates: content, datetime or title
// attributes, else the text.
func (p *page) itempropDates(props ...string) []string {
	var out []string
	for _, prop := range props {
		p.doc.Find("[itemprop], [property]").Each(func(_ int, s *goquery.Selection) {
			if !isItemProp(s, prop) {
				return
			}
			for _, attr := range []string{"content", "datetime", "title"} {
				if v, ok := s.Attr(attr); ok && strings.TrimSpace(v) != "" {
					out = append(out, v)
					return
				}
			}
			out = append(out, s.Text())
		})
	}
	return out
}

// timeElements returns <time datetime> values, those inside the article
// first: a page lists many dates (comments, related stories), the article's
// own comes first within it. Other elements with a datetime attribute
// (<relative-time>, <time-ago>) come last.
func (p *page) timeElements() []string {
	var out []string
	for _, sel := range []string{"article time[datetime]", "main time[datetime]", "time[datetime]", "[datetime]"} {
		p.doc.Find(sel).Each(func(_ int, s *goquery.Selection) {
			out = append(out, s.AttrOr("datetime", ""))
		})
	}
	return out
}

// visibleDates returns the text of bylines, post meta lines and elements
// named for dates inside scope, for pages whose only date is the one printed
// for readers.
func (p *page) visibleDates(scope string) []string {
	var out []string
	sel := `[class*="byline" i], [class*="publish" i], [class*="posted" i], [class*="meta" i], [id*="date" i], [class*="date" i], [class*="time" i], time`
	p.doc.Find(scope).Find(sel).Each(func(_ int, s *goquery.Selection) {
		if len(out) >= 40 || s.ParentsFiltered("script, style, noscript, svg, template").Length() > 0 {
			return
		}
		t := cleanText(s.Text())
		if t != "" && len(t) <= 200 {
			out = append(out, t)
		}
		if v := s.AttrOr("title", ""); v != "" {
			out = append(out, v)
		}
	})
	return out
}

var urlDateRe = regexp.MustCompile(`/((?:19|20)\d{2})/(0?[1-9]|1[0-2])/(0?[1-9]|[12]\d|3[01])(?:/|$)`)

// urlDates reads the date many sites put in article paths
// (/2026/11/20/title), from the canonical URL and the final one.
func (p *page) urlDates() []string {
	var out []string
	for _, raw := range []string{p.canonicalURL(), p.url.String()} {
		u, err := url.Parse(raw)
		if err != nil {
			continue
		}
		if m := urlDateRe.FindStringSubmatch(u.Path); m != nil {
			mo, _ := strconv.Atoi(m[2])
			d, _ := strconv.Atoi(m[3])
			// A day without a time of day: noon, as for written dates.
			out = append(out, fmt.Sprintf("%s-%02d-%02dT12:00:00Z", m[1], mo, d))
		}
	}
	return out
}
