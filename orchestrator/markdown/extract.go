package markdown

import (
	"context"
	"log/slog"
	"net/url"
	"runtime/debug"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxPageTextFactor is how many times the answer's bound the text of a page
// may be for Article to search it: an article is rarely a quarter of its
// page, and Readability's time grows with the text.
const maxPageTextFactor = 4

// minBlockShare is the least share of the main region's text the block
// Readability chooses must hold to be the content. An article is most of
// its region; a block under this share is one post of a thread, one card
// of a grid or one section of a service page, and the region is the
// content.
// A page that declares itself an article lowers it: its comments and
// related stories may outweigh a short story. One that declares a thread,
// a product or a list raises it.
var minBlockShare = map[pageKind]float64{kindArticle: 0.15, kindUnknown: 0.4, kindMany: 0.6}

// extract finds the main content of the document under root, in a copy the
// package owns; nil when the page has no text.
func extract(ctx context.Context, root *html.Node, base *url.URL, opts Options) (*html.Node, error) {
	c := &cleaner{ctx: ctx, base: base, panels: disclosures(root), shells: revealedShells(root), streams: streamedPlacements(root), forExtraction: true, maxElements: opts.maxElements(), maxNesting: opts.maxNesting(),
		maxText: maxPageTextFactor * opts.maxBytes(), textUnit: UnitTextBytes}
	page := c.clone(root, 0)
	if c.err != nil {
		return nil, c.err
	}
	if page == nil {
		return nil, nil
	}
	revealNoscript(page)
	markTabs(page) // before the rules weigh a row of tabs as controls
	dropLayoutTwins(page)
	// A product's declared description, and the page before the rules
	// remove a sheet or a tab that may hold it (see addDescription).
	var desc string
	var described *html.Node
	if declaresProduct(page) {
		if desc = declaredDescription(page); desc != "" {
			described = cloneTree(page)
		}
	}
	bios := declaredBios(page)
	dropDialogs(page)
	closingMain, closing := closingProse(page)
	var whole *html.Node // the page before the rules prune it, for the block model
	if opts.Chooser == ChooseByModel {
		whole = cloneTree(page)
	}
	pruneBoilerplate(page)
	dropCredits(page)
	dropChoices(page)
	dropFieldLabels(page)
	product := (declaresProduct(page) || sellsOne(page)) && pruneProduct(page)
	if product {
		pruneBeforeName(page)
	}
	kind, bare := declaredKind(page)
	var region *html.Node
	var comments []*html.Node // the region's, which its choice leaves out
	thread := false
	var regionMain *html.Node // the element the region was copied from
	if r := mainRegion(page, textLengths(page)); r != nil {
		regionMain = r
		region = cloneTree(r)
		pruneChrome(region, textLengths(region))
		thread = declaresThread(page)
		if kind != kindMany && threadShape(region) {
			kind, thread = kindMany, true // a thread that declares nothing, or calls itself an article
		}
		if thread {
			prunePosts(region, !product)
			// Before Readability reads the page: it keeps a box's class,
			// not the data attribute that may be all that names it.
			dropForumSignatures(region)
			dropForumSignatures(page)
		}
		if !thread {
			dropPostSignatures(region)
			dropPostSignatures(page)
		}
		if kind != kindMany {
			comments = pruneComments(region)
		}
		dropTitle(region, page)
	}
	art, ok := readable(page, base)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !ok {
		// The extractor failed on markup it did not foresee; the page
		// without its furniture is the next best answer.
		art = findFirst(page, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	}
	if region != nil {
		if chosen := newChosenText(art); chooseRegion(chosen, region, kind, bare) || product && missesSpecs(chosen, region) ||
			outsideMain(art, region, comments) {
			art = region
		} else {
			fillHoles(art, region, chosen, base)
			restoreLead(art, region, chosen, pageSummaries(root))
		}
	}
	if art != nil && art == region && regionMain == closingMain && len(closing) > 0 && !thread && len(cardGroups(art)) > 0 {
		// A category's description under its grid, outside <main>.
		for _, b := range closing {
			art.AppendChild(b)
		}
	}
	if art != nil && art != region && thread {
		dropRepeatedQuotes(art) // Readability's block of a thread holds the same furniture
		if !product {
			dropPostChrome(art)
		}
	}
	if art != nil {
		before := collapsedText(art)
		dropFurniture(art, base, kind, thread, product, bios)
		after := collapsedText(art)
		// The region is a tree of its own, left as it was when the block
		// was chosen; the block model reads it so, from a copy.
		if region != nil && art != region && after < maxGuttedBlock && float64(after) < maxGuttedShare*float64(before) {
			r := region
			if whole != nil {
				r = cloneTree(region)
			}
			dropFurniture(r, base, kind, thread, product, bios)
			if float64(after) < minBlockShare[kind]*float64(collapsedText(r)) {
				art = r
			}
		}
	}
	if whole != nil {
		if art = chooseBlocks(ctx, whole, page, region, art, kind, opts); art != nil {
			dropMenus(art)
			dropEmptySections(art)
		}
	}
	if art != nil && desc != "" {
		addDescription(art, described, desc)
	}
	if art != nil && linksOnly(art) {
		return nil, nil
	}
	return art, nil
}

// maxLinksOnlyWords is the most words of content made of links alone that
// is no content: a shell's few links to the site's other parts (its
// logo, "Stories", "Help") left when the rules have removed its menus and
// a script was to load the page.
const maxLinksOnlyWords = 20

// minGalleryPictures is the fewest pictures inside links that make a
// gallery: a grid of thumbnails, each leading to its photograph, is
// content however few its words; a shell's logo is one picture.
const minGalleryPictures = 3

// linksOnly reports content all of whose words are links' and that has
// fewer than maxLinksOnlyWords of them: no sentence, heading or label of
// its own, no picture or film outside a link, and fewer than
// minGalleryPictures inside links. A listing of links is longer.
func linksOnly(art *html.Node) bool {
	words, pictures, prose := 0, 0, false
	walk(art, func(k *html.Node) bool {
		switch {
		case prose || words >= maxLinksOnlyWords:
			return false
		case k.Type == html.TextNode:
			n := countWords(k.Data)
			words += n
			prose = n > 0 && !insideTag(k, atom.A)
		case k.DataAtom == atom.Img || k.DataAtom == atom.Picture || k.DataAtom == atom.Video || k.DataAtom == atom.Audio || k.DataAtom == atom.Iframe:
			prose = !insideTag(k, atom.A) // a picture or a film is content of its own
			pictures++
			return false // a <picture>'s <img> is the same picture
		case k.DataAtom == atom.Script || k.DataAtom == atom.Style:
			return false
		}
		return true
	})
	return !prose && words < maxLinksOnlyWords && pictures < minGalleryPictures
}

// maxGuttedBlock is the most text, in bytes, of a chosen block that
// dropFurniture has emptied, and maxGuttedShare the most of its text it
// left, for the main region to be weighed against it again: Readability
// may choose a box asking the reader to join, which the rules then
// remove, over a short post. A short block the rules leave whole stays
// chosen.
const (
	maxGuttedBlock = 500
	maxGuttedShare = 0.5
)

// dropFurniture removes from the content the furniture the rules know;
// bios are the page's declared descriptions of its writers (see
// declaredBios).
func dropFurniture(art *html.Node, base *url.URL, kind pageKind, thread, product bool, bios [][]string) {
	if !product {
		dropMemberCards(art, thread)
	}
	dropReactionLists(art)
	dropMenus(art)
	dropAccountPrompts(art)
	dropComposers(art)
	dropDatelines(art, kind == kindArticle)
	dropAffiliateNotes(art)
	dropConsentNotices(art)
	dropDeviceSignatures(art)
	dropListingControls(art, kind == kindMany || len(cardGroups(art)) > 0)
	dropCardChrome(art)
	dropInterfaceLabels(art)
	dropBareFields(art)
	dropTemplateSlots(art)
	dropTaxonomyLines(art, base)
	dropTrails(art, base)
	dropTableOfContents(art, base)
	dropBareCredits(art)
	dropPagers(art)
	if !thread {
		dropLabelledAuthorBoxes(art)
		dropDeclaredBios(art, bios)
	}
	if kind != kindMany {
		dropTeasers(art, base)
	} else {
		dropRecommendations(art, base)
	}
	dropOrphanTitles(art)
	dropEmptySections(art)
	dropRepeats(art, thread)
	if !thread {
		dropAdjacentRepeats(art) // a thread's posts may each repeat the topic's title
	}
}

// readable runs Readability over a copy of page; ok is false when it
// panicked, which third-party code may do on markup nobody foresaw.
func readable(page *html.Node, base *url.URL) (article *html.Node, ok bool) {
	defer func() {
		if v := recover(); v != nil {
			slog.Error("the article extractor failed on this page; the page without its furniture is used instead",
				"url", base.String(), "panic", v, "stack", string(debug.Stack()))
			article, ok = nil, false
		}
	}()
	p := readability.NewParser()
	// Classes name the language of code blocks for the converter.
	p.KeepClasses = true
	// It reads classes without the names that only say a state or a
	// style (see hideStateNames), on a copy of the page.
	hidden := hideStateNames(page)
	defer func() {
		for _, n := range hidden {
			restoreClass(n)
		}
	}()
	art, err := p.ParseDocument(page, base)
	if err != nil {
		return nil, true
	}
	restoreClasses(art.Node)
	settleAtoms(art.Node)
	return art.Node, true
}

// settleAtoms gives each element under root the atom of its tag name. The
// extractor renames elements (a <div> of phrasing content becomes a <p>)
// and makes new ones by name alone, leaving their atoms behind; the rules
// after it know elements by their atoms.
func settleAtoms(n *html.Node) {
	if n == nil {
		return
	}
	if n.Type == html.ElementNode && n.Namespace == "" {
		n.DataAtom = atom.Lookup([]byte(n.Data))
	}
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		settleAtoms(k)
	}
}

// chooseRegion reports whether the main region is the content rather than
// the block Readability chose from it: when that block is a small part of
// the region (one post of a thread, one section of a service page) or
// leaves out a series of posts, answers or cards of the region, or a grid
// of cards that outweighs it, or, short, leaves out the region's linked
// headlines. A page that declares itself an article keeps
// its block unless it is very small or the grid is much larger.
func chooseRegion(chosen *chosenText, region *html.Node, kind pageKind, bare bool) bool {
	art := chosen.art
	if art == nil {
		return true
	}
	if float64(proseLen(art)) < minBlockShare[kind]*float64(proseLen(region)) {
		return true
	}
	if bare && collapsedText(art) <= maxIntroText && missesCards(chosen, region, kindUnknown) {
		return true // a category's page, "an article" to its template, and its short introduction
	}
	if kind != kindArticle && collapsedText(art) <= maxIntroText && missedHeadlines(chosen, region) >= minMissedHeadlines {
		return true // a listing's lines around its headlines, without the headlines
	}
	return kind != kindArticle && missesSeries(chosen, region) || missesCards(chosen, region, kind) || missesBands(chosen, region, kind == kindArticle) ||
		missesTables(chosen, region)
}

// maxOutsideShare is the most of the chosen block's words that the main
// region holds for the block to be one outside it.
const maxOutsideShare = 0.5

// marksMain reports a region the page marks as its main content: <main>
// or role="main".
func marksMain(region *html.Node) bool {
	return region.DataAtom == atom.Main || strings.EqualFold(strings.TrimSpace(attr(region, "role")), "main")
}

// outsideMain reports a chosen block that lies outside the region the
// page marks as its main content, which holds more text than the block: a
// menu of featured stories in the page's header, chosen over the listing
// the page marks as its content. The region's words are counted with the
// comments its choice left out: the block may be the story with them.
func outsideMain(art, region *html.Node, comments []*html.Node) bool {
	if !marksMain(region) || collapsedText(region) < collapsedText(art) {
		return false
	}
	words := map[string]int{}
	for _, n := range append([]*html.Node{region}, comments...) {
		for _, w := range strings.Fields(strings.ToLower(flatText(n))) {
			words[w]++
		}
	}
	in, all := 0, 0
	for _, w := range strings.Fields(strings.ToLower(flatText(art))) {
		all++
		if words[w] > 0 {
			words[w]--
			in++
		}
	}
	return all > 0 && float64(in) < maxOutsideShare*float64(all)
}

// minMissedHeadlines is the fewest headlines of the region a short block
// must leave out for the region to be taken instead.
const minMissedHeadlines = 3

// missedHeadlines counts the headings of region that are links, or hold
// one, that the chosen block does not hold: the headlines of a listing's posts. The
// extractor may keep a short listing's dates and reading times and drop
// each post's headline, a heading inside a link to the post.
func missedHeadlines(chosen *chosenText, region *html.Node) int {
	n := 0
	walk(region, func(k *html.Node) bool {
		if k.Type != html.ElementNode {
			return false
		}
		if headingLevel(k) == 0 {
			return true
		}
		text := flatText(k)
		if linkedHeading(k) && len(text) >= minCardTitle && !chosen.contains(text) {
			n++
		}
		return false
	})
	return n
}

// linkedHeading reports whether the heading h is a link or holds one: a
// headline leading to a story or a product.
func linkedHeading(h *html.Node) bool {
	return insideTag(h, atom.A) || findFirst(h, func(a *html.Node) bool { return a.DataAtom == atom.A }) != nil
}
