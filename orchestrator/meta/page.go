package meta

import (
	"net"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/publicsuffix"
)

// page is what every rule reads: the document, the base URL for resolving
// references, an index of its <meta> tags and its JSON-LD.
type page struct {
	doc  *goquery.Document
	url  *url.URL // the final URL of the page
	base *url.URL // url, or <base href> when the page sets one
	now  time.Time

	metas []metaTag
	index map[string][]int // lower-case key → positions in metas
	ld    *ldGraph

	canonical     string // canonicalURL, once computed
	canonicalDone bool

	heading     *goquery.Selection // mainHeading, once found
	headingDone bool
	blocks      []*goquery.Selection // articleBlocks, once found
	blocksDone  bool
	holders     []string // copyrightHolders, once found
	holdersDone bool
	offsets     map[*html.Node][2]int // text offsets of elements, for textDistance
	locale      *dateLocale           // dateLocale, once found
	visible     map[string][]string   // visibleDates by scope, once read
}

// metaTag is one <meta> keyed by its property, name, itemprop or http-equiv.
type metaTag struct {
	key     string
	content string
	attr    string // the attribute the key came from
}

// documentBase is the URL references in the document resolve against: its
// <base href> when it has a usable one, else the page's final URL.
func documentBase(doc *goquery.Document, pageURL *url.URL) *url.URL {
	if href, ok := doc.Find("base[href]").First().Attr("href"); ok {
		if b, err := pageURL.Parse(strings.TrimSpace(href)); err == nil && (b.Scheme == "http" || b.Scheme == "https") && b.Host != "" {
			return b
		}
	}
	return pageURL
}

func newPage(doc *goquery.Document, pageURL *url.URL, now time.Time) *page {
	p := &page{doc: doc, url: pageURL, base: documentBase(doc, pageURL), now: now, index: map[string][]int{}}
	doc.Find("meta").Each(func(_ int, s *goquery.Selection) {
		content, ok := s.Attr("content")
		if !ok {
			content = s.AttrOr("value", "")
		}
		seen := map[string]bool{}
		for _, attr := range []string{"property", "name", "itemprop", "http-equiv"} {
			// RDFa allows several properties in one attribute: property="og:title twitter:title".
			for _, k := range strings.Fields(strings.ToLower(s.AttrOr(attr, ""))) {
				// DC:title, dc:title and dcterms:title are all Dublin Core.
				k = strings.Replace(strings.Replace(k, "dcterms:", "dcterms.", 1), "dc:", "dc.", 1)
				if seen[k] {
					continue
				}
				seen[k] = true
				p.index[k] = append(p.index[k], len(p.metas))
				p.metas = append(p.metas, metaTag{key: k, content: content, attr: attr})
			}
		}
	})
	p.ld = parseJSONLD(doc)
	return p
}

// meta returns the first non-blank content of the first key that has one.
func (p *page) meta(keys ...string) string {
	for _, k := range keys {
		for _, i := range p.index[k] {
			if c := strings.TrimSpace(p.metas[i].content); c != "" {
				return c
			}
		}
	}
	return ""
}

// metaAll returns every non-blank content of key, in document order.
func (p *page) metaAll(key string) []string {
	var out []string
	for _, i := range p.index[key] {
		if c := strings.TrimSpace(p.metas[i].content); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// metaEach returns every non-blank content of each key in turn: all of the
// first key's, then all of the second's.
func (p *page) metaEach(keys ...string) []string {
	var out []string
	for _, k := range keys {
		out = append(out, p.metaAll(k)...)
	}
	return out
}

// abs resolves a reference found in the page to an absolute http(s) URL
// against the document's base URL, so that relative and protocol-relative
// references take the page's scheme and host. Anything that cannot be fetched
// over HTTP (data:, javascript:, blob:, garbage) yields "".
func (p *page) abs(ref string) string {
	return resolveURL(p.base, ref)
}

func resolveURL(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	// Browsers ignore tabs and newlines inside URLs.
	ref = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(ref)
	if ref == "" || strings.HasPrefix(ref, "#") {
		return ""
	}
	lower := strings.ToLower(ref)
	for _, bad := range []string{"data:", "javascript:", "blob:", "about:", "mailto:", "tel:", "file:"} {
		if strings.HasPrefix(lower, bad) {
			return ""
		}
	}
	u, err := base.Parse(ref)
	if err != nil {
		u, err = base.Parse(strings.ReplaceAll(ref, " ", "%20"))
		if err != nil {
			return ""
		}
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return ""
	}
	if strings.ContainsAny(u.Host, " {}<>\"'") {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" && u.RawPath == "" && u.Opaque == "" {
		u.Path = "/" // https://example.com is https://example.com/ to every browser
	}
	return u.String()
}

// extType is the image (or pdf) type a URL's file extension names, or "" —
// with a format given in the query string (?format=png, ?fm=jpg) as the
// fallback for extension-less image-service URLs.
func extType(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if t := typeFromExt(path.Ext(u.Path)); t != "" {
		return t
	}
	q := u.Query()
	for _, k := range []string{"format", "fm", "f", "ext", "output"} {
		if t := typeFromExt(q.Get(k)); t != "" {
			return t
		}
	}
	return ""
}

func typeFromExt(ext string) string {
	switch strings.TrimPrefix(strings.ToLower(ext), ".") {
	case "jpg", "jpeg", "jpe", "jfif", "pjpeg":
		return "jpg"
	case "png", "apng":
		return "png"
	case "gif":
		return "gif"
	case "webp":
		return "webp"
	case "svg", "svgz":
		return "svg"
	case "ico", "cur":
		return "ico"
	case "avif":
		return "avif"
	case "bmp":
		return "bmp"
	case "pdf":
		return "pdf"
	}
	return ""
}

// registrableHost returns the host without "www." and without a port; "" for
// IP addresses and single-label hosts such as localhost, which name no
// publisher.
func registrableHost(u *url.URL) string {
	h := strings.ToLower(u.Hostname())
	if h == "" || net.ParseIP(h) != nil || !strings.Contains(h, ".") {
		return ""
	}
	return strings.TrimPrefix(h, "www.")
}

// origin is scheme://host[:port] of u.
func origin(u *url.URL) string {
	return u.Scheme + "://" + u.Host
}

// registrableDomain is the domain a host belongs to (news.example.co.uk →
// example.co.uk); the host itself when it has none.
func registrableDomain(host string) string {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return d
	}
	return host
}
