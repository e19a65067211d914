package meta

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/publicsuffix"
)

// author returns who wrote the page. Sources, most specific first:
//   - the author (or creator) of the main JSON-LD item, resolved through @id
//     references; several authors are joined ("A and B", "A, B and C");
//   - <meta name=author>, article:author (when a name, not a profile URL),
//     parsely-author, sailthru.author, citation_author, Dublin Core creator,
//     byl;
//   - microdata and RDFa author: [itemprop=author] (its name when it is an
//     item), [property=author];
//   - rel=author links;
//   - bylines: .byline, author classes and /author/ links on the same site,
//     when they read like a name (two to six words, no digits, no sentence),
//     so that a stray "Menu" or a bio is not taken;
//   - twitter:creator, without the @.
//
// Every value is cleaned of "By", handles, URLs and dates, and refused when
// it only repeats the publisher: no author is better than a wrong one.
func (p *page) author(publisher string) string {
	type source struct {
		values func() []string
		strict bool
	}
	sources := []source{{values: p.ldAuthors}}
	for _, key := range []string{"author", "article:author", "parsely-author", "sailthru.author", "citation_author",
		"dc.creator", "dcterms.creator", "byl"} {
		sources = append(sources, source{values: func() []string { return p.metaAll(key) }})
	}
	sources = append(sources, []source{
		{values: p.microdataAuthors},
		{values: func() []string { return p.bylines(`a[rel~="author"], link[rel~="author"][title]`) }},
		{values: func() []string {
			return p.bylinesWhere(`[class*="byline" i] a, a[class*="author" i], [class*="author" i] a, a[href*="/author/" i], a[href*="/authors/" i]`, p.isSiteLink)
		}, strict: true},
		{values: func() []string { return p.bylines(`[class*="byline" i], [class*="author" i]`) }, strict: true},
		{values: func() []string { return p.metaAll("twitter:creator") }},
	}...)
	for _, src := range sources {
		var names []string
		seen := map[string]bool{}
		for _, v := range src.values() {
			name := cleanAuthor(v, publisher, p.url.Hostname())
			if name == "" || seen[foldKey(name)] {
				continue
			}
			if src.strict && !looksLikeName(name) {
				continue
			}
			seen[foldKey(name)] = true
			names = append(names, name)
			if src.strict {
				break // one byline is enough; the rest of the page repeats or lists others
			}
		}
		if len(names) > 0 {
			return smartQuotes(joinNames(names))
		}
	}
	return ""
}

// looksLikeName is the extra test for names read off page text: two to six
// words, no digits, not a sentence.
func looksLikeName(s string) bool {
	words := strings.Fields(s)
	if len(words) < 2 || len(words) > 6 || strings.ContainsFunc(s, unicode.IsDigit) {
		return false
	}
	if last := words[len(words)-1]; strings.LastIndexAny(last, ".!?") == len(last)-1 && utf8.RuneCountInString(last) > 3 {
		return false // a sentence, not "Martin Luther King Jr."
	}
	return !strings.ContainsAny(s, "!?;")
}

// ldAuthors returns the author names of the first main JSON-LD item that
// names any.
func (p *page) ldAuthors() []string {
	for _, n := range p.ld.nodesUpTo(kindPage) {
		for _, prop := range []string{"author", "creator"} {
			if names := p.ld.ldNames(n[prop], 0); len(names) > 0 {
				return names
			}
		}
	}
	return nil
}

// microdataAuthors returns the names of microdata or RDFa author elements —
// the name inside an author item, or the element's own value — of the first
// item that has any: a page listing other articles carries their authors too.
func (p *page) microdataAuthors() []string {
	var out []string
	var owner *goquery.Selection
	p.doc.Find("[itemprop], [property]").Each(func(_ int, s *goquery.Selection) {
		if !hasToken(s.AttrOr("itemprop", ""), "author") && !hasToken(s.AttrOr("property", ""), "author") &&
			!hasToken(s.AttrOr("itemprop", ""), "creator") && !hasToken(s.AttrOr("property", ""), "creator") {
			return
		}
		if goquery.NodeName(s) == "meta" && s.AttrOr("itemprop", "") == "" {
			return // <meta property=article:author> and kin are read with the meta tags
		}
		item := s.Parent().Closest("[itemscope], [typeof], [vocab]")
		if owner == nil {
			owner = item
		} else if item.Length() != owner.Length() || (item.Length() > 0 && !item.IsSelection(owner)) {
			return
		}
		if _, scoped := s.Attr("itemscope"); scoped {
			found := ""
			s.Find("[itemprop]").EachWithBreak(func(_ int, c *goquery.Selection) bool {
				if hasToken(c.AttrOr("itemprop", ""), "name") {
					found = itemValue(c)
				}
				return strings.TrimSpace(found) == ""
			})
			if found == "" {
				found = s.Text()
			}
			out = append(out, found)
			return
		}
		if n := goquery.NodeName(s); n == "a" || n == "link" {
			if t := strings.TrimSpace(s.Text()); t != "" {
				out = append(out, t)
			} else {
				out = append(out, s.AttrOr("title", ""))
			}
			return
		}
		out = append(out, itemValue(s))
	})
	return out
}

// isSiteLink reports a link to the site itself (an author page), not to
// somewhere else: links in an author's bio name their books and projects.
func (p *page) isSiteLink(s *goquery.Selection) bool {
	href := strings.TrimSpace(s.AttrOr("href", ""))
	if href == "" || strings.HasPrefix(href, "/") && !strings.HasPrefix(href, "//") || !strings.Contains(href, ":") && !strings.HasPrefix(href, "//") {
		return true
	}
	u, err := p.base.Parse(href)
	if err != nil {
		return false
	}
	target := registrableDomain(u.Hostname())
	for _, own := range []string{p.url.String(), p.canonicalURL()} {
		if o, err := url.Parse(own); err == nil && target != "" && registrableDomain(o.Hostname()) == target {
			return true
		}
	}
	return false
}

// notBylines are the parts of a page whose bylines are not the article's:
// quotes and testimonials, comments, related stories.
const notBylines = `svg, script, style, noscript, template, blockquote, q, figure, [class*="quote" i], [class*="testimonial" i], [class*="comment" i], [id*="comment" i], [class*="related" i], [class*="recommend" i]`

// bylines returns the text of every element matching selector, outside the
// parts of the page where bylines name someone else (see notBylines; the
// body's own classes are page-wide switches and do not count).
func (p *page) bylines(selector string) []string {
	return p.bylinesWhere(selector, nil)
}

// bylinesWhere is bylines with an extra test on each element.
func (p *page) bylinesWhere(selector string, keep func(*goquery.Selection) bool) []string {
	var out []string
	p.doc.Find(selector).Each(func(_ int, s *goquery.Selection) {
		if s.ParentsUntil("body").Filter(notBylines).Length() > 0 || s.Is(`[class*="quote" i], [class*="comment" i]`) {
			return
		}
		if keep != nil && !keep(s) {
			return
		}
		if goquery.NodeName(s) == "link" {
			out = append(out, s.AttrOr("title", ""))
			return
		}
		out = append(out, s.Text())
	})
	return out
}

var (
	byPrefixRe = regexp.MustCompile(`(?i)^(?:(?:written|posted|posts|published|reported|story|words|text|photos?|articles?)\s+)?(?:by|von|par|por|door|di|da|av|af|autor(?:a)?|author|автор)\s*:?\s+`)
	handleRe   = regexp.MustCompile(`\s*\(?@[\p{L}\p{N}_.]+\)?`)
	emailRe    = regexp.MustCompile(`\s*\(?[\w.+-]+@[\w-]+\.[\w.-]+\)?`)
	urlInText  = regexp.MustCompile(`(?i)\s*\(?(?:https?://|www\.)\S+\)?`)
)

// cleanAuthor turns a raw byline into a name, or "" when what is left is not
// one: a URL, a date, the publisher again, or a paragraph.
func cleanAuthor(s, publisher, host string) string {
	s = cleanText(s)
	for range 2 {
		s = strings.TrimSpace(byPrefixRe.ReplaceAllString(s, ""))
	}
	s = strings.TrimLeft(s, "—–-:|· ")
	if s == "" || isURLLike(s) {
		return ""
	}
	s = emailRe.ReplaceAllString(s, "")
	s = urlInText.ReplaceAllString(s, "")
	if strings.HasPrefix(s, "@") && !strings.Contains(s, " ") {
		s = strings.TrimPrefix(s, "@") // a bare handle is the only name given
	} else if h := strings.TrimSpace(handleRe.ReplaceAllString(s, "")); h != "" {
		s = h
	}
	// A date glued to the byline ("Jane Doe, May 3, 2016") is not part of the name.
	if w, ok := findWrittenDate(s); ok && w.start > 0 {
		s = s[:w.start]
	}
	s = strings.Trim(strings.TrimSpace(s), ",;|·•-–— ")
	if foldKey(s) == "" || !strings.ContainsFunc(s, unicode.IsLetter) {
		return ""
	}
	if len([]rune(s)) > 80 || len(strings.Fields(s)) > 10 {
		return ""
	}
	k := foldKey(s)
	if k == foldKey(publisher) || k == foldKey(strings.TrimPrefix(host, "www.")) {
		return ""
	}
	switch strings.ToLower(s) {
	case "admin", "administrator", "staff", "editor", "unknown", "anonymous", "null", "undefined", "author", "guest":
		return ""
	}
	return s
}

// isURLLike reports values that are addresses rather than names:
// "https://…", "www.…", "example.com", "example.com/jane". A dotted name
// whose last part is no real top-level domain ("odno.kino") is a name.
func isURLLike(s string) bool {
	l := strings.ToLower(strings.TrimSpace(s))
	if strings.Contains(l, "://") || strings.HasPrefix(l, "www.") || strings.HasPrefix(l, "//") {
		return true
	}
	if strings.ContainsAny(l, " ") || !strings.Contains(l, ".") {
		return false
	}
	host, _, _ := strings.Cut(l, "/")
	if strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") {
		return false
	}
	_, icann := publicsuffix.PublicSuffix(host)
	return icann
}

// joinNames lists names the way a byline does: "A", "A and B", "A, B and C".
func joinNames(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
