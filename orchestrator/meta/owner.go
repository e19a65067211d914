package meta

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
)

// A personal site is signed by its owner. When a page names no author at
// all, but the site's name is a person's name that is also the site's
// domain (Jane Roe on janeroe.com, "Jane Roe Yoga" on janeroe.com), that
// person wrote it.

// titleSeparatorRe splits a document title into its segments.
var titleSeparatorRe = regexp.MustCompile(`\s+[|–—\-:·•»/]\s+`)

// maxHomeLinks bounds the links to the home page read for the site's name.
const maxHomeLinks = 5

// domainOwner returns the person a personal site is named after, or "".
func (p *page) domainOwner(publisher string) string {
	labels := map[string]bool{}
	for _, raw := range []string{p.url.String(), p.canonicalURL()} {
		u, err := url.Parse(raw)
		if err != nil {
			continue
		}
		if h := registrableHost(u); h != "" {
			if label, _, ok := strings.Cut(registrableDomain(h), "."); ok && len(label) >= 6 {
				labels[foldKey(label)] = true
			}
		}
	}
	if len(labels) == 0 {
		return ""
	}
	names := []string{publisher, p.meta("og:site_name"), p.meta("application-name"), p.ldPartyName("publisher")}
	names = append(names, titleSeparatorRe.Split(p.documentTitle(), -1)...)
	homes := 0
	p.doc.Find("a[href]").EachWithBreak(func(_ int, a *goquery.Selection) bool {
		if p.isHomeLink(a) {
			names = append(names, spacedText(a))
			homes++
		}
		return homes < maxHomeLinks
	})
	for _, n := range names {
		words := strings.Fields(cleanText(n))
		for k := 2; k <= min(4, len(words)); k++ {
			name := strings.Join(words[:k], " ")
			if labels[foldKey(name)] && properName(name) && !hasDatelineWord(name) {
				return name
			}
		}
	}
	return ""
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
