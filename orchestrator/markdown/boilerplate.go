package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/meta"
)

// Boilerplate is what surrounds an article on every page of a site: cookie
// and consent banners, newsletter sign-ups, share bars, related and
// recommended stories, advertising. Readability recognises some of it by
// class names, but scores the rest like any text, and on a page whose
// article is short a banner or a sign-up form can win. These rules remove it
// first, by what the markup says it is (its tag, ARIA role, class and id
// words), never by what one site calls it.

// boilerplateWords are class and id words of page furniture.
var boilerplateWords = map[string]bool{
	"cookie": true, "cookies": true, "consent": true, "gdpr": true,
	"newsletter": true, "subscribe": true, "subscription": true, "signup": true,
	"share": true, "sharing": true, "social": true, "sharedaddy": true,
	"related": true, "recommended": true, "recommendations": true,
	"promo": true, "advert": true, "advertisement": true, "ads": true, "ad": true, "sponsor": true, "sponsored": true,
	"popup": true, "modal": true, "breadcrumb": true, "breadcrumbs": true, "pagination": true,
	"comments": true, "commentlist": true, "disqus": true,
}

// boilerplateStems are the longer boilerplate words, found also inside
// compound class names.
var boilerplateStems = []string{"cookie", "consent", "newsletter", "subscribe", "related", "recommend",
	"sponsor", "advert", "breadcrumb", "pagination", "comments", "sharing", "social"}

// boilerplateRoles are ARIA roles of blocks that are not the content.
var boilerplateRoles = map[string]bool{
	"banner": true, "navigation": true, "complementary": true, "contentinfo": true, "search": true, "dialog": true,
	"alertdialog": true, "menu": true, "menubar": true,
}

// maxBoilerplateShare is the largest share of the page's text a block may
// hold and still be removed as furniture. Furniture is small beside the
// article; a block holding more is a wrapper of the content whatever its
// words say (a body marked "has-related-posts", a column marked
// "ad-wrapper"), and Readability is left to judge it.
const maxBoilerplateShare = 0.1

// maxIDWords is the most words an id may have to be read as a name for its
// element's kind.
const maxIDWords = 3

// pruneBoilerplate removes furniture from a page the package owns.
func pruneBoilerplate(root *html.Node) {
	lengths := map[*html.Node]int{}
	var measure func(n *html.Node) int
	measure = func(n *html.Node) int {
		switch {
		case n.Type == html.TextNode:
			return collapsedLen(n.Data)
		case n.DataAtom == atom.Head || n.DataAtom == atom.Script || n.DataAtom == atom.Noscript:
			return 0 // not the page's visible text
		}
		total := 0
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			total += measure(k)
		}
		if n.Type == html.ElementNode {
			lengths[n] = total
		}
		return total
	}
	page := measure(root)
	limit := int(maxBoilerplateShare * float64(page))
	// Blocks of one class that together hold more than a piece of
	// furniture may are a series of the content the class words misname:
	// a services page's grid of "promo" boxes.
	series := map[string]int{}
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if lengths[n] <= limit && furniture(n) {
			if c := seriesKey(n); c != "" {
				series[c] += lengths[n]
			}
		}
		return true
	})
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if siteFooter(n) || siteNavigation(n, lengths[n]) ||
			float64(lengths[n]) <= maxAuthorCardShare*float64(page) && authorCard(n) {
			n.Parent.RemoveChild(n)
			return false
		}
		if lengths[n] <= limit && furniture(n) {
			if c := seriesKey(n); c != "" && series[c] > limit {
				return true
			}
			n.Parent.RemoveChild(n)
			return false
		}
		if consentCentre(n, lengths[n]) {
			n.Parent.RemoveChild(n)
			return false
		}
		return true
	})
}

// seriesKey is the class of a block that furniture names by its class
// words alone, not its tag or role, as a decoration ("promo", "ad",
// "modal"): blocks of one such class may be a series of the content. It
// is "" for other furniture.
func seriesKey(n *html.Node) string {
	switch n.DataAtom {
	case atom.Nav, atom.Aside, atom.Footer:
		return ""
	}
	if boilerplateRoles[strings.ToLower(strings.TrimSpace(attr(n, "role")))] {
		return ""
	}
	class := strings.Join(strings.Fields(attr(n, "class")), " ")
	if class == "" {
		return "" // named by its id, one of a kind
	}
	for _, w := range meta.ClassWords(class) {
		for _, stem := range seriesFurniture {
			if strings.Contains(w, stem) {
				return "" // a series, but of what is not the content
			}
		}
	}
	return n.Data + "." + class
}

// seriesFurniture are the stems of class words that name a series of
// furniture: related stories, recommendations, readers' comments. Their
// boxes go however much they hold together.
var seriesFurniture = []string{"related", "recommend", "comment", "disqus"}

// furniture reports a block that is page furniture by its tag, role or
// class and id words.
func furniture(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Html, atom.Body, atom.Main, atom.Article, atom.Head:
		return false
	case atom.Nav, atom.Aside, atom.Footer:
		return true
	case atom.A, atom.Span, atom.Em, atom.Strong, atom.B, atom.I, atom.U, atom.Small, atom.Sup, atom.Sub,
		atom.Abbr, atom.Code, atom.Img, atom.Picture, atom.Time, atom.Label, atom.Font, atom.Cite, atom.Q:
		// Inline markup inside a paragraph is part of it, whatever its class.
		return false
	}
	if strings.EqualFold(attr(n, "itemprop"), "articleBody") {
		return false
	}
	if boilerplateRoles[strings.ToLower(strings.TrimSpace(attr(n, "role")))] {
		return true
	}
	words := meta.ClassWords(attr(n, "class"))
	// An id of many words is a heading's slug ("sharing-with-a-team"), which
	// names the section's subject, not its kind.
	if id := meta.ClassWords(attr(n, "id")); len(id) <= maxIDWords {
		words = append(words, id...)
	}
	if authorBox(words) {
		return true
	}
	for _, w := range words {
		if boilerplateWords[w] {
			return true
		}
		// Long words say the same inside compounds ("relatedposts",
		// "socialshare"); short ones ("ad", "share") would match too much.
		for _, stem := range boilerplateStems {
			if strings.Contains(w, stem) {
				return true
			}
		}
	}
	return false
}

// dropEmptySections removes headings that head nothing: once the lists of
// related stories and the share bars under them are gone, their titles
// ("Related", "More on this topic", "Share this") remain, followed only by
// the next heading of the same or a higher rank, or by the end. A heading
// longer than maxSectionTitle is prose a page builder set in a heading's
// type ("For more than 40 years, we have offered …"): it stays, and so
// does a headline inside its link, a card's title: a grid's tiles may wait
// for a script to fill in their prices. So do headlines that are all a
// link, two or more in a row, a list of headlines with nothing under
// them (an archive's or a section's cards). A heading inside a list item
// is the item, as a writer marks a list of names in heading type.
func dropEmptySections(root *html.Node) {
	events := headingEvents(root)
	for i, e := range events {
		if e.heading == nil {
			continue
		}
		if events.headline(i, e.level) && (events.headline(i-1, e.level) || events.headline(i+1, e.level)) {
			continue
		}
		next := i + 1
		if next == len(events) || events[next].heading != nil && events[next].level <= e.level {
			if e.heading.Parent != nil && collapsedText(e.heading) <= maxSectionTitle {
				e.heading.Parent.RemoveChild(e.heading)
			}
		}
	}
}

// dropClosingHeadings removes the headings that end the content, with
// nothing after them, once the converter's own removals (a carousel's
// "See more", the page's repeated controls, icons) have emptied the
// sections they headed. It leaves a long heading, as dropEmptySections
// does, and a headline all of whose words are a link: a card's title,
// whose details the page it leads to gives.
func dropClosingHeadings(root *html.Node) {
	events := headingEvents(root)
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		if e.heading == nil || allLinked(e.heading) || collapsedText(e.heading) > maxSectionTitle {
			return
		}
		e.heading.Parent.RemoveChild(e.heading)
	}
}

// maxSectionTitle is the most text, in bytes, of a heading that heads a
// section; a longer one is prose a page builder set in a heading's type
// ("For more than 40 years, we have offered …").
const maxSectionTitle = 120

// sectionEvent is a heading of the content, with its level, or (heading
// nil) something a section may hold: text, a picture, a formula, a card's
// title.
type sectionEvent struct {
	heading *html.Node
	level   int
}

// sectionEvents are the events of a content, in document order.
type sectionEvents []sectionEvent

// headingEvents lists, in document order, the headings under root and
// what lies between them.
func headingEvents(root *html.Node) sectionEvents {
	var events sectionEvents
	walk(root, func(n *html.Node) bool {
		switch n.Type {
		case html.TextNode:
			if strings.TrimSpace(n.Data) != "" {
				events = append(events, sectionEvent{})
			}
		case html.ElementNode:
			if l := headingLevel(n); l > 0 {
				if insideTag(n, atom.A) || insideTag(n, atom.Li) {
					// A headline inside its link is the card's title: what it
					// names is on the page it leads to. A heading inside a
					// list item is the item.
					events = append(events, sectionEvent{})
					return false
				}
				events = append(events, sectionEvent{heading: n, level: l})
				return false
			}
			if n.DataAtom == atom.Img || n.DataAtom == atom.Picture || n.Namespace == "math" {
				events = append(events, sectionEvent{})
				return false
			}
		}
		return true
	})
	return events
}

// headline reports whether events[i] is a heading of level whose words
// are all a link's.
func (events sectionEvents) headline(i, level int) bool {
	return i >= 0 && i < len(events) && events[i].heading != nil && events[i].level == level && allLinked(events[i].heading)
}

// allLinked reports whether the words of h are all inside one link of
// it: a headline that leads to what it names.
func allLinked(h *html.Node) bool {
	a := findFirst(h, func(k *html.Node) bool { return k.DataAtom == atom.A && hasAttr(k, "href") })
	if a == nil {
		return false
	}
	text := flatText(a)
	return text != "" && text == flatText(h)
}

func headingLevel(n *html.Node) int {
	switch n.DataAtom {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

// insideTag reports whether n is inside an element of the tag.
func insideTag(n *html.Node, tag atom.Atom) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == tag {
			return true
		}
	}
	return false
}

// siteFooter reports the page's own footer: a <footer> or a block whose
// role says it is, not inside an article or the main region.
func siteFooter(n *html.Node) bool {
	if n.DataAtom != atom.Footer && !strings.EqualFold(strings.TrimSpace(attr(n, "role")), "contentinfo") {
		return false
	}
	for p := n.Parent; p != nil; p = p.Parent {
		switch p.DataAtom {
		case atom.Article, atom.Main, atom.Section:
			return false
		}
	}
	return true
}
