package meta

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// publisherAndSource returns the name of the site or organisation behind
// the page.
// Sources, most specific first:
//   - the publisher of the main JSON-LD item (Article, WebPage), resolved
//     through @id references;
//   - og:site_name;
//   - application-name, apple-mobile-web-app-title, twitter:app:name:*,
//     al:*:app_name (the site's own app carries its brand);
//   - the JSON-LD WebSite's name, or its publisher;
//   - Dublin Core, citation and <meta name=publisher> tags;
//   - microdata publisher name;
//   - the site name appended to the document title ("Article | Site");
//   - the alternative text of the site's logo image ("Site logo");
//   - the domain of the page, without www (never an IP address).
//
// publisherAndSource also tells whether the name came from the document
// title, which then must not be used to shorten that same title.
func (p *page) publisherAndSource() (name string, fromTitle bool) {
	sources := []struct {
		name      func() string
		fromTitle bool
	}{
		{name: func() string { return p.ldPartyName("publisher", "sourceOrganization") }},
		{name: func() string { return p.meta("og:site_name") }},
		{name: func() string {
			return p.meta("application-name", "apple-mobile-web-app-title", "twitter:app:name:iphone",
				"twitter:app:name:ipad", "twitter:app:name:googleplay", "al:iphone:app_name", "al:ipad:app_name",
				"al:android:app_name", "al:ios:app_name")
		}},
		{name: p.ldSiteName},
		{name: func() string {
			return p.meta("publisher", "dc.publisher", "dcterms.publisher", "citation_publisher",
				"citation_journal_title", "article:publisher", "parsely-section-publisher")
		}},
		{name: p.microdataPublisher},
		{name: p.titleSiteName, fromTitle: true},
		{name: p.logoAlt},
		{name: func() string { return registrableHost(p.url) }},
	}
	for _, source := range sources {
		if s := cleanPublisher(source.name()); s != "" {
			return s, source.fromTitle
		}
	}
	return "", false
}

func cleanPublisher(s string) string {
	s = cleanText(s)
	if foldKey(s) == "" || len([]rune(s)) > 100 || isURLLike(s) && strings.Contains(s, "/") {
		return ""
	}
	return s
}

// ldPartyName returns the name of the organisation or person a property of
// the main JSON-LD items refers to.
func (p *page) ldPartyName(props ...string) string {
	for _, n := range p.ld.nodesUpTo(kindPage) {
		for _, prop := range props {
			if names := p.ld.ldNames(n[prop], 0); len(names) > 0 {
				for _, name := range names {
					if !isURLLike(name) && strings.TrimSpace(name) != "" {
						return name
					}
				}
			}
		}
	}
	return ""
}

// ldSiteName is the JSON-LD WebSite's publisher or name.
func (p *page) ldSiteName() string {
	for _, n := range p.ld.nodes {
		if ldKind(n) != kindSite {
			continue
		}
		for _, name := range p.ld.ldNames(n["publisher"], 0) {
			if !isURLLike(name) {
				return name
			}
		}
		if s := p.ld.ldText(n["name"]); s != "" {
			return s
		}
	}
	return ""
}

// microdataPublisher is the name inside a microdata publisher item, or the
// publisher element's own text.
func (p *page) microdataPublisher() string {
	value := ""
	p.doc.Find("[itemprop]").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if !HasToken(s.AttrOr("itemprop", ""), "publisher") {
			return true
		}
		if _, scoped := s.Attr("itemscope"); scoped {
			s.Find("[itemprop]").EachWithBreak(func(_ int, c *goquery.Selection) bool {
				if HasToken(c.AttrOr("itemprop", ""), "name") {
					value = itemValue(c)
				}
				return strings.TrimSpace(value) == ""
			})
		} else {
			value = itemValue(s)
		}
		return strings.TrimSpace(value) == ""
	})
	return value
}

// titleSiteName is the part of a document title split by separators
// ("Article | Site", "Site - Article") that names the site: the part that
// matches its domain or a name it declares elsewhere. When no part does,
// the last part, if short enough to be a name.
func (p *page) titleSiteName() string {
	title := cleanText(p.documentTitle())
	parts := splitTitle(title)
	if len(parts) < 2 {
		return ""
	}
	short := func(s string) bool { return len(strings.Fields(s)) <= 5 && len([]rune(s)) <= 40 }
	names := p.siteNames("")
	for _, part := range parts {
		if short(part) && namesSite(part, names) {
			return part
		}
	}
	last := parts[len(parts)-1]
	if !short(last) || foldKey(last) == foldKey(strings.Join(parts[:len(parts)-1], " ")) {
		return ""
	}
	return last
}

// splitTitle splits a document title at every separator (see
// titleSeparators).
func splitTitle(title string) []string {
	for _, sep := range titleSeparators {
		title = strings.ReplaceAll(title, sep, "\x00")
	}
	var out []string
	for _, part := range strings.Split(title, "\x00") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// namesSite reports a title part that is one of the site's folded names
// (see siteNames), with or without a leading "The", or that begins with the
// domain's name: "BBC News" on bbc.co.uk.
func namesSite(part string, names []string) bool {
	k := foldKey(part)
	for _, n := range names {
		if k == n || strings.TrimPrefix(k, "the") == n || len(n) >= 3 && strings.HasPrefix(k, n) && len(k) <= 2*len(n)+8 {
			return true
		}
		// "Acme" on acmecorp.com: the brand is the start of the domain's name.
		if len(k) >= 4 && strings.HasPrefix(n, k) && 2*len(k) >= len(n) {
			return true
		}
	}
	return false
}

var logoWordRe = regexp.MustCompile(`(?i)^(?:the\s+)?logo\s+(?:of|for|de|du|der|von)\s+|\s*[-|:]?\s*\blogo(?:type)?\b\s*$`)

// logoAlt is the name a site gives its logo image: "Acme logo" is Acme.
func (p *page) logoAlt() string {
	name := ""
	p.doc.Find(`header img[alt], [class*="logo" i] img[alt], img[class*="logo" i][alt], img[alt*="logo" i], a[rel~="home"] img[alt]`).EachWithBreak(func(i int, s *goquery.Selection) bool {
		alt := strings.TrimSpace(logoWordRe.ReplaceAllString(cleanText(s.AttrOr("alt", "")), ""))
		switch strings.ToLower(alt) {
		case "", "logo", "home", "homepage", "home page", "site logo", "header", "brand", "menu":
			return i < 2
		}
		name = alt
		return false
	})
	return name
}
