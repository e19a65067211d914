package meta

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
)

// title returns the page's title. Sources, most specific first:
//   - og:title, twitter:title: the title the publisher chose for shares,
//     kept as written (a "| Site" it carries is the publisher's choice);
//   - the headline (or name) of the main JSON-LD item;
//   - Dublin Core, citation_title, parsely-title, sailthru.title, <meta name=title>;
//   - <title> outside <svg>, minus a trailing "| Publisher" or "- Publisher";
//   - microdata or RDFa headline;
//   - the first <h1>.
//
// A declared title (the first five) that names no page, a bare "Home" or
// one whose first part a template left empty ("| Site"), is passed over.
// The page's visible headline replaces the declared title when the page
// shows it is the better one (see headlineOver).
func (p *page) title(publisher string) string {
	declared := []func() string{
		func() string { return p.firstNamingThePage("og:title", publisher) },
		func() string { return p.firstNamingThePage("twitter:title", publisher) },
		p.ldTitle,
		func() string {
			return p.meta("dc.title", "dcterms.title", "citation_title", "parsely-title", "sailthru.title", "title")
		},
		func() string {
			whole := cleanText(p.documentTitle())
			if t := stripSiteSuffix(whole, publisher, p.url); !namesNoPage(t) {
				return t
			}
			return whole // "Home - Site" names the site at least
		},
	}
	siteOnly := ""
	for _, source := range declared {
		raw := cleanText(source())
		t := normTitle(raw)
		if t == "" || namesNoPage(raw) {
			continue
		}
		if p.namesOnlyTheSite(t, publisher) {
			if siteOnly == "" {
				siteOnly = t
			}
			continue
		}
		if h := normTitle(p.headlineOver(t, publisher)); h != "" {
			return h
		}
		return t
	}
	for _, source := range []func() string{
		func() string { return p.microdata("headline") },
		func() string { return p.firstText("h1") },
	} {
		if t := normTitle(source()); t != "" {
			return t
		}
	}
	return siteOnly // the site's name at least
}

// firstNamingThePage is the first value of a meta tag the page may give
// twice that is more than the site's name (see namesOnlyTheSite), else its
// first value.
func (p *page) firstNamingThePage(key, publisher string) string {
	all := p.metaAll(key)
	for _, v := range all {
		if t := normTitle(cleanText(v)); t != "" && !p.namesOnlyTheSite(t, publisher) {
			return v
		}
	}
	return p.meta(key)
}

// namesOnlyTheSite reports a declared title that is the site's bare name
// and nothing more ("Acme" for every page of acme.com), on a page other
// than the site's home: a template's default, which says nothing of the
// page. The site's names are its publisher's, the names it declares for
// itself and its domain's (see siteNames). A name with a tagline ("Acme News - Latest Headlines") is a title
// the site chose for its pages and stays.
func (p *page) namesOnlyTheSite(title, publisher string) bool {
	for _, sep := range titleSeparators {
		if strings.Contains(title, sep) {
			return false
		}
	}
	for _, raw := range []string{p.url.String(), p.canonicalURL()} {
		if u, err := url.Parse(raw); err == nil && u.Host != "" && strings.Trim(u.EscapedPath(), "/") == "" {
			return false // the home page: the site's name is its title
		}
	}
	k := foldKey(title)
	for _, name := range p.siteNames(publisher) {
		if k != "" && (k == name || strings.TrimPrefix(k, "the") == name) {
			return true
		}
	}
	return false
}

// namesNoPage reports a declared title that says nothing of the page: the
// name of a role every site has ("Home", "Index"), or a title whose first
// part is missing ("| Site", "- Site"), left so by a template that had no
// name to put there.
func namesNoPage(t string) bool {
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "home", "homepage", "home page", "index", "untitled", "untitled document":
		return true
	}
	t = strings.TrimSpace(t)
	first, size := utf8.DecodeRuneInString(t)
	next, _ := utf8.DecodeRuneInString(t[size:])
	return strings.ContainsRune("|-–—·•»/:~", first) && unicode.IsSpace(next)
}

// titleMarkdownRe, titleEmphasisRe, titleDecorationRe and titleEmptyRe find
// what a title carries that is no part of its words: the "#" marks of a
// Markdown heading in front, the stars of Markdown emphasis around words
// ("*A Treatise on Coffee* (1792)", from a site that writes its titles in
// Markdown), a lone star at either end ("Title ⋆"), and empty brackets a
// template left ("Product () - Shop").
var (
	titleMarkdownRe   = regexp.MustCompile(`^#{1,6}\s+`)
	titleEmphasisRe   = regexp.MustCompile(`(^|[\s(\["'“‘])(\*{1,2})([^*\s](?:[^*]*[^*\s])?)(\*{1,2})($|[\s).,:;!?\]"'”’])`)
	titleDecorationRe = regexp.MustCompile(`^[⋆★☆✦✧]+\s+|\s+[⋆★☆✦✧]+$`)
	titleEmptyRe      = regexp.MustCompile(`\s*(?:\(\s*\)|\[\s*\])`)
)

func normTitle(s string) string {
	s = cleanText(s)
	s = titleMarkdownRe.ReplaceAllString(s, "")
	s = titleEmphasisRe.ReplaceAllStringFunc(s, func(m string) string {
		p := titleEmphasisRe.FindStringSubmatch(m)
		if p[2] != p[4] {
			return m // "*" closed by "**": no emphasis
		}
		return p[1] + p[3] + p[5]
	})
	s = titleDecorationRe.ReplaceAllString(s, "")
	s = titleEmptyRe.ReplaceAllString(s, "")
	if foldKey(s) == "" {
		return "" // only punctuation or symbols
	}
	return smartQuotes(s)
}

// ldTitle is the headline of the main JSON-LD item, or the name of a
// content item (a video, a product) that has no headline. A name is passed
// over when it is a file's name ("clip_010.mp3"), and so are the items of
// a type the page lists under several names: a category's page that
// declares each of its products names none of them.
func (p *page) ldTitle() string {
	items := p.ld.nodesUpTo(kindArticle)
	for _, n := range items {
		if s := p.ld.ldText(n["headline"]); strings.TrimSpace(s) != "" {
			return s
		}
	}
	names := map[string]map[string]bool{} // type → folded names
	for _, n := range items {
		if k := foldKey(p.ld.ldText(n["name"])); k != "" {
			for _, t := range ldTypes(n) {
				if names[t] == nil {
					names[t] = map[string]bool{}
				}
				names[t][k] = true
			}
		}
	}
	for _, n := range items {
		s := strings.TrimSpace(p.ld.ldText(n["name"]))
		if s == "" || fileNameRe.MatchString(s) {
			continue
		}
		listed := false
		for _, t := range ldTypes(n) {
			listed = listed || len(names[t]) > 1
		}
		if !listed {
			return s
		}
	}
	return ""
}

// fileNameRe matches the name of a media or document file, as a page's
// structured data may give for a recording or a picture: "clip_010.mp3".
var fileNameRe = regexp.MustCompile(`(?i)^[^\s/]+\.(?:mp3|m4a|wav|ogg|oga|aac|flac|mp4|m4v|webm|mov|avi|mkv|jpe?g|png|gif|webp|avif|svg|pdf)$`)

// documentTitle is the text of the document's <title>, ignoring the <title>
// elements of inline SVG, which name a drawing, not the page.
func (p *page) documentTitle() string {
	title := ""
	p.doc.Find("title").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if s.ParentsFiltered("svg").Length() > 0 {
			return true
		}
		if t := strings.TrimSpace(s.Text()); t != "" {
			title = t
			return false
		}
		return true
	})
	return title
}

// titleSeparators split a document title from the site name appended to it.
// A colon with a space on both sides is one ("Guide : Site"); "Title:
// Subtitle" is not.
var titleSeparators = []string{" | ", " - ", " – ", " — ", " · ", " • ", " :: ", " : ", " » ", " / ", " ~ "}

// stripSiteSuffix removes a trailing "| Site" from a document title when Site
// is the publisher or the site's domain name, with or without a leading
// "The", or a brand the domain's name starts with ("Acme" on
// acmecorp.com); other suffixes may be part of the title ("Part 1 -
// Introduction") and stay.
func stripSiteSuffix(title, publisher string, pageURL *url.URL) string {
	names := suffixNames(publisher, pageURL)
	for range 2 { // "Title | Section | Site" keeps "Title | Section"
		cut := -1
		sepLen := 0
		for _, sep := range titleSeparators {
			if i := strings.LastIndex(title, sep); i > cut {
				cut, sepLen = i, len(sep)
			}
		}
		if cut <= 0 || !namesSiteByKey(foldKey(title[cut+sepLen:]), names) {
			break
		}
		title = strings.TrimSpace(title[:cut])
	}
	return title
}

// suffixNames are the folded names stripSiteSuffix cuts from a title: the
// publisher, the host, its registrable domain and that domain's first
// label ("example" for example.com).
func suffixNames(publisher string, pageURL *url.URL) map[string]bool {
	names := map[string]bool{}
	if k := foldKey(publisher); k != "" {
		names[k] = true
	}
	if h := registrableHost(pageURL); h != "" {
		names[foldKey(h)] = true
		d := registrableDomain(h)
		names[foldKey(d)] = true
		if label, _, ok := strings.Cut(d, "."); ok {
			names[foldKey(label)] = true // "Story - Example" on example.com
		}
	}
	return names
}

// namesSiteByKey reports a folded title part that is one of the folded site
// names: equal to one, or to one after "the", or the start of one that is
// at most twice as long (a brand the domain's name begins with).
func namesSiteByKey(k string, names map[string]bool) bool {
	if k == "" {
		return false
	}
	if names[k] || names[strings.TrimPrefix(k, "the")] {
		return true
	}
	for n := range names {
		if len(k) >= 4 && strings.HasPrefix(n, k) && 2*len(k) >= len(n) {
			return true
		}
	}
	return false
}

// firstText is the text of the first element matching selector that has
// some.
func (p *page) firstText(selector string) string {
	text := ""
	p.doc.Find(selector).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if s.ParentsFiltered("svg").Length() > 0 {
			return true
		}
		text = cleanText(s.Text())
		return text == ""
	})
	return text
}
