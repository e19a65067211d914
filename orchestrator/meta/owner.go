package meta

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
)

// A personal site is signed by its owner. When a page names no author at
// all, but the site's name is a person's name that is also the site's
// domain (Jane Roe on janeroe.com, "Jane Roe Yoga" on janeroe.com), that
// person wrote it. The site's name is read from its declared names, its
// title, its home links and the footer's copyright line.

// titleSeparatorRe splits a document title into its segments.
var titleSeparatorRe = regexp.MustCompile(`\s+[|–—\-:·•»/]\s+`)

// maxHomeLinks bounds the links to the home page read for the site's name.
const maxHomeLinks = 5

// domainOwner returns the person a personal site is named after, or "".
func (p *page) domainOwner(publisher string) string {
	labels, firsts := map[string]bool{}, map[string]bool{}
	for _, raw := range []string{p.url.String(), p.canonicalURL()} {
		u, err := url.Parse(raw)
		if err != nil {
			continue
		}
		if h := registrableHost(u); h != "" {
			if label, _, ok := strings.Cut(registrableDomain(h), "."); ok {
				if len(label) >= 6 {
					labels[foldKey(label)] = true
				}
				if f := firstNameLabel(label); f != "" {
					firsts[f] = true
				}
			}
		}
	}
	if len(labels) == 0 && len(firsts) == 0 {
		return ""
	}
	site := []string{publisher, p.meta("og:site_name"), p.meta("application-name"), p.ldPartyName("publisher")}
	segments := titleSeparatorRe.Split(p.documentTitle(), -1)
	site = append(site, p.copyrightHolders()...) // "© 2025 Jane Roe" in the footer
	homes := 0
	p.doc.Find("a[href]").EachWithBreak(func(_ int, a *goquery.Selection) bool {
		if p.isHomeLink(a) {
			site = append(site, spacedText(a))
			homes++
		}
		return homes < maxHomeLinks
	})
	names := slices.Concat(site[:4], segments, site[4:])
	// identity is what names the site rather than the page: all but the
	// title's first segment, the headline, which a publisher read off the
	// title may also be.
	identity := slices.Concat(site, segments[min(1, len(segments)):])
	for _, n := range names {
		words := strings.Fields(cleanText(n))
		for k := 2; k <= min(4, len(words)); k++ {
			name := strings.Join(words[:k], " ")
			if labels[foldKey(name)] && properName(name) && !hasDatelineWord(name) {
				return name
			}
		}
	}
	// A site named after its owner's first name or surname (Jane Roe on
	// jane.dev or roe.blog, or on jane.example-blogs.dev where each blog
	// has its own domain). The whole name must be the site's name, not the
	// start of a headline: "Apple Unveils" is no owner of apple.com.
	headline := ""
	if len(segments) > 0 {
		headline = foldKey(segments[0])
	}
	for _, n := range identity {
		name := cleanText(n)
		words := strings.Fields(name)
		if len(words) >= 2 && len(words) <= 3 && (firsts[foldKey(words[0])] || firsts[foldKey(words[len(words)-1])]) &&
			foldKey(name) != headline && properName(name) && !hasDatelineWord(name) &&
			!orgSuffixRe.MatchString(name) && !orgFormRe.MatchString(name) && !orgWordRe.MatchString(name) {
			return name
		}
	}
	return ""
}

// firstNameLabel is label folded when it could be a first name or a
// surname (4 to 12 letters); else "".
func firstNameLabel(label string) string {
	if n := len(label); n < 4 || n > 12 || strings.ContainsFunc(label, func(r rune) bool { return !unicode.IsLetter(r) }) {
		return ""
	}
	return foldKey(label)
}

// isHomeLink reports a link to the site's home page.
func (p *page) isHomeLink(a *goquery.Selection) bool {
	u, err := p.base.Parse(strings.TrimSpace(a.AttrOr("href", "")))
	if err != nil || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" {
		return false
	}
	return u.Host == "" || strings.EqualFold(u.Hostname(), p.base.Hostname()) || p.isSiteLink(a)
}

// ownerFullName gives the owner's full name for an author known by a
// first name alone on a personal site ("Brett" on brettlarkin.com, whose
// blogging software signs with the display name), and the author
// unchanged otherwise.
func (p *page) ownerFullName(author, publisher string) string {
	if strings.ContainsAny(author, " \t") {
		return author
	}
	if owner := p.domainOwner(publisher); strings.HasPrefix(strings.ToLower(owner), strings.ToLower(author)+" ") {
		return owner
	}
	return author
}

// isOwnDomainName reports a value that is the site's own domain written as
// a name ("AccountingDepartment.com"): the site signing for itself. A bare
// lower-case host or an address is no such name.
func (p *page) isOwnDomainName(v string) bool {
	v = cleanText(v)
	if strings.ContainsAny(v, " /:@") || !strings.ContainsFunc(v, unicode.IsUpper) {
		return false
	}
	for _, raw := range []string{p.url.String(), p.canonicalURL()} {
		if u, err := url.Parse(raw); err == nil {
			if h := registrableHost(u); h != "" && strings.EqualFold(strings.TrimPrefix(strings.ToLower(v), "www."), registrableDomain(h)) {
				return true
			}
		}
	}
	return false
}
