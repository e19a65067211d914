package meta

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// canonicalURL returns the page's own address. Sources, most specific first:
// og:url; <link rel=canonical>; twitter:url; the x-default alternate; the
// final URL of the page (left to the caller when nothing is found). A value
// that does not resolve to an http(s) URL is skipped.
func (p *page) canonicalURL() string {
	if !p.canonicalDone {
		p.canonical, p.canonicalDone = p.findCanonicalURL(), true
	}
	return p.canonical
}

func (p *page) findCanonicalURL() string {
	sources := []func() string{
		func() string { return p.meta("og:url") },
		func() string { return p.linkHref("canonical") },
		func() string { return p.meta("twitter:url") },
		func() string {
			href := ""
			p.doc.Find(`link[rel~="alternate"][hreflang]`).EachWithBreak(func(_ int, s *goquery.Selection) bool {
				if strings.EqualFold(s.AttrOr("hreflang", ""), "x-default") {
					href = s.AttrOr("href", "")
				}
				return href == ""
			})
			return href
		},
	}
	for _, source := range sources {
		if u := p.abs(source()); u != "" {
			return u
		}
	}
	return ""
}

// linkHref is the href of the first <link> whose rel contains rel.
func (p *page) linkHref(rel string) string {
	href := ""
	p.doc.Find("link[rel][href]").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if HasToken(s.AttrOr("rel", ""), rel) {
			href = strings.TrimSpace(s.AttrOr("href", ""))
		}
		return href == ""
	})
	return href
}
