package meta

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// microdata returns the value of the first element whose microdata itemprop
// or RDFa property is prop and that has a value (see itemValue). <meta>
// tags with property= are read with the other meta tags.
func (p *page) microdata(prop string) string {
	value := ""
	p.doc.Find("[itemprop], [property]").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if !isItemProp(s, prop) {
			return true
		}
		value = strings.TrimSpace(itemValue(s))
		return value == ""
	})
	return value
}

// itemValue is an element's microdata (or RDFa) value: the attribute HTML
// defines for its kind of element, else its content attribute or text.
func itemValue(s *goquery.Selection) string {
	attr := ""
	switch goquery.NodeName(s) {
	case "meta":
		attr = "content"
	case "a", "link", "area":
		attr = "href"
	case "img", "audio", "video", "source", "embed", "iframe", "track":
		attr = "src"
	case "time":
		attr = "datetime"
	case "data", "meter":
		attr = "value"
	case "object":
		attr = "data"
	}
	if v, ok := s.Attr("content"); ok && strings.TrimSpace(v) != "" {
		return v
	}
	if attr != "" {
		if v, ok := s.Attr(attr); ok && strings.TrimSpace(v) != "" {
			return v
		}
		if attr != "datetime" {
			return ""
		}
	}
	return s.Text()
}

// isItemProp reports an element carrying prop as microdata itemprop or, on
// elements other than <meta>, as RDFa property.
func isItemProp(s *goquery.Selection, prop string) bool {
	if hasToken(s.AttrOr("itemprop", ""), prop) {
		return true
	}
	return goquery.NodeName(s) != "meta" && hasToken(s.AttrOr("property", ""), prop)
}

// hasToken reports whether a space-separated attribute value contains tok,
// ignoring case and a vocabulary prefix (schema:author, dc:creator).
func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		f = strings.ToLower(f)
		if i := strings.LastIndexAny(f, ":/#"); i >= 0 {
			f = f[i+1:]
		}
		if f == strings.ToLower(tok) {
			return true
		}
	}
	return false
}
