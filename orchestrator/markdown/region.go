package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/meta"
)

// The main region is the part of the page its author marks as the content
// (<main>, role="main") or, failing that, the body, without what every page
// of a site repeats around it: the header, the menus, the sidebars and the
// footer. On an article page Readability's choice of one block is better;
// on a thread, a grid of cards or a service page the content is many
// blocks, and the region holds them all.

// minMainShare is the least share of the body's text, outside its chrome,
// a <main> must hold to be taken as the region: some pages wrap only a
// title or a banner in it.
const minMainShare = 0.25

// mainRegion returns the region of page holding its content: the largest
// element marked main when it holds enough of the body's text, else the
// body; nil when the page has no body.
func mainRegion(page *html.Node, lengths map[*html.Node]int) *html.Node {
	body := findFirst(page, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	if body == nil {
		return nil
	}
	var best *html.Node
	walk(body, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if marksMain(n) {
			if best == nil || lengths[n] > lengths[best] {
				best = n
			}
			return false // the outermost one counts
		}
		return true
	})
	if best != nil && float64(lengths[best]) >= minMainShare*float64(lengths[body]-chromeOutside(body, best, lengths)) {
		return best
	}
	return body
}

// regionChromeWords are class and id words of the parts of a page around
// its content: its header, menus, sidebars and footer.
var regionChromeWords = map[string]bool{
	"header": true, "footer": true, "masthead": true, "navbar": true, "nav": true, "navigation": true,
	"menu": true, "sidebar": true, "topbar": true, "toolbar": true, "banner": true,
	"site-header": true, "site-footer": true,
	// A listing's panel of filters: "Category", "Price", "Brand (12)".
	"facet": true, "facets": true, "filters": true, "refinements": true,
}

// skipLinkWords follow "skip" in the class of the links that jump past a
// page's header ("skip-link", "skip-to-content", "skip-nav"); "skip"
// elsewhere is no such link: "skip-lazy" asks a plugin not to defer a
// picture, "skip-item" marks a section a reader may pass over.
var skipLinkWords = map[string]bool{"link": true, "links": true, "to": true, "nav": true, "navigation": true,
	"content": true, "main": true, "button": true}

// regionChromeRoles are the ARIA roles of the same parts.
var regionChromeRoles = map[string]bool{"banner": true, "navigation": true, "contentinfo": true, "complementary": true,
	"search": true, "menubar": true, "menu": true}

// pruneChrome removes the page's header, menus, sidebars and footer from
// region, by their tags, roles and class words, when each holds at most
// maxBoilerplateShare of the region's text.
func pruneChrome(region *html.Node, lengths map[*html.Node]int) {
	limit := int(maxBoilerplateShare * float64(lengths[region]))
	tagLimit := int(maxChromeShare * float64(lengths[region]))
	sideLimit := int(maxSidebarShare * float64(lengths[region]))
	classes := classCounts(region)
	walk(region, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		c := chrome(n)
		if c == chromeByWords && (itemsHeader(n, classes) || lengths[n] <= limit && proseMenu(n, lengths[n])) {
			return true
		}
		if c == chromeByTag && lengths[n] <= tagLimit || c == chromeByWords && lengths[n] <= limit || c == chromeSidebar && lengths[n] <= sideLimit ||
			menu(n) || siteNavigation(n, lengths[n]) {
			n.Parent.RemoveChild(n)
			return false
		}
		return true
	})
}

// itemsHeader reports a header of one of a series of items rather than
// the page's: a block whose class names it the header of a part
// ("new-listing__header", "card-header", "faq-item-header"), that
// minRepeats blocks of the region share, each heading its item (a job's
// title, a question, a product's name). The page's own header is one, and
// its class says so ("site-header", or "header" alone).
func itemsHeader(n *html.Node, classes map[string]int) bool {
	class := attr(n, "class")
	if classes[class] < minRepeats || !partHeaderClass(class) {
		return false
	}
	return findFirst(n, func(k *html.Node) bool { return headingLevel(k) > 0 }) != nil || question(n)
}

// question reports a block whose text asks a question: an FAQ's item
// header, drawn in a box with no heading. An icon beside it (a chevron
// drawn by an icon font from the word "chevron_right") is not read.
func question(n *html.Node) bool {
	if textUpTo(n, maxQuestionText) > maxQuestionText {
		return false
	}
	t := strings.TrimSpace(textSkipping(n, iconElement))
	return asks(t) && countWords(t) <= maxQuestionWords
}

// iconElement reports an element its class or aria-hidden says is an
// icon, not words.
func iconElement(n *html.Node) bool {
	return strings.EqualFold(strings.TrimSpace(attr(n, "aria-hidden")), "true") || iconClass(n)
}

// iconClass reports an element its class calls an icon.
func iconClass(n *html.Node) bool {
	for _, w := range meta.ClassWords(attr(n, "class")) {
		if w == "icon" || w == "icons" || w == "symbols" {
			return true
		}
	}
	return false
}

// maxQuestionWords is the most words of a question heading an item.
const maxQuestionWords = 30

// pageHeaderWords name, before "header" in a class, the header of the
// page or of its frame.
var pageHeaderWords = map[string]bool{"site": true, "page": true, "global": true, "main": true, "top": true, "primary": true,
	"sticky": true, "fixed": true, "mobile": true, "desktop": true, "nav": true, "navbar": true, "masthead": true}

// menuWords, in a block's class, name a menu, a bar of controls or a
// listing's filters.
var menuWords = map[string]bool{"menu": true, "nav": true, "navbar": true, "navigation": true, "toolbar": true, "topbar": true,
	"facet": true, "facets": true, "filters": true, "refinements": true}

// minMenuProse and minMenuProseShare: a block its class calls a menu
// that holds this much text, this share of it in sentences outside links,
// is prose that a widget names after its part ("faq_tabs-menu-link"
// around a question and its answer), not a menu. A menu's labels, linked
// or not ("Radeon RX 580" beside a filter's box), are no sentences.
const (
	minMenuProse      = 150
	minMenuProseShare = 0.6
)

// minMenuSentenceWords is the fewest words a run of text outside links
// has to be counted as a sentence rather than a label.
const minMenuSentenceWords = 6

// proseMenu reports a block its class calls a menu whose text is prose.
func proseMenu(n *html.Node, length int) bool {
	named := false
	for _, w := range meta.ClassWords(attr(n, "class")) {
		named = named || menuWords[w]
	}
	if !named || length < minMenuProse {
		return false
	}
	sentences := 0
	walk(n, func(k *html.Node) bool {
		if k.Type == html.TextNode && countWords(k.Data) >= minMenuSentenceWords {
			sentences += collapsedLen(k.Data)
		}
		return k.DataAtom != atom.A && k.DataAtom != atom.Script && k.DataAtom != atom.Style && k.DataAtom != atom.Noscript
	})
	return float64(sentences) >= minMenuProseShare*float64(length)
}

// partHeaderClass reports a class whose "header" is a part's: joined to
// the name of what it heads ("card-header", "listing__header").
func partHeaderClass(class string) bool {
	for tok := range strings.FieldsSeq(class) {
		words := meta.ClassWords(tok)
		for i, w := range words {
			if w == "header" {
				if i > 0 && !pageHeaderWords[words[i-1]] {
					return true
				}
				break
			}
		}
	}
	return false
}

// classCounts counts the elements under root of each class attribute.
func classCounts(root *html.Node) map[string]int {
	counts := map[string]int{}
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode {
			if c := attr(n, "class"); c != "" {
				counts[c]++
			}
		}
		return true
	})
	return counts
}

// maxNavProseShare is the largest share of its text a navigation block
// (<nav>, role="navigation") may hold outside its links and still go
// however large it is: a site's mega-menu of hundreds of links may
// outweigh a short page, but says nothing of its own.
const maxNavProseShare = 0.15

// navigation reports a block that says it is the site's navigation.
func navigation(n *html.Node) bool {
	return n.DataAtom == atom.Nav || strings.EqualFold(strings.TrimSpace(attr(n, "role")), "navigation")
}

// maxNavLabelWords is the most words of a run of text outside a menu's
// links that names a part of the menu rather than saying something: a
// mega-menu's column heads ("Accessories & Plans", "Sales and promotions")
// stand outside its links, as plain spans, in every column. A label is
// also at most maxNavLabelLen bytes long, for the scripts that set no
// spaces between words.
const (
	maxNavLabelWords = 4
	maxNavLabelLen   = 48
)

// siteNavigation reports a navigation block (see navigation) whose text
// outside its links, a menu's labels not counted, is at most
// maxNavProseShare of its length (length bytes): it goes however large
// it is.
func siteNavigation(n *html.Node, length int) bool {
	if !navigation(n) {
		return false
	}
	prose := 0
	walk(n, func(k *html.Node) bool {
		if k.Type == html.TextNode && countWords(k.Data) <= maxNavLabelWords && collapsedLen(k.Data) <= maxNavLabelLen {
			return false
		}
		return proseStep(k, &prose)
	})
	return float64(prose) <= maxNavProseShare*float64(length)
}

// maxChromeShare is the largest share of the region's text a header, menu,
// sidebar or footer known by its tag or role may hold and still be removed;
// one known by its class words only is held to maxBoilerplateShare.
const maxChromeShare = 0.3

// maxSidebarShare is the largest share of the region's text a block its
// class or id calls a sidebar may hold and still be removed. A sidebar is
// beside the content, but its lists of trending threads, filters or
// categories can be long: more than the tenth other class words are
// held to, less than half.
const maxSidebarShare = 0.5

// How a block is known as the page's chrome, if it is.
const (
	notChrome = iota
	chromeByTag
	chromeByWords
	// chromeSidebar: a class or id that names the block a sidebar
	// ("p-body-sidebar", "product__sidebar"), held to maxSidebarShare.
	chromeSidebar
)

// chrome tells whether n is the page's header, menus, sidebar or footer,
// and how it is known to be.
func chrome(n *html.Node) int {
	switch n.DataAtom {
	case atom.Header, atom.Nav, atom.Footer, atom.Aside:
		return chromeByTag
	case atom.Main, atom.Article, atom.Body:
		return notChrome
	case atom.A, atom.Span, atom.Em, atom.Strong, atom.B, atom.I, atom.Img, atom.Code, atom.Label:
		return notChrome
	}
	if regionChromeRoles[strings.ToLower(strings.TrimSpace(attr(n, "role")))] {
		return chromeByTag
	}
	if headingLevel(n) > 0 {
		// A heading heads a part of the page, whatever its class calls
		// it: an accordion's question ("accordion-header"), a section's
		// title ("section-header"). The page's header is a box.
		return notChrome
	}
	words := meta.ClassWords(attr(n, "class"))
	if id := meta.ClassWords(attr(n, "id")); len(id) <= maxIDWords {
		words = append(words, id...)
	}
	for i, w := range words {
		if w == "sidebar" && (i == 0 || !sidebarWrapperWords[words[i-1]]) && (i == len(words)-1 || !sidebarWrapperWords[words[i+1]]) {
			return chromeSidebar
		}
		if regionChromeWords[w] || w == "skip" && i+1 < len(words) && skipLinkWords[words[i+1]] {
			if (w == "header" || w == "banner" || w == "masthead") && headsPiece(n) {
				return notChrome // the piece's title over its opening paragraphs
			}
			return chromeByWords
		}
	}
	return notChrome
}

// maxPieceHeader is the most text, in bytes, of a box that headsPiece
// takes for the piece's header: a title and a paragraph or a few, not the
// page.
const maxPieceHeader = 3000

// headsPiece reports a box its class calls a header that holds the
// page's title (an <h1>) and paragraphs of prose: the piece's own header,
// its title over its opening paragraphs (a documentation page's "header"
// of its title and introduction), not the site's header, whose name and
// tagline are no prose.
func headsPiece(n *html.Node) bool {
	if n.Type != html.ElementNode || headingLevel(n) > 0 || textUpTo(n, maxPieceHeader) > maxPieceHeader {
		return false
	}
	if findFirst(n, func(h *html.Node) bool { return h.DataAtom == atom.H1 }) == nil {
		return false
	}
	prose := 0
	walk(n, func(k *html.Node) bool {
		if k.DataAtom == atom.P {
			prose += proseLen(k)
			return false
		}
		return k.Type == html.ElementNode
	})
	return prose >= minHoleProse
}

// sidebarWrapperWords, before or after "sidebar" in a class name, make it
// the name of a box around the content and its sidebar, or of a page that
// has one: "has-sidebar", "content-sidebar-wrap", "sidebar-layout".
var sidebarWrapperWords = map[string]bool{"has": true, "with": true, "no": true, "without": true, "wrap": true, "wrapper": true,
	"layout": true, "container": true, "page": true, "template": true, "content": true, "open": true, "active": true, "enabled": true}

// dropTitle removes the region's first heading when it is the page's
// title: the answer's frontmatter or the caller states the title, and
// the body does not repeat it.
func dropTitle(region, page *html.Node) {
	title := ""
	if t := findFirst(page, func(n *html.Node) bool { return n.DataAtom == atom.Title }); t != nil {
		title = strings.ToLower(flatText(t))
	}
	h := findFirst(region, func(n *html.Node) bool { return headingLevel(n) > 0 })
	if h == nil || title == "" {
		return
	}
	if text := strings.ToLower(flatText(h)); text != "" && strings.Contains(title, text) {
		h.Parent.RemoveChild(h)
	}
}

// textLengths maps every element under root to the length of its visible
// text, each run of white space counted once.
func textLengths(root *html.Node) map[*html.Node]int {
	lengths := map[*html.Node]int{}
	var measure func(n *html.Node) int
	measure = func(n *html.Node) int {
		switch {
		case n.Type == html.TextNode:
			return collapsedLen(n.Data)
		case n.DataAtom == atom.Head || n.DataAtom == atom.Script || n.DataAtom == atom.Noscript ||
			n.DataAtom == atom.Style || n.DataAtom == atom.Template:
			return 0
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
	measure(root)
	return lengths
}

// cloneTree copies n and all it holds.
func cloneTree(n *html.Node) *html.Node {
	out := &html.Node{Type: n.Type, Data: n.Data, DataAtom: n.DataAtom, Namespace: n.Namespace}
	out.Attr = append([]html.Attribute(nil), n.Attr...)
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		out.AppendChild(cloneTree(k))
	}
	return out
}

// proseLen is the length of the text under n outside links: what a block
// says rather than where it leads. Menus and link lists add nothing to it.
func proseLen(n *html.Node) int {
	total := 0
	walk(n, func(k *html.Node) bool { return proseStep(k, &total) })
	return total
}

// proseStep adds k's length to total when k is text, and reports whether
// a walk counting prose goes down into k: links, scripts and styles hold
// none.
func proseStep(k *html.Node, total *int) bool {
	switch {
	case k.Type == html.TextNode:
		*total += collapsedLen(k.Data)
	case k.DataAtom == atom.A, k.DataAtom == atom.Script, k.DataAtom == atom.Noscript, k.DataAtom == atom.Style:
		return false
	}
	return true
}

// revealNoscript puts the markup of the page's <noscript> elements in
// their place when it holds more than what the page shows without them:
// forums and single-page applications send their whole content there for
// clients without script (crawlers, reader modes) and an empty shell for
// the rest. A page whose <noscript> holds only a tracking pixel or a
// "please enable JavaScript" line keeps what it shows.
func revealNoscript(page *html.Node) {
	body := findFirst(page, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	if body == nil {
		return
	}
	shown := textLengths(body)[body]
	type reveal struct {
		at    *html.Node
		nodes []*html.Node
	}
	var reveals []reveal
	hiddenText := 0
	walk(body, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if n.DataAtom != atom.Noscript {
			return true
		}
		if n.FirstChild == nil || n.FirstChild.Type != html.TextNode {
			return false
		}
		nodes, err := parseNoscript(n.FirstChild.Data)
		if err != nil {
			return false
		}
		for _, k := range nodes {
			if k.Type == html.TextNode {
				hiddenText += collapsedLen(k.Data)
			} else if k.Type == html.ElementNode {
				hiddenText += textLengths(k)[k]
			}
		}
		reveals = append(reveals, reveal{n, nodes})
		return false
	})
	if hiddenText <= minNoscriptFactor*shown || hiddenText < minNoscriptText {
		return
	}
	for _, r := range reveals {
		for _, k := range r.nodes {
			r.at.Parent.InsertBefore(k, r.at)
		}
		r.at.Parent.RemoveChild(r.at)
	}
}

// A page's <noscript> markup replaces what it shows when it holds more
// than minNoscriptFactor times as much text, and at least minNoscriptText.
const (
	minNoscriptFactor = 2
	minNoscriptText   = 200
)

// Repeated blocks: a page's posts, answers and cards are siblings of the
// same tag and class, each with some prose of its own.
const (
	// minRepeats is the fewest such siblings that make a series.
	minRepeats = 3
	// minRepeatProse is the least prose, in bytes, each member holds.
	minRepeatProse = 80
	// minRepeatProseShare is the least share of a member's text outside
	// links.
	minRepeatProseShare = 0.7
	// minMissedShare is the share of the chosen block's prose that the
	// series members it left out must hold together for the region to
	// be taken instead.
	minMissedShare = 0.3
)

// missesSeries reports whether the chosen block, taken from the page, leaves
// out a series of repeated blocks of region that is a real part of the
// content: the answers under a question, the replies under a post, the
// cards beside a featured one.
func missesSeries(chosen *chosenText, region *html.Node) bool {
	missed := 0
	// The region's own children are a series too (posts straight under
	// <main>), and walk visits only what is below region.
	seriesIn := func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		groups := map[string][]*html.Node{}
		var order []string
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if k.Type != html.ElementNode || k.DataAtom == atom.A {
				continue
			}
			// A member says something of its own: a post or a card with a
			// text, not a teaser that is mostly its link.
			if p := proseLen(k); p < minRepeatProse || float64(p) < minRepeatProseShare*float64(collapsedText(k)) {
				continue
			}
			key := k.Data + "." + attr(k, "class")
			if groups[key] == nil {
				order = append(order, key)
			}
			groups[key] = append(groups[key], k)
		}
		for _, key := range order {
			g := groups[key]
			if len(g) < minRepeats {
				continue
			}
			for _, k := range g {
				if !chosen.holds(k) {
					missed += proseLen(k)
				}
			}
		}
		return true
	}
	seriesIn(region)
	walk(region, seriesIn)
	return float64(missed) >= minMissedShare*float64(proseLen(chosen.art))
}

// A menu is a list of links named in a word or two: the site's sections,
// its categories, its designers A to Z. A list of stories or products
// names each in a phrase, and a list of points says things between its
// links.
const (
	// minMenuLinks is the fewest links a menu has.
	minMenuLinks = 5
	// minMenuLinkShare is the least share of a menu's text inside links.
	minMenuLinkShare = 0.85
	// maxMenuLinkWords is the most words a menu's links have on average.
	maxMenuLinkWords = 3.0
)

// menuItemRoles are the ARIA roles of a choice in a menu or a list box:
// a control, not content, whatever it links to.
var menuItemRoles = map[string]bool{"menuitem": true, "menuitemradio": true, "menuitemcheckbox": true, "option": true}

// menuItem reports an element that says it is an item of a menu.
func menuItem(n *html.Node) bool {
	return menuItemRoles[strings.ToLower(strings.TrimSpace(attr(n, "role")))]
}

// menu reports a list, or a box of boxes of one link each (see
// linkBoxes), that is a menu of links.
func menu(n *html.Node) bool {
	if n.DataAtom != atom.Ul && n.DataAtom != atom.Ol && !linkBoxes(n) {
		return false
	}
	links, linkWords, linkText, addresses := 0, 0, 0, 0
	walk(n, func(k *html.Node) bool {
		if k.DataAtom == atom.A {
			t := textOf(k)
			if w := len(strings.Fields(t)); w > 0 {
				links++
				linkWords += w
				linkText += collapsedLen(t)
				if namedByAddress(t) {
					addresses++
				}
			}
			return false
		}
		return true
	})
	// Links named by their addresses are a list of sources, not a menu.
	if links < minMenuLinks || pictured(n) || 2*addresses >= links {
		return false
	}
	total := collapsedLen(textOf(n))
	return float64(linkText) >= minMenuLinkShare*float64(total) &&
		float64(linkWords) <= maxMenuLinkWords*float64(links)
}

// namedByAddress reports a link's text that is a web address.
func namedByAddress(text string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	return strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://") || strings.HasPrefix(t, "www.")
}

// linkBoxes reports a box whose children are minMenuLinks or more boxes
// of one link each and nothing beside it, words only: a menu drawn
// without a list (a site's footer of "Help", "Status", "About").
func linkBoxes(n *html.Node) bool {
	if n.DataAtom != atom.Div && n.DataAtom != atom.Nav && n.DataAtom != atom.Section {
		return false
	}
	boxes := 0
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		switch {
		case k.Type == html.TextNode && strings.TrimSpace(k.Data) != "":
			return false
		case k.Type != html.ElementNode:
			continue
		}
		if k.DataAtom != atom.Div && k.DataAtom != atom.Span {
			return false
		}
		links, tile := 0, false
		walk(k, func(x *html.Node) bool {
			switch {
			case x.DataAtom == atom.A:
				links++
			case x.DataAtom == atom.Img, x.DataAtom == atom.Picture, headingLevel(x) > 0:
				tile = true // a category's tile, its picture and name: content of a catalogue
			}
			return true
		})
		if links != 1 || tile || proseLen(k) > 0 {
			return false
		}
		boxes++
	}
	return boxes >= minMenuLinks
}

// pictured reports a list most of whose items are a product's card: a
// picture and a price, whatever links its name and colours make; a
// menu's item, a category's tile with a picture or not, has no price.
func pictured(list *html.Node) bool {
	items, cards := 0, 0
	for k := list.FirstChild; k != nil; k = k.NextSibling {
		if k.DataAtom != atom.Li {
			continue
		}
		items++
		if findFirst(k, func(n *html.Node) bool { return n.DataAtom == atom.Img || n.DataAtom == atom.Picture }) != nil &&
			priceRE.MatchString(flatText(k)) {
			cards++
		}
	}
	return items >= minMenuLinks && 2*cards > items
}

// dropMenus removes the menus of links left in the content, whichever
// way it was chosen.
func dropMenus(root *html.Node) {
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if menu(n) || menuItem(n) {
			n.Parent.RemoveChild(n)
			return false
		}
		return true
	})
}

// commentBoxWords follow "comment" in the class or id of a box of
// readers' comments written apart ("comment-list", "comment_section",
// "commentArea"); "comment" alone names one comment, or a post of a
// thread.
var commentBoxWords = map[string]bool{"list": true, "section": true, "area": true, "thread": true}

// pruneComments removes the readers' comments under a story from the
// region: a block named as the comments, whatever its size. A page that
// declares itself a thread or a question keeps them, as its content. It
// returns the blocks it removed.
func pruneComments(region *html.Node) (removed []*html.Node) {
	walk(region, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		words := meta.ClassWords(attr(n, "class"))
		if id := meta.ClassWords(attr(n, "id")); len(id) <= maxIDWords {
			words = append(words, id...)
		}
		for i, w := range words {
			if w == "comments" || strings.HasPrefix(w, "commentlist") || w == "disqus" ||
				w == "comment" && i+1 < len(words) && commentBoxWords[words[i+1]] {
				n.Parent.RemoveChild(n)
				removed = append(removed, n)
				return false
			}
		}
		return true
	})
	return removed
}

// A page built as a stack of bands: each section of a services or landing
// page is a full-width box of its own, of one tag and class, the class
// names numbered or varied per band. The extractor takes the band with
// the most text, one section of many.
const (
	// minBands is the fewest bands that make such a page.
	minBands = 3
	// minBandProse is the least prose, in bytes, each band holds.
	minBandProse = 150
	// minMissedBandFactor is how much prose, as a share of the chosen
	// block's, the bands it leaves out hold together for the region to be
	// taken: half on a page of sections, nine tenths on a page that
	// declares an article, whose story may stand beside bands of other
	// matters.
	minMissedBandFactor        = 0.5
	minMissedArticleBandFactor = 0.9
)

// missesBands reports whether the chosen block, taken from the page, is one
// band of a stack of them in region, whose other bands hold more prose
// than it. On a page that declares an article, a box of headlines (linked
// headings) is a band of teasers, a news site's "More in Opinion" beside
// its story; on others, a listing's bands of posts are its content.
func missesBands(chosen *chosenText, region *html.Node, article bool) bool {
	factor := minMissedBandFactor
	if article {
		factor = minMissedArticleBandFactor
	}
	limit := factor * float64(proseLen(chosen.art))
	found := false
	visit := func(n *html.Node) bool {
		if found || n.Type != html.ElementNode {
			return false
		}
		groups := map[string][]*html.Node{}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if k.Type != html.ElementNode || proseLen(k) < minBandProse || article && holdsHeadlines(k) {
				continue
			}
			for _, key := range bandKeys(k) {
				groups[key] = append(groups[key], k)
			}
		}
		for _, g := range groups {
			if len(g) < minBands {
				continue
			}
			kept, missed := 0, 0
			for _, k := range g {
				if chosen.holds(k) {
					kept++
				} else {
					missed += proseLen(k)
				}
			}
			found = found || kept > 0 && float64(missed) > limit
		}
		return !found
	}
	if visit(region) {
		walk(region, visit)
	}
	return found
}

// holdsHeadlines reports whether n holds a heading that is a link or
// holds one.
func holdsHeadlines(n *html.Node) bool {
	return findFirst(n, func(h *html.Node) bool { return headingLevel(h) > 0 && linkedHeading(h) }) != nil
}

// bandKeys names the stacks the band k may belong to: its tag with each
// word of its class, the digits that number a band trimmed. A builder's
// panels share a word ("so-panel widget") and each names its own kind of
// block after it.
func bandKeys(k *html.Node) []string {
	f := strings.Fields(attr(k, "class"))
	if len(f) == 0 {
		return []string{k.Data + "."}
	}
	keys := make([]string, 0, len(f))
	seen := map[string]bool{}
	for _, c := range f {
		key := k.Data + "." + strings.TrimRight(c, "0123456789")
		if !seen[key] {
			seen[key] = true
			keys = append(keys, key)
		}
	}
	return keys
}
