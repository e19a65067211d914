package markdown

import (
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Teasers are the links to other stories of the site that follow or
// interrupt an article: a box headed "Related", "More from …" or "Read
// next" with a list of headlines, or a row of cards (a linked headline, a
// picture, an excerpt, a date) after the story's last paragraph. They are
// inside the block the article is chosen as, often without a class word
// that says what they are, so they are known by their heading and their
// shape.

// relatedPhrases open or make up a heading over links to other stories, in
// the common languages of the web. They are matched against the heading's
// lower-cased text.
var relatedPhrases = []string{
	// English
	"related", "more from", "more in ", "more on ", "more like this", "more stories", "more articles",
	"more posts", "more news", "read next", "read more", "what to read next", "up next", "also read",
	"you may also like", "you might also like", "you may like", "you might like", "you may also enjoy",
	"you might also enjoy", "you might enjoy", "recommended for you", "recommended reading",
	"recommended articles", "recommended posts", "recommended stories", "keep reading", "continue reading",
	"explore more", "discover more", "also in the news", "also on ", "popular posts", "popular stories",
	"most popular", "most read", "latest posts", "latest stories", "latest news", "latest articles",
	"recent posts", "recent articles", "other articles", "other posts", "other stories", "similar posts",
	"similar articles", "don't miss", "don’t miss", "editor's picks", "editors' picks", "further reading on",
	"what others are reading", "what people are reading", "people also read", "readers also read",
	"you may be interested in", "you might be interested in",
	// German
	"ähnliche artikel", "weitere artikel", "mehr zum thema", "mehr aus", "das könnte sie auch interessieren",
	"lesen sie auch", "auch interessant", "passend dazu", "verwandte",
	// French
	"à lire aussi", "a lire aussi", "lire aussi", "articles similaires", "sur le même sujet", "vous aimerez aussi",
	"articles connexes", "à découvrir aussi", "dans la même rubrique", "plus d'articles",
	// Spanish, Portuguese, Italian
	"relacionad", "te puede interesar", "también te puede", "más noticias", "lee también", "leer más",
	"leia também", "veja também", "você também pode gostar", "correlati", "potrebbe interessarti", "leggi anche",
	"articoli simili", "ti potrebbe",
	// Dutch, Polish, Russian, Turkish
	"gerelateerd", "lees ook", "meer nieuws", "ook interessant", "powiązane", "czytaj też", "czytaj także",
	"zobacz także", "zobacz też", "похожие статьи", "читайте также", "ещё по теме", "benzer haberler", "ilgili haberler",
	// Chinese, Japanese, Korean
	"相关文章", "相關文章", "推荐阅读", "推薦閱讀", "相关阅读", "関連記事", "おすすめ記事", "관련 기사", "관련글", "추천 기사",
}

// relatedNouns end a heading "More <something> <nouns>" ("More Japan travel
// guides", "More from the blog" is matched above).
var relatedNouns = []string{"articles", "stories", "posts", "guides", "news", "reads", "reviews", "recipes", "videos"}

const (
	// maxRelatedHeadingWords is the longest a heading over related links
	// is: it names the box, not a subject.
	maxRelatedHeadingWords = 8
	// maxLabelText is the most characters a line standing as a heading
	// holds.
	maxLabelText = 120
	// minRelatedLinkShare is the share of a section's text inside links
	// above which a section under a related heading is a list of links.
	minRelatedLinkShare = 0.5
	// maxTrailingProse is how much prose (text outside links, in
	// characters) may follow a block for it to stand after the article's
	// last paragraph: a date line, a "Tags" line, a copyright.
	maxTrailingProse = 200
	// minTeaserCards is the least run of teaser cards after an article.
	minTeaserCards = 3
	// minStoryFactor is how many times the teasers' text the prose before
	// them must be: the story is the larger part; a page that is mostly
	// cards is a list of stories and is left alone.
	minStoryFactor = 2
)

// boxHeading is text as a heading over a box, lower-cased, white space
// collapsed and the marks after it ("More:", "Related »") cut; ok is false
// when it is empty or longer than such a heading is.
func boxHeading(text string) (t string, ok bool) {
	t = strings.ToLower(strings.Join(strings.Fields(text), " "))
	t = strings.TrimRight(t, ":.…»›>→ ")
	return t, t != "" && len(strings.Fields(t)) <= maxRelatedHeadingWords
}

// relatedHeading reports whether text heads a box of links to other
// stories.
func relatedHeading(text string) bool {
	t, ok := boxHeading(text)
	if !ok {
		return false
	}
	if t == "recommended" {
		return true
	}
	if strings.HasPrefix(t, "related work") {
		return false // a section of a paper
	}
	for _, p := range relatedPhrases {
		if strings.Contains(t+" ", p) {
			return true
		}
	}
	if strings.HasPrefix(t, "more ") {
		for _, n := range relatedNouns {
			if strings.HasSuffix(t, " "+n) {
				return true
			}
		}
	}
	return false
}

// dropTeasers removes from the chosen content the boxes of links to other
// stories: a section under a related heading that is mostly links or that
// ends the content, and a run of teaser cards after the last paragraph.
func dropTeasers(art *html.Node, page *url.URL) {
	dropLabeledSections(art, page, relatedHeading, false)
	dropTrailingCards(art, page)
	dropInlineTeasers(art, page)
}

// inlineTeaserRe is the label of a line that points, amid a story, to
// another story of the site: "Related:", "Also read:", "Don't miss:", in
// the common languages of the web. "See also" and "Read more" are left
// out: a wiki's pointer to the article on a section's subject and a
// guide's pointer to its source are part of the text.
var inlineTeaserRe = regexp.MustCompile(`(?i)^[^\pL]*(?:also\s+read|read\s+also|related(?:\s+(?:article|story|post|reading|content|link))?|` +
	`don['’]t\s+miss|must\s+read|read\s+next|recommended(?:\s+(?:reading|article|story|post))?|you\s+(?:may|might)\s+also\s+like|` +
	`lesen\s+sie\s+auch|auch\s+interessant|(?:à\s+)?lire\s+aussi|leia\s+também|lee\s+también|leggi\s+anche|lees\s+ook|czytaj\s+(?:też|także))` +
	`\s*[:\-–—»|]\s*$`)

// maxTeaserShare is the most of the content's text that teasers may hold
// together and still go: more, and they are the page, a list of stories.
const maxTeaserShare = 0.5

// maxInlineTeaserText is the most text, in bytes, of such a line: a
// label and a headline.
const maxInlineTeaserText = 320

// dropInlineTeasers removes, from the story under art, the lines that are
// a label and one link to another page of the site ("Related: <a>Tutoring
// may not improve attendance</a>"): a pointer the site sets between a
// story's paragraphs, not a sentence of it.
func dropInlineTeasers(art *html.Node, page *url.URL) {
	var drop []*html.Node
	walk(art, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if inlineCard(n, page) {
			drop = append(drop, n)
			return false
		}
		// A heading of that shape heads what follows it, and stays (see
		// dropLabeledSections).
		if n.DataAtom != atom.P && n.DataAtom != atom.Li && n.DataAtom != atom.Div {
			return true
		}
		if textUpTo(n, maxInlineTeaserText) > maxInlineTeaserText {
			return true
		}
		var link *html.Node
		links := 0
		walk(n, func(k *html.Node) bool {
			if k.DataAtom == atom.A && strings.TrimSpace(textOf(k)) != "" {
				link = k
				links++
				return false
			}
			return k.Type == html.ElementNode && !blockTag(k) || k == n
		})
		if links != 1 || !otherPageOfSite(attr(link, "href"), page) {
			return n.DataAtom == atom.Div
		}
		text, linkText := collapseSpaces(flatText(n)), collapseSpaces(flatText(link))
		label, ok := strings.CutSuffix(strings.TrimRight(text, " *_.»"), strings.TrimRight(linkText, " *_.»"))
		if ok && inlineTeaserRe.MatchString(label) {
			drop = append(drop, n)
			return false
		}
		return n.DataAtom == atom.Div
	})
	text := 0
	for _, n := range drop {
		text += collapsedText(n)
	}
	if float64(text) > maxTeaserShare*float64(collapsedText(art)) {
		return // most of the content: the page is a list of such lines
	}
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
}

// maxInlineCardText is the most text, in bytes, of a teaser card set
// between a story's paragraphs (its label, its headline, a line of
// summary and a count), and maxInlineCardSummary the most of it beside
// the label and the headline.
const (
	maxInlineCardText    = 600
	maxInlineCardSummary = 240
)

// maxInlineCardElements is the most elements a teaser card holds; a box
// of more is no card, and the check of each box of a deep nest of them
// reads no more than this many each.
const maxInlineCardElements = 200

// inlineCard reports a box that points, amid a story, to another story
// of the site as a card: a label of its own ("Related", "Read also"), one
// heading, which is a link, and perhaps a picture and a line of summary,
// every link of it to other pages of the site. A box with no such label
// may be the story's own (a tip, a quote with its source's title), and
// one with more words than a card's beside its headline holds more than
// a card: both stay.
func inlineCard(n *html.Node, page *url.URL) bool {
	switch n.DataAtom {
	case atom.Div, atom.Aside, atom.Section:
	default:
		return false
	}
	if textUpTo(n, maxInlineCardText) > maxInlineCardText {
		return false
	}
	headings, labelled, elements := 0, false, 0
	var headline, label *html.Node
	walk(n, func(k *html.Node) bool {
		if k.Type == html.ElementNode {
			elements++
		}
		switch {
		case elements > maxInlineCardElements:
			return false
		case k == n:
			return true
		case headingLevel(k) > 0:
			headings++
			headline = k
			return false
		case k.Type != html.ElementNode:
			return false
		case !labelled && findFirst(k, func(a *html.Node) bool { return a.DataAtom == atom.A }) == nil:
			// The label, with or without the colon of a line's.
			t := strings.TrimRight(collapseSpaces(flatText(k)), " :-–—»|")
			if labelled = t != "" && inlineTeaserRe.MatchString(t+":"); labelled {
				label = k
			}
		}
		return true
	})
	if headings != 1 || !labelled || elements > maxInlineCardElements || collapsedText(n)-collapsedText(headline)-collapsedText(label) > maxInlineCardSummary {
		return false
	}
	link := findFirst(headline, func(a *html.Node) bool { return a.DataAtom == atom.A })
	for p := headline.Parent; link == nil && p != n; p = p.Parent {
		if p.DataAtom == atom.A {
			link = p // a headline inside its link
		}
	}
	return link != nil && otherPageOfSite(attr(link, "href"), page) && onlySiteLinks([]*html.Node{n}, page)
}

// dropRecommendations removes from the content of a page made of many
// blocks (a product, a thread, a listing) the boxes of other items the
// site recommends beside them: "Customers also viewed", "Similar items",
// "Related threads". Such a page's own blocks are cards and lists of
// links too, so only these headings say a box is not its content; a
// "Latest posts" or "Most popular" heading may head the listing itself.
// Under such a heading a series of cards goes wherever it stands: shops
// put "Customers also viewed" above the product's description as often
// as below it, and draw its cards with scripts rather than links. The
// related stories an article leaves out go as they do after it (see
// dropRelatedSection), under a heading that names no list of the page's
// own (see relatedBesideHeading).
func dropRecommendations(art *html.Node, page *url.URL) {
	dropLabeledSections(art, page, recommendationHeading, true)
	dropLabeledSections(art, page, relatedBesideHeading, false)
}

// listingWords name, in a heading, the lists a page of many items may be
// made of: its latest, most popular or recent stories are the listing.
var listingWords = []string{"latest", "recent", "popular", "most ", "trending", "top ", "new "}

// relatedBesideHeading reports a heading over links to other stories
// that a page of many items (a list, a product, a thread) holds beside
// its own ("Related articles", "You might also like", "More in Sauces"),
// not one over the lists such a page is made of ("Latest news", "Most
// popular").
func relatedBesideHeading(text string) bool {
	if !relatedHeading(text) {
		return false
	}
	t, _ := boxHeading(text)
	for _, w := range listingWords {
		if strings.Contains(" "+t+" ", " "+w) {
			return false
		}
	}
	return true
}

// dropLabeledSections removes the sections under the labels of art that
// heading accepts, when each is a list of links or ends the content, or,
// with anywhere, is a series of cards (see dropRelatedSection).
func dropLabeledSections(art *html.Node, page *url.URL, heading func(string) bool, anywhere bool) {
	var labels []*html.Node
	walk(art, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if label(n) {
			// A heading that is itself a link ("Related: <a>…</a>") is a
			// pointer inside the story, not a box.
			if heading(textOf(n)) && findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.A }) == nil {
				labels = append(labels, n)
			}
			return false
		}
		return true
	})
	for _, l := range labels {
		if l.Parent == nil {
			continue // removed with an earlier section
		}
		dropRelatedSection(art, l, page, anywhere)
	}
}

// recommendationPhrases open or make up a heading over other items a site
// recommends beside a product, a thread or a listing, in the common
// languages of the web, lower-cased.
var recommendationPhrases = []string{
	// English
	"also viewed", "also bought", "also purchased", "also searched", "also liked", "also like", "also enjoy",
	"also shopped", "also considered", "similar items", "similar products", "similar threads",
	"similar questions", "similar discussions", "similar listings", "similar jobs", "similar courses",
	"related items", "related products", "related threads", "related questions", "related searches",
	"related discussions", "related topics", "related listings", "related jobs", "related courses",
	"frequently bought together", "customers who", "people who", "people also", "sponsored",
	"recommended for you", "recommended products", "recommended items", "explore related", "more from this seller",
	"more to consider", "compare with similar", "complete the look", "shop the look", "pairs well with",
	"inspired by your", "hot network questions", "linked questions",
	// German, French, Spanish, Portuguese, Italian, Dutch
	"ähnliche produkte", "ähnliche artikel", "kunden kauften auch", "das könnte ihnen auch gefallen",
	"produits similaires", "vous aimerez aussi", "vous aimerez peut-être", "productos similares",
	"productos relacionados", "también te puede gustar", "produtos relacionados", "produtos semelhantes",
	"prodotti simili", "prodotti correlati", "vergelijkbare producten", "gerelateerde producten",
}

// recommendationHeading reports whether text heads a box of other items a
// site recommends.
func recommendationHeading(text string) bool {
	t, ok := boxHeading(text)
	if !ok {
		return false
	}
	for _, p := range recommendationPhrases {
		if strings.Contains(t, p) {
			return true
		}
	}
	return false
}

// label reports a heading, or a short line standing alone that serves as
// one (a paragraph or a box of a few bold words with no link).
func label(n *html.Node) bool {
	if headingLevel(n) > 0 {
		return true
	}
	switch n.DataAtom {
	case atom.P, atom.Div, atom.Span, atom.Strong, atom.B, atom.Em, atom.I, atom.Header:
	default:
		return false
	}
	if textUpTo(n, maxLabelText) > maxLabelText {
		return false // a block of text, not a line (and cheap to tell)
	}
	if findFirst(n, func(k *html.Node) bool {
		return k != n && k.DataAtom == atom.P || k.DataAtom == atom.A || k.DataAtom == atom.Img || k != n && k.DataAtom == atom.Div ||
			k.DataAtom == atom.Ul || k.DataAtom == atom.Ol || headingLevel(k) > 0
	}) != nil {
		return false
	}
	t := strings.TrimSpace(textOf(n))
	return t != "" && len(strings.Fields(t)) <= maxRelatedHeadingWords && n.Parent != nil && soleText(n)
}

// soleText reports whether n's text is all the text of its block, not a
// few words inside a sentence.
func soleText(n *html.Node) bool {
	for p := n; p.Parent != nil; p = p.Parent {
		switch p.DataAtom {
		case atom.P, atom.Div, atom.Li, atom.Section, atom.Header, atom.Body, atom.Article, atom.Main:
			// The block's text is read only as far as it outgrows n's: a
			// paragraph of thousands of emphasised words asks this of
			// each of them.
			t := collapsedText(n)
			return textUpTo(p, t) <= t
		}
	}
	return true
}

// dropRelatedSection removes the heading l and the section it heads when
// that section is a list of links, or a series of items linking only to
// other pages of the site that ends the content (or stands anywhere, with
// anywhere).
func dropRelatedSection(art, l *html.Node, page *url.URL, anywhere bool) {
	// A heading wrapped in a box of its own ("<div class=title><h3>…")
	// heads the box's following siblings.
	head := l
	for head.Parent != nil && head.Parent != art && headingBox(head.Parent, head) {
		head = head.Parent
	}
	level := headingLevel(l)
	if level == 0 {
		level = 7 // a bold line heads what follows up to any heading
	}
	var section []*html.Node
	for s := head.NextSibling; s != nil; s = s.NextSibling {
		if s.Type == html.ElementNode && s != head && headsAtOrAbove(s, level) {
			break
		}
		// A line heads the links under it, not the paragraph after them.
		if level == 7 && len(section) > 0 && s.Type == html.ElementNode && 2*proseLen(s) > collapsedText(s) {
			break
		}
		section = append(section, s)
	}
	text, links := 0, 0
	for _, s := range section {
		text += collapsedText(s)
		links += collapsedText(s) - proseLen(s)
	}
	if text == 0 {
		return // the section is elsewhere; an empty heading goes later
	}
	if float64(links) < minRelatedLinkShare*float64(text) {
		// Teaser cards (a picture, a headline, an excerpt) hold more text
		// than links; they are known by their series at the content's end.
		last := section[len(section)-1]
		if (!anywhere && proseAfter(art, last) > maxTrailingProse) || !holdsSeries(section) || !onlySiteLinks(section, page) {
			return
		}
	}
	if float64(text) > maxTeaserShare*float64(collapsedText(art)) {
		return // most of the content: the page is the list
	}
	for _, s := range section {
		s.Parent.RemoveChild(s)
	}
	head.Parent.RemoveChild(head)
}

// maxHeadingBoxExtra is the most text, in characters, a box around a
// heading holds beside it: a subtitle ("Sponsored"), a "See all" link.
const maxHeadingBoxExtra = 40

// headingBox reports whether box, the parent of head, only wraps the
// heading: it holds nothing else, or, when something follows the box,
// only a short line beside the heading ("Similar items · Sponsored · See
// all"), no list and no other heading. What the box heads is judged as
// any section is (see dropRelatedSection).
func headingBox(box, head *html.Node) bool {
	extra := collapsedText(box) - collapsedText(head)
	// An empty element beside the heading (a spacer, a slot a script
	// fills) is not something it heads.
	next := nextElement(head)
	for next != nil && next.Type == html.ElementNode && emptyBlock(next) {
		next = nextElement(next)
	}
	if next == nil && extra == 0 {
		return true
	}
	// The heading ends its box, after a short line of its own ("This
	// discussion is now closed. Related discussions"): what it heads
	// follows the box, as it does when a line follows the heading.
	if next != nil && nextElement(box) == nil || extra > maxHeadingBoxExtra {
		return false
	}
	return findFirst(box, func(k *html.Node) bool {
		return (k.DataAtom == atom.Ul || k.DataAtom == atom.Ol || headingLevel(k) > 0) && !inTree(k, head)
	}) == nil
}

// headsAtOrAbove reports whether n is or holds a heading of the given
// level or a higher rank.
func headsAtOrAbove(n *html.Node, level int) bool {
	return findFirst(n, func(k *html.Node) bool {
		l := headingLevel(k)
		return l > 0 && l <= level
	}) != nil
}

// nextElement is the next sibling element, or text that is not blank.
func nextElement(n *html.Node) *html.Node {
	for s := n.NextSibling; s != nil; s = s.NextSibling {
		if s.Type == html.ElementNode || s.Type == html.TextNode && strings.TrimSpace(s.Data) != "" {
			return s
		}
	}
	return nil
}

// proseAfter is the prose that follows n in the document order of root.
func proseAfter(root, n *html.Node) int {
	total := 0
	for p := n; p != nil && p != root; p = p.Parent {
		for s := p.NextSibling; s != nil; s = s.NextSibling {
			if s.Type == html.TextNode {
				total += collapsedLen(s.Data)
			} else {
				total += proseLen(s)
			}
		}
	}
	return total
}

// dropTrailingCards removes the last run of three or more teaser cards of
// one shape when it stands after the article's last paragraph and the
// story before it is the larger part of the content.
func dropTrailingCards(art *html.Node, page *url.URL) {
	var runs [][]*html.Node
	walk(art, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if run := teaserRun(n, page); run != nil {
			runs = append(runs, run)
			return false
		}
		return true
	})
	for i := len(runs) - 1; i >= 0; i-- {
		run := runs[i]
		last := run[len(run)-1]
		if proseAfter(art, last) > maxTrailingProse {
			return // the runs before this one are inside the story
		}
		text := 0
		for _, c := range run {
			text += collapsedText(c)
		}
		before := proseBefore(art, run[0])
		if before < minStoryFactor*text {
			return
		}
		// The same cards before it make up most of what precedes: the
		// page is a list of them, and this run is more of the list ("More
		// recent news" over the older posts), not a box of other stories.
		same := 0
		for _, earlier := range runs[:i] {
			if shapeKey(earlier[0]) == shapeKey(run[0]) {
				for _, c := range earlier {
					same += proseLen(c)
				}
			}
		}
		if 2*same >= before {
			return
		}
		for _, c := range run {
			c.Parent.RemoveChild(c)
		}
	}
}

// teaserRun is the longest run of consecutive sibling cards of one shape
// under n, when it has at least minTeaserCards.
func teaserRun(n *html.Node, page *url.URL) []*html.Node {
	var best, cur []*html.Node
	key := ""
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type != html.ElementNode {
			if k.Type == html.TextNode && strings.TrimSpace(k.Data) != "" {
				cur = nil
			}
			continue
		}
		if k.DataAtom == atom.Hr {
			continue // a rule between cards
		}
		ok := teaser(k, page)
		if !ok || len(cur) > 0 && shapeKey(k) != key {
			if len(cur) > len(best) {
				best = cur
			}
			cur = nil
			if !ok {
				continue
			}
		}
		if len(cur) == 0 {
			key = shapeKey(k)
		}
		cur = append(cur, k)
	}
	if len(cur) > len(best) {
		best = cur
	}
	if len(best) < minTeaserCards {
		return nil
	}
	return best
}

// teaser reports a card that points to another page of the same site by a
// headline standing on its own line: a story's teaser. A card whose link
// runs inside a sentence ("see <a>Publishing packages</a>") is a pointer of
// the text, and one that links to another site is an item of a list.
func teaser(n *html.Node, page *url.URL) bool {
	if _, ok := card(n); !ok || page == nil {
		return false
	}
	found := false
	walk(n, func(k *html.Node) bool {
		if found || k.Type != html.ElementNode {
			return false
		}
		if k.DataAtom != atom.A {
			return true
		}
		t := strings.TrimSpace(textOf(k))
		if len(t) < minCardTitle || !strings.ContainsRune(t, ' ') || !otherPageOfSite(attr(k, "href"), page) {
			return false
		}
		block := k
		for block != n && block.Parent != nil && !blockTag(block.Parent) {
			block = block.Parent
		}
		if block != n {
			block = block.Parent
		}
		found = collapsedText(block) == collapsedText(k)
		return false
	})
	return found
}

// blockTag reports an element that starts a line of its own.
func blockTag(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Div, atom.Li, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Section,
		atom.Article, atom.Header, atom.Footer, atom.Figure, atom.Figcaption, atom.Td, atom.Dd, atom.Dt:
		return true
	}
	return false
}

// otherPageOfSite reports whether href is a page of the site of page other
// than page itself.
func otherPageOfSite(href string, page *url.URL) bool {
	u, ok := resolveOnSite(href, page)
	return ok && strings.TrimRight(u.Path, "/") != strings.TrimRight(page.Path, "/")
}

// resolveOnSite resolves href against page, and reports whether it leads
// to a page of page's site (its host, "www." or not). The markup a page
// sends in <noscript> is read after its links were made absolute, and
// keeps its own.
func resolveOnSite(href string, page *url.URL) (*url.URL, bool) {
	if page == nil {
		return nil, false
	}
	u, err := url.Parse(href)
	if err != nil {
		return nil, false
	}
	if u = page.ResolveReference(u); u.Host == "" {
		return nil, false
	}
	site := func(h string) string { return strings.TrimPrefix(strings.ToLower(h), "www.") }
	return u, site(u.Hostname()) == site(page.Hostname())
}

// holdsSeries reports whether the nodes hold a series of at least
// minTeaserCards siblings of one shape, each with a link or a picture,
// other than paragraphs: the items of a list of stories.
func holdsSeries(nodes []*html.Node) bool {
	found := false
	check := func(parent *html.Node) {
		count := map[string]int{}
		for k := parent.FirstChild; k != nil; k = k.NextSibling {
			if k.Type != html.ElementNode || k.DataAtom == atom.P {
				continue
			}
			if findFirst(k, func(x *html.Node) bool {
				return x.DataAtom == atom.A || x.DataAtom == atom.Img || x.DataAtom == atom.Picture
			}) == nil {
				continue
			}
			key := shapeKey(k)
			count[key]++
			if count[key] >= minTeaserCards {
				found = true
			}
		}
	}
	for _, n := range nodes {
		if n.Type != html.ElementNode {
			continue
		}
		check(n)
		walk(n, func(k *html.Node) bool {
			if found || k.Type != html.ElementNode {
				return false
			}
			check(k)
			return !found
		})
	}
	return found
}

// onlySiteLinks reports whether every link under the nodes points to
// another page of the site of page: a box of the site's own stories, not a
// paragraph citing sources.
func onlySiteLinks(nodes []*html.Node, page *url.URL) bool {
	if page == nil {
		return false
	}
	ok := true
	for _, n := range nodes {
		if n.DataAtom == atom.A && !otherPageOfSite(attr(n, "href"), page) {
			return false
		}
		walk(n, func(k *html.Node) bool {
			if !ok {
				return false
			}
			if k.DataAtom == atom.A && hasAttr(k, "href") && !otherPageOfSite(attr(k, "href"), page) {
				ok = false
			}
			return true
		})
	}
	return ok
}

// maxOrphanTitle is the most text, in bytes, of a related box's title
// standing alone.
const maxOrphanTitle = 80

// dropOrphanTitles removes the titles of boxes of links to other stories
// or items left with no links: "You might also like", "What others are
// reading", "Similar threads", "Explore related questions",
// a heading or a line of its own whose box the rules above emptied, or
// the page fills by script. A title with a link after it, before the next
// heading, still heads its links and is left to the rules that weigh
// them.
func dropOrphanTitles(art *html.Node) {
	var titles []*html.Node
	walk(art, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		switch {
		case headingLevel(n) > 0, n.DataAtom == atom.P, n.DataAtom == atom.Div,
			(n.DataAtom == atom.Span || n.DataAtom == atom.Strong || n.DataAtom == atom.B) && noTextBeside(n):
		default:
			return true
		}
		if textUpTo(n, maxOrphanTitle) > maxOrphanTitle {
			return true
		}
		if text := flatText(n); relatedTitle(text) && findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.A }) == nil {
			titles = append(titles, n)
		}
		return false
	})
	for _, t := range titles {
		if !linkBeforeHeading(t, art) {
			t.Parent.RemoveChild(t)
		}
	}
}

// relatedTitle reports a text that is one of relatedPhrases and nothing
// more, "You might also like:" but not "The most popular gadgets", or
// that opens with one of recommendationPhrases, "Similar threads",
// "Explore related questions", but not "Take advantage of
// employer-sponsored plans".
func relatedTitle(text string) bool {
	t, ok := boxHeading(text)
	if !ok {
		return false
	}
	for _, p := range relatedPhrases {
		if t == strings.TrimSpace(p) {
			return true
		}
	}
	for _, p := range recommendationPhrases {
		if t == p || strings.HasPrefix(t, p+" ") {
			return true
		}
	}
	return false
}

// linkBeforeHeading reports a link after n in root's document order, and
// before the next heading (or in it).
func linkBeforeHeading(n, root *html.Node) bool {
	k := n
	for ; k != root && k.NextSibling == nil; k = k.Parent {
	}
	if k == root {
		return false
	}
	for k = k.NextSibling; k != nil; k = nextInTree(k, root) {
		if k.Type != html.ElementNode {
			continue
		}
		if headingLevel(k) > 0 {
			// A card's linked headline is one of the box's links.
			return findFirst(k, linkWithAddress) != nil
		}
		if linkWithAddress(k) {
			return true
		}
	}
	return false
}

// linkWithAddress reports a link that leads somewhere.
func linkWithAddress(n *html.Node) bool {
	return n.DataAtom == atom.A && strings.TrimSpace(attr(n, "href")) != ""
}
