package markdown

import (
	"encoding/json"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pageKind is what a page declares itself to be, as far as choosing its
// content goes.
type pageKind int

const (
	// kindUnknown pages declare nothing the choice can use.
	kindUnknown pageKind = iota
	// kindArticle pages are one text: a story, a post, a guide, a recipe.
	kindArticle
	// kindMany pages are many blocks of equal standing: a thread's posts,
	// a question's answers, a grid of products, a list of items.
	kindMany
)

// manyTypes are schema.org types of pages whose content is many blocks.
var manyTypes = map[string]bool{
	"qapage": true, "discussionforumposting": true, "question": true, "answer": true,
	"itemlist": true, "collectionpage": true, "searchresultspage": true, "offercatalog": true,
	"product": true, "productgroup": true, "faqpage": true, "someproducts": true,
}

// articleTypes are schema.org types of pages whose content is one text.
var articleTypes = map[string]bool{
	"article": true, "newsarticle": true, "blogposting": true, "reportagenewsarticle": true,
	"analysisnewsarticle": true, "opinionnewsarticle": true, "reviewnewsarticle": true,
	"backgroundnewsarticle": true, "scholarlyarticle": true, "techarticle": true, "recipe": true,
	"liveblogposting": true, "report": true,
}

// declaredKind reads the page's JSON-LD types and its og:type. A page that
// declares a thread, a product or a list is kindMany whatever else it
// declares (news sites call every page an article), but a FAQPage beside
// an article is the article's questions; else a declared
// article is kindArticle, unless WordPress marks it as one of the site's
// pages ("type-page"), not a post: a services or landing page whose SEO
// plugin calls every page an article. bare reports an article declared
// only by og:type, with no article's date beside it nor a JSON-LD
// article: what many templates say of every page, a category's too.
func declaredKind(root *html.Node) (kind pageKind, bare bool) {
	many, ldArticle, ogArticle, dated, wpPage := false, false, false, false, false
	faq, qa := false, false // a FAQPage, and questions or answers
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if doc, ok := jsonLD(n); ok {
			ldTypedNodes(doc, 0, func(t string, node map[string]any) {
				t = strings.ToLower(t[strings.LastIndexAny(t, "/:")+1:])
				switch {
				case t == "faqpage":
					faq = true
				case t == "question", t == "answer":
					qa = true
				case productTypes[t] && ratingOnly(node):
					// a service's or an article's stars
				default:
					many = many || manyTypes[t]
				}
				ldArticle = ldArticle || articleTypes[t]
			})
			return false
		}
		switch {
		case hasClass(n, "type-page"):
			wpPage = true
			return true
		case n.DataAtom == atom.Meta && strings.EqualFold(attr(n, "property"), "og:type"):
			ogArticle = ogArticle || strings.EqualFold(strings.TrimSpace(attr(n, "content")), "article")
			return false
		case n.DataAtom == atom.Meta:
			switch strings.ToLower(attr(n, "property")) {
			case "article:published_time", "article:modified_time":
				dated = true
			}
			return false
		}
		return true
	})
	// An article's questions and answers, declared as a FAQPage for the
	// search engines, are a section of the article; questions and
	// answers declared without one are a thread's.
	many = many || qa && !faq || faq && !ldArticle && !ogArticle
	switch {
	case many:
		return kindMany, false
	case (ldArticle || ogArticle) && !wpPage:
		return kindArticle, !ldArticle && !dated
	}
	return kindUnknown, false
}

// ldScript reports a script of JSON-LD.
func ldScript(n *html.Node) bool {
	return n.DataAtom == atom.Script && strings.EqualFold(strings.TrimSpace(attr(n, "type")), "application/ld+json")
}

// jsonLD reports whether n is a script of JSON-LD, and gives its
// document: nil when the script is empty or does not parse.
func jsonLD(n *html.Node) (doc any, ok bool) {
	if !ldScript(n) {
		return nil, false
	}
	if n.FirstChild == nil || json.Unmarshal([]byte(n.FirstChild.Data), &doc) != nil {
		return nil, true
	}
	return doc, true
}

// eachJSONLD calls found with each JSON-LD document under root that
// parses.
func eachJSONLD(root *html.Node, found func(doc any)) {
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		doc, ok := jsonLD(n)
		if ok && doc != nil {
			found(doc)
		}
		return n.DataAtom != atom.Script
	})
}

// maxLDDepth bounds the walk through a JSON-LD document.
const maxLDDepth = 12

// nodeTypes calls found with each @type of a JSON-LD node, as written.
func nodeTypes(node map[string]any, found func(string)) {
	switch t := node["@type"].(type) {
	case string:
		found(t)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				found(s)
			}
		}
	}
}

// ldTypes calls found with each @type in v, at any depth up to maxLDDepth.
func ldTypes(v any, depth int, found func(string)) {
	ldTypedNodes(v, depth, func(t string, _ map[string]any) { found(t) })
}

// ldTypedNodes calls found with each @type in v and the node that has
// it, at any depth up to maxLDDepth.
func ldTypedNodes(v any, depth int, found func(string, map[string]any)) {
	if depth > maxLDDepth {
		return
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			ldTypedNodes(e, depth+1, found)
		}
	case map[string]any:
		nodeTypes(x, func(t string) { found(t, x) })
		for k, e := range x {
			if k != "@type" {
				ldTypedNodes(e, depth+1, found)
			}
		}
	}
}

// hasClass reports whether n's class attribute holds the word c.
func hasClass(n *html.Node, c string) bool {
	for _, w := range strings.Fields(attr(n, "class")) {
		if w == c {
			return true
		}
	}
	return false
}
