package meta

import (
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// OEmbedLink is a provider endpoint a page declares for its oEmbed: the
// URL to fetch and the format it answers in, "json" or "xml".
type OEmbedLink struct {
	URL, Format string
}

// maxOEmbedLinks bounds the endpoints read from one page.
const maxOEmbedLinks = 4

// OEmbedLinks returns the page's oEmbed endpoints as the oEmbed
// specification's discovery declares them, `<link rel="alternate"
// type="application/json+oembed">` and its XML twin (`text/xml+oembed`,
// `application/xml+oembed`), JSON ones first, resolved against the
// document's base URL. Only http(s) endpoints are kept.
func OEmbedLinks(doc *goquery.Document, pageURL *url.URL) []OEmbedLink {
	if doc == nil || doc.Selection == nil || pageURL == nil {
		return nil
	}
	base := documentBase(doc, pageURL)
	var jsonLinks, xmlLinks []OEmbedLink
	seen := map[string]bool{}
	doc.Find("link[href]").Each(func(_ int, s *goquery.Selection) {
		if !HasToken(strings.ToLower(s.AttrOr("rel", "")), "alternate") {
			return
		}
		var format string
		switch strings.ToLower(strings.TrimSpace(s.AttrOr("type", ""))) {
		case "application/json+oembed":
			format = "json"
		case "text/xml+oembed", "application/xml+oembed":
			format = "xml"
		default:
			return
		}
		u := resolveURL(base, s.AttrOr("href", ""))
		if u == "" || seen[u] {
			return
		}
		seen[u] = true
		if format == "json" {
			jsonLinks = append(jsonLinks, OEmbedLink{URL: u, Format: format})
		} else {
			xmlLinks = append(xmlLinks, OEmbedLink{URL: u, Format: format})
		}
	})
	out := append(jsonLinks, xmlLinks...)
	if len(out) > maxOEmbedLinks {
		out = out[:maxOEmbedLinks]
	}
	return out
}
