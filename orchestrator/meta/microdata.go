package meta

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
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
	if HasToken(s.AttrOr("itemprop", ""), prop) {
		return true
	}
	return goquery.NodeName(s) != "meta" && HasToken(s.AttrOr("property", ""), prop)
}

// HasToken reports whether a space-separated attribute value contains tok,
// ignoring case and a vocabulary prefix (schema:author, dc:creator).
func HasToken(list, tok string) bool {
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

// subordinateProps are the microdata and RDFa properties that hang another
// item under the page's own: its comments, answers, reviews, related items,
// list entries and breadcrumbs. Their dates and authors are theirs, not the
// page's.
var subordinateProps = map[string]bool{
	"comment": true, "comments": true, "suggestedanswer": true, "acceptedanswer": true, "answer": true,
	"review": true, "reviews": true, "itemlistelement": true, "relatedlink": true, "isrelatedto": true,
	"issimilarto": true, "breadcrumb": true, "citation": true, "mentions": true, "workexample": true,
	"haspart": true,
}

// subordinateTypes are the item types that are never the page's main
// entity when nested in another item.
var subordinateTypes = map[string]bool{
	"comment": true, "answer": true, "review": true, "userreview": true, "usercomments": true,
	"listitem": true, "breadcrumblist": true,
}

// inSubordinateItem reports an element that belongs to an item hung under
// another one (see subordinateProps), or nested in a comment, answer or
// review item: a date or author there is not the page's.
func inSubordinateItem(s *goquery.Selection) bool {
	for _, n := range s.Nodes {
		for e := n.Parent; e != nil; e = e.Parent {
			if e.Type != html.ElementNode {
				continue
			}
			scoped, typed := false, ""
			var props []string
			for _, a := range e.Attr {
				switch strings.ToLower(a.Key) {
				case "itemscope", "typeof":
					scoped = true
					if a.Key == "typeof" {
						typed += " " + a.Val
					}
				case "itemtype":
					typed += " " + a.Val
				case "itemprop", "property", "rel":
					props = append(props, strings.Fields(a.Val)...)
				}
			}
			if !scoped {
				continue
			}
			for _, prop := range props {
				if subordinateProps[vocabTerm(prop)] {
					return true
				}
			}
			for _, t := range strings.Fields(typed) {
				if subordinateTypes[vocabTerm(t)] && e.Parent != nil && hasScopeAbove(e.Parent) {
					return true
				}
			}
		}
	}
	return false
}

// hasScopeAbove reports an itemscope or typeof element at n or above it.
func hasScopeAbove(n *html.Node) bool {
	for e := n; e != nil; e = e.Parent {
		if e.Type != html.ElementNode {
			continue
		}
		for _, a := range e.Attr {
			if a.Key == "itemscope" || a.Key == "typeof" {
				return true
			}
		}
	}
	return false
}

// vocabTerm is a property or type name without its vocabulary, in lower
// case: "https://schema.org/Comment" and "schema:comment" are "comment".
func vocabTerm(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.LastIndexAny(s, ":/#"); i >= 0 {
		s = s[i+1:]
	}
	return s
}
