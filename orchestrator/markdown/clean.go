package markdown

import (
	"context"
	"iter"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxDepth is the deepest element the copy keeps. The HTML parser stops at
// 512 open elements, but a document built another way may go deeper, and
// both the extractor and the converter recurse; past it, elements give way
// to their text.
const maxDepth = 400

// checkEvery is how many nodes a walk visits between two looks at its
// context: often enough to stop within milliseconds, rarely enough to cost
// nothing.
const checkEvery = 4096

// cleaner copies a document into a tree the package owns, leaving behind
// what a reader never sees: scripts, styles, hidden elements, comments and
// event handlers, and for the converter also form controls, embedded frames
// and media. The copy is what the extractor may rearrange and the converter
// reads, so the caller's document is never touched.
type cleaner struct {
	ctx  context.Context
	base *url.URL
	// forExtraction keeps what Readability reads and the converter drops:
	// the head and JSON-LD (for the headline it removes from the body),
	// <noscript> (whose images replace lazy placeholders), and the media
	// and form controls it weighs a block's worth by.
	forExtraction bool

	// maxElements, maxNesting and maxText stop the copy as soon as it
	// passes them, so that refusing a huge page costs no more than the
	// bound; 0 for none. nesting is the levels of nesting past
	// freeNesting summed over the elements copied (see
	// Options.maxNesting).
	maxElements, maxNesting, maxText int
	textUnit                         string
	nesting                          int

	// panels are the panels the page's controls open (see
	// disclosures): hidden, they are still the page's content.
	panels *panelSet

	// shells are the wrappers hidden until a script shows the page (see
	// revealedShells): hidden, they are still the page.
	shells map[*html.Node]bool

	// streams says where the segments of a streamed page go (see
	// streamedPlacements).
	streams *streamPlan

	// hosts are the shadow hosts whose shadow tree the copy is in, the
	// innermost last (see shadowTree).
	hosts []*shadowHost

	visited  int
	elements int // elements copied
	text     int // bytes of text copied, each run of white space counted once
	err      error
}

// zeroWidth are the characters that take no room: the zero-width space,
// non-joiner and joiner, the word joiner and the byte-order mark.
const zeroWidth = "\u200b\u200c\u200d\u2060\ufeff"

// zeroWidthOnly reports text of white space and zero-width characters,
// with at least one of the latter. Within words they stay: a joiner
// makes one emoji of several.
func zeroWidthOnly(s string) bool {
	found := false
	for _, r := range s {
		switch {
		case strings.ContainsRune(zeroWidth, r):
			found = true
		case !unicode.IsSpace(r):
			return false
		}
	}
	return found
}

// dropZeroWidth is a strings.Map function that drops zero-width
// characters.
func dropZeroWidth(r rune) rune {
	if strings.ContainsRune(zeroWidth, r) {
		return -1
	}
	return r
}

// clone copies n and what it holds; nil when n is dropped.
func (c *cleaner) clone(n *html.Node, depth int) *html.Node {
	if c.err != nil || !c.tick() {
		return nil
	}
	switch n.Type {
	case html.TextNode:
		c.text += collapsedLen(n.Data)
		if c.maxText > 0 && c.text > c.maxText {
			c.err = &TooLargeError{Limit: c.maxText, Unit: c.textUnit}
			return nil
		}
		data := n.Data
		if texGroupMarker(data) {
			return nil
		}
		if zeroWidthOnly(data) {
			// An empty paragraph some editors fill with a zero-width
			// joiner or space ("<p>&zwj;</p>") is empty.
			if data = strings.Map(dropZeroWidth, data); data == "" {
				return nil
			}
		}
		// A soft hyphen is a hint where a line may break inside a word
		// (a justified column's "appli&shy;cants"); a reader sees the word
		// whole, and so should a reader of the Markdown.
		data = strings.ReplaceAll(data, "\u00ad", "")
		return &html.Node{Type: html.TextNode, Data: data}
	case html.DocumentNode:
		out := &html.Node{Type: html.DocumentNode}
		c.cloneChildren(out, n, depth)
		return out
	case html.ElementNode:
	default: // comments, doctypes, raw nodes
		return nil
	}
	if c.streams.placedElsewhere(n) {
		return nil // copied where its call moves it
	}
	if c.drop(n) {
		if hidden(n) && n.DataAtom != atom.Script {
			return c.keptOfHidden(n, depth)
		}
		return nil
	}
	if depth >= maxDepth {
		// Too deep to keep as structure; keep the words.
		out := &html.Node{Type: html.ElementNode, Data: "span", DataAtom: atom.Span}
		c.flattenText(out, n)
		return out
	}
	c.elements++
	if c.maxElements > 0 && c.elements > c.maxElements {
		c.err = &TooLargeError{Limit: c.maxElements, Unit: UnitElements}
		return nil
	}
	c.nesting += max(0, depth+1-freeNesting)
	if c.maxNesting > 0 && c.nesting > c.maxNesting {
		c.err = &TooLargeError{Limit: c.maxNesting, Unit: UnitNesting}
		return nil
	}
	if styledAsCode(n) {
		return c.codeOf(n)
	}
	out := &html.Node{Type: html.ElementNode, Data: n.Data, DataAtom: n.DataAtom, Namespace: n.Namespace}
	if strings.EqualFold(n.Data, formulaTag) {
		// The element prepare writes a formula's Markdown with is the
		// copy's own: a page's element of that name is text, or it could
		// write into the answer what no rule has seen (a script link, raw
		// HTML).
		out.Data, out.DataAtom, out.Namespace = "span", atom.Span, ""
	}
	if opener(n, c.panels) || wordsOfASentence(n) || headingButton(n) {
		// The question of an FAQ, the title of a section or words of a
		// sentence, not a form control: its words are kept.
		out.Data, out.DataAtom = "span", atom.Span
	}
	if n.DataAtom == atom.Ul && numberedByStyle(n) {
		out.Data, out.DataAtom = "ol", atom.Ol
	}
	if c.tabButton(n) {
		// A tab's label, which prepare writes over its panel (see
		// labelTabs).
		out.Data, out.DataAtom = "span", atom.Span
	}
	if n.DataAtom == atom.A && !leadsAway(n) && c.inOpener(n) {
		// The label of an accordion's control, written as a link that
		// leads to no other page, is the question its panel answers:
		// weighed as a link, it would make its section look like a menu.
		out.Data, out.DataAtom = "span", atom.Span
	}
	for _, a := range n.Attr {
		if keep, v := c.attr(n, a); keep {
			out.Attr = append(out.Attr, html.Attribute{Key: a.Key, Val: v})
		}
	}
	if hidden(n) || behindModal(n) || streamedSegment(n) {
		// A disclosed panel, as the page shows it opened; the page behind
		// a dialog; a streamed part no call moves, where it is.
		out.Attr = shown(out.Attr)
	}
	if composer(n) {
		out.Attr = append(out.Attr, html.Attribute{Key: composerAttr})
	}
	c.cloneChildren(out, n, depth+1)
	return out
}

func (c *cleaner) cloneChildren(dst, src *html.Node, depth int) {
	if src.Type == html.ElementNode {
		if tree := shadowTree(src); tree != nil {
			// A host shows its shadow tree, its light children where the
			// tree's slots take them.
			c.hosts = append(c.hosts, &shadowHost{node: src, tree: tree})
			c.cloneChildren(dst, tree, depth)
			c.hosts = c.hosts[:len(c.hosts)-1]
			return
		}
	}
	for k := src.FirstChild; k != nil; k = k.NextSibling {
		if seg := c.streams.segmentFor(k); seg != nil {
			c.cloneChildren(dst, seg, depth)
			if c.streams.boundary[k] {
				// The segment replaces the boundary's fallback.
				if k = fallbackEnd(k); k == nil {
					return
				}
			}
			continue
		}
		if k.Type == html.ElementNode && k.Data == "slot" && k.Namespace == "" && len(c.hosts) > 0 {
			c.fillSlot(dst, k, depth)
			continue
		}
		if k.Type == html.ElementNode && k.DataAtom == atom.Noscript && c.unwrapNoscriptImage(dst, k, depth) {
			continue
		}
		if cp := c.clone(k, depth); cp != nil {
			dst.AppendChild(cp)
		}
	}
}

// A page may ship a component's shadow tree in its HTML, as a template
// the parser attaches to its host (<template shadowrootmode="open">,
// declarative shadow DOM), and glimpse serializes a rendered page's open
// shadow roots the same way. The browser shows the shadow tree in place of
// the host's children, each child where a slot of the tree takes it: the
// copy does the same, so the text a reader sees is the text converted.

// shadowHost is a host whose shadow tree is being copied, with the slot
// names already filled: a child goes to the first slot of its name.
type shadowHost struct {
	node, tree *html.Node
	filled     map[string]bool
}

// shadowTree is the declarative shadow root of n: its first child
// element, when that is a template with a shadowrootmode (or the older
// shadowroot) attribute; nil otherwise.
func shadowTree(n *html.Node) *html.Node {
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type != html.ElementNode {
			continue
		}
		if k.DataAtom == atom.Template && (hasAttr(k, "shadowrootmode") || hasAttr(k, "shadowroot")) {
			return k
		}
		return nil
	}
	return nil
}

// fillSlot copies into dst what the slot shows: the innermost host's
// children assigned to it (by their slot attribute; those without one go
// to the slot without a name), copied in the host's own scope; or, when
// none is, or a slot of the same name came first, the slot's own
// children.
func (c *cleaner) fillSlot(dst, slot *html.Node, depth int) {
	h := c.hosts[len(c.hosts)-1]
	name := strings.TrimSpace(attr(slot, "name"))
	if h.filled == nil {
		h.filled = map[string]bool{}
	}
	if !h.filled[name] {
		h.filled[name] = true
		var assigned []*html.Node
		for k := h.node.FirstChild; k != nil; k = k.NextSibling {
			if k == h.tree {
				continue
			}
			switch k.Type {
			case html.ElementNode:
				if strings.TrimSpace(attr(k, "slot")) == name {
					assigned = append(assigned, k)
				}
			case html.TextNode:
				if name == "" {
					assigned = append(assigned, k)
				}
			}
		}
		if slices.ContainsFunc(assigned, func(k *html.Node) bool {
			return k.Type == html.ElementNode || strings.TrimSpace(k.Data) != ""
		}) {
			outer := c.hosts
			c.hosts = outer[:len(outer)-1]
			for _, k := range assigned {
				if cp := c.clone(k, depth); cp != nil {
					dst.AppendChild(cp)
				}
			}
			c.hosts = outer
			return
		}
	}
	c.cloneChildren(dst, slot, depth)
}

// keptOfHidden keeps, in a span, what a hidden element holds that is
// read whether or not it is shown, or gives nil: its MathML formulas (a
// page that draws its formulas as images hides their MathML twin from
// sight, but the formula is the content and the image only its picture),
// and, for extraction, its JSON-LD (what a page declares itself to be, a
// product or an article, holds wherever the script stands; some sites
// write it into a footer hidden from assistive technology).
func (c *cleaner) keptOfHidden(n *html.Node, depth int) *html.Node {
	var box *html.Node
	walk(n, func(k *html.Node) bool {
		if k.Type != html.ElementNode || c.err != nil || !c.tick() {
			return false
		}
		formula := k.Namespace == "math" && k.Data == "math"
		declared := c.forExtraction && ldScript(k)
		if !formula && !declared {
			return true
		}
		if cp := c.clone(k, depth+1); cp != nil {
			if box == nil {
				box = &html.Node{Type: html.ElementNode, Data: "span", DataAtom: atom.Span}
			}
			box.AppendChild(cp)
		}
		return false
	})
	return box
}

// flattenText appends the text of n's visible descendants to dst, without
// recursion, so that no nesting depth reaches the stack.
func (c *cleaner) flattenText(dst, n *html.Node) {
	var sb strings.Builder
	stack := []*html.Node{n}
	for len(stack) > 0 && c.err == nil && c.tick() {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch cur.Type {
		case html.TextNode:
			sb.WriteString(cur.Data)
			continue
		case html.ElementNode:
			if c.drop(cur) {
				continue
			}
			sb.WriteByte(' ')
		default:
			continue
		}
		for k := cur.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, k)
		}
	}
	c.text += collapsedLen(sb.String())
	dst.AppendChild(&html.Node{Type: html.TextNode, Data: sb.String()})
}

// tick counts a visited node and looks at the context now and then; false
// once the context has ended.
func (c *cleaner) tick() bool {
	c.visited++
	if c.visited%checkEvery == 0 {
		if err := c.ctx.Err(); err != nil {
			c.err = err
			return false
		}
	}
	return true
}

// drop reports an element the copy leaves out, with all it holds; see
// forExtraction for what the two copies keep. prepare leaves out of the
// extractor's result what only the extractor needed.
func (c *cleaner) drop(n *html.Node) bool {
	if c.hides(n) {
		return true
	}
	if opener(n, c.panels) || wordsOfASentence(n) || headingButton(n) || c.tabButton(n) {
		return false
	}
	switch n.DataAtom {
	case atom.Style, atom.Template:
		return true
	case atom.Script:
		return !c.forExtraction || !ldScript(n)
	}
	return initialsPicture(n) || iconLigature(n) || tooltip(n) || announcement(n) || scrambledLabel(n) || c.echoes(n) ||
		!c.forExtraction && nonContent(n)
}

// minScrambledSpans is the fewest spans of a scrambled label, and
// minScrambledIDShare the least share of them that hold an identifier.
const (
	minScrambledSpans   = 8
	minScrambledIDShare = 0.3
)

// identifierRe matches a UUID: the identifiers a scrambled label hides
// among its letters.
var identifierRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// scrambledLabel reports a label a page spells a letter at a time among
// hidden decoys, so that a filter cannot read it: "Sponsored" over a
// shop's carousel, written as a row of spans, some holding a letter the
// stylesheet shows, the others a UUID it hides. Read without the
// stylesheet, the row is a line of identifiers and stray letters that no
// reader sees, and it breaks the heading it stands beside.
func scrambledLabel(n *html.Node) bool {
	spans, ids := 0, 0
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		switch {
		case k.Type == html.TextNode && strings.TrimSpace(k.Data) == "":
		case k.DataAtom == atom.Span && (k.FirstChild == nil || k.FirstChild == k.LastChild && k.FirstChild.Type == html.TextNode):
			spans++
			if k.FirstChild != nil && identifierRe.MatchString(strings.TrimSpace(k.FirstChild.Data)) {
				ids++
			}
		default:
			return false
		}
	}
	return spans >= minScrambledSpans && float64(ids) >= minScrambledIDShare*float64(spans)
}

// tooltip reports an element whose role says it is a tooltip: the
// description a word or a control shows while the pointer rests on it
// (a glossary's definition, a footnote's text, "Etsy's Picks are
// hand-selected…"). It is written beside what it describes, so kept it
// would interrupt the sentence it sits in with a text the reader never
// sees there. A tooltip takes no focus and is no link: an element given
// the role that holds a button or a place in the tab order, or whose
// words are all a link's, is what opens one (an author's name over the
// card that shows them), and stays.
func tooltip(n *html.Node) bool {
	role := attr(n, "role")
	if role == "" {
		return false
	}
	for r := range strings.FieldsSeq(role) {
		if strings.EqualFold(r, "tooltip") {
			return !tooltipTrigger(n)
		}
	}
	return false
}

// maxTooltipNodes bounds the look inside a tooltip: past it, the element
// is no tooltip's short description, and stays.
const maxTooltipNodes = 200

// tooltipTrigger reports an element given the tooltip role that is a
// control: it holds a button or an element in the tab order, or its words
// are all inside links; or it has more than maxTooltipNodes nodes.
func tooltipTrigger(n *html.Node) bool {
	seen, words, linked := 0, 0, 0
	for k := n.FirstChild; k != nil; k = nextInTree(k, n) {
		if seen++; seen > maxTooltipNodes {
			return true
		}
		switch {
		case k.Type == html.TextNode:
			w := countWords(k.Data)
			words += w
			if insideLink(k, n) {
				linked += w
			}
		case k.Type == html.ElementNode && (k.DataAtom == atom.Button || hasAttr(k, "tabindex")):
			return true
		}
	}
	return words > 0 && linked == words
}

// insideLink reports whether k lies in a link below root.
func insideLink(k, root *html.Node) bool {
	for p := k.Parent; p != nil && p != root; p = p.Parent {
		if p.DataAtom == atom.A {
			return true
		}
	}
	return false
}

// iconLigatureRe is the name of a glyph of an icon font, which the font
// draws in place of the word: "chevron_right", "open_in_new".
var iconLigatureRe = regexp.MustCompile(`^[a-z]+(?:_[a-z0-9]+)+$`)

// iconLigature reports an element its class calls an icon whose text is
// the name of the icon font's glyph: Material's icons write a chevron as
// <i class="material-icons">chevron_right</i>, a word no reader sees.
func iconLigature(n *html.Node) bool {
	if n.Type != html.ElementNode || n.FirstChild == nil || n.FirstChild != n.LastChild || n.FirstChild.Type != html.TextNode {
		return false
	}
	return iconElement(n) && iconLigatureRe.MatchString(strings.TrimSpace(n.FirstChild.Data))
}

// initialsPicture reports a picture drawn from a person's initials: an
// element whose role says it is an image and whose text is one or two
// letters ("F", "JD"), what a forum or a shop shows for a member without a
// photo, beside the member's name. An image's text is not read (its name
// is its label); these letters would stand as a line of their own before
// every post. An emoji or a drawing in characters set as an image stays.
func initialsPicture(n *html.Node) bool {
	if !strings.EqualFold(strings.TrimSpace(attr(n, "role")), "img") {
		return false
	}
	text := strings.TrimSpace(flatText(n))
	letters := 0
	for _, r := range text {
		if !unicode.IsLetter(r) {
			return false
		}
		letters++
	}
	return letters >= 1 && letters <= 2
}

// hides reports an element the page does not show, unless it is a panel
// a reader opens, and the copy of a block the page shows only on narrow
// screens, panel or not, or the price a shop's theme shows in another
// state of its item.
func (c *cleaner) hides(n *html.Node) bool {
	return hidden(n) && !disclosed(n, c.panels) && !wrapsPanel(n, c.panels) && !c.shells[n] ||
		hiddenAtDesktop(attr(n, "class")) || otherStatePrice(n)
}

// wordsOfASentence reports a button set inside a line of text: the
// words a page lets the reader click in a sentence ("Highly rated for:
// <button>texture</button>, <button>results</button>") are words of the
// sentence, as a link's are. A button that stands alone in its box ("Add
// to cart") is a control.
func wordsOfASentence(n *html.Node) bool {
	if n.DataAtom != atom.Button || n.Parent == nil {
		return false
	}
	switch n.Parent.DataAtom {
	case atom.P, atom.Li, atom.Td, atom.Dd, atom.Blockquote, atom.Figcaption:
	default:
		return false
	}
	for k := n.Parent.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.TextNode && strings.TrimFunc(k.Data, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) != "" {
			return true
		}
	}
	return false
}

// maxHeadingButtonDepth is how far above a button its heading may be,
// through the spans a design wraps its label in.
const maxHeadingButtonDepth = 3

// headingButton reports a button that is all a heading says: WAI-ARIA's
// accordion puts each section's toggle in its heading (<h3><button
// aria-expanded>…), and the button's label is the section's title, the
// question of an FAQ; without it the heading is empty. A button beside a
// heading's words ("Copy item path", "Expand all") is a control.
func headingButton(n *html.Node) bool {
	if n.DataAtom != atom.Button {
		return false
	}
	p := n.Parent
	for range maxHeadingButtonDepth {
		if p == nil || p.Type != html.ElementNode {
			return false
		}
		if headingLevel(p) > 0 || strings.EqualFold(strings.TrimSpace(attr(p, "role")), "heading") {
			return !wordsBeside(p, n)
		}
		p = p.Parent
	}
	return false
}

// wordsBeside reports whether root holds a letter or a digit outside n,
// read only up to the first: a heading of thousands of buttons costs each
// of them a look at the first.
func wordsBeside(root, n *html.Node) bool {
	for k := root.FirstChild; k != nil; {
		if k == n {
			// Past n's subtree: its next sibling, or an ancestor's.
			for k != root && k.NextSibling == nil {
				k = k.Parent
			}
			if k == root {
				return false
			}
			k = k.NextSibling
			continue
		}
		if k.Type == html.TextNode && countWords(k.Data) > 0 {
			return true
		}
		k = nextInTree(k, root)
	}
	return false
}

// nonContent reports elements that hold nothing a reader of the Markdown
// can use: scripts and the head, drawings, embedded frames and media, form
// controls, closed dialogs.
func nonContent(n *html.Node) bool {
	// Namespaces are lost when Readability copies the page, so foreign
	// elements are known by name too.
	if n.Namespace == "svg" || n.Data == "svg" {
		return true // a drawing's text is labels out of context
	}
	if n.Namespace != "" || n.Data == "math" {
		return false // MathML: formulas are content
	}
	switch n.DataAtom {
	case atom.Script, atom.Noscript, atom.Style, atom.Template, atom.Head, atom.Title, atom.Meta, atom.Link, atom.Base,
		atom.Iframe, atom.Frame, atom.Frameset, atom.Object, atom.Embed, atom.Applet, atom.Param, atom.Canvas,
		atom.Audio, atom.Video, atom.Track, atom.Map, atom.Area, atom.Input, atom.Button, atom.Select,
		atom.Option, atom.Optgroup, atom.Textarea, atom.Datalist, atom.Keygen, atom.Progress, atom.Meter:
		return true
	case atom.Dialog:
		// A dialog is shown by script; closed, it is not part of the page.
		return !hasAttr(n, "open")
	}
	return n.Data == "slot" || n.Data == "portal"
}

// hidden reports an element the page does not show: the hidden attribute,
// aria-hidden="true", an inline display:none or visibility:hidden, or the
// class CSS frameworks give text meant for screen readers only ("Media
// caption", "opens in a new window").
func hidden(n *html.Node) bool {
	if streamedSegment(n) {
		return false
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "class":
			if carouselClone(a.Val) || screenReaderClass(a.Val) {
				return true
			}
		case "hidden":
			return true
		case "aria-hidden":
			if strings.EqualFold(strings.TrimSpace(a.Val), "true") && !behindModal(n) && !voicedApart(n) {
				return true
			}
		case "style":
			if styleHides(a.Val) {
				return true
			}
		}
	}
	return false
}

// behindModal reports an element that aria-hidden="true" marks only
// because a modal dialog is open over the page: the page's main region,
// or the child of <body> that holds it (an application's root). WAI-ARIA's
// modal pattern hides everything outside the dialog from screen readers
// while it is shown, and a page read then (a consent dialog left open) has
// its whole content so marked; a reader still sees it behind the dialog.
func behindModal(n *html.Node) bool {
	if !strings.EqualFold(strings.TrimSpace(attr(n, "aria-hidden")), "true") {
		return false
	}
	if marksMain(n) {
		return true
	}
	return n.Parent != nil && n.Parent.DataAtom == atom.Body && findFirst(n, marksMain) != nil
}

// voicedApart reports an element aria-hidden="true" keeps from screen
// readers only because a twin beside it, in text for screen readers
// alone, says the same to them in words: a shop's sale price shown as
// "<del aria-hidden>$38</del> <ins aria-hidden>$30</ins>" beside "Original
// price was: $38. Current price is: $30." for screen readers, a rating's
// stars beside "Rated 4.5 out of 5", or its "4.9 / 5.0" beside the stars
// drawn as a picture that names it (role="img" and an aria-label). The twin is left out as the page
// shows it to no one, so the element is what the page shows and stays.
// An icon (its class says so) or a sign without a word (a "×") is no
// such text.
func voicedApart(n *html.Node) bool {
	if iconClass(n) || measureUpTo(n, 0, countWords) == 0 {
		return false
	}
	twin := func(s *html.Node) bool {
		if strings.EqualFold(strings.TrimSpace(attr(s, "role")), "img") {
			return countWords(attr(s, "aria-label")) > 0 // stars drawn, and named for screen readers
		}
		return screenReaderClass(attr(s, "class")) && measureUpTo(s, 0, countWords) > 0
	}
	if elementNear(n, maxTwinDistance, twin) {
		return true
	}
	// The element alone in its line, the twin beside the line: a
	// rating's "4.9 / 5.0" in a paragraph after the stars.
	p := n.Parent
	return p != nil && p.Type == html.ElementNode && onlyElementChild(p, n) && elementNear(p, maxTwinDistance, twin)
}

// onlyElementChild reports whether n is the only element under p's
// children.
func onlyElementChild(p, n *html.Node) bool {
	for k := p.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.ElementNode && k != n {
			return false
		}
	}
	return true
}

// maxTwinDistance is how many elements away, either side, the twin of
// an element that voicedApart weighs may stand.
const maxTwinDistance = 3

// elementNear reports whether one of the up to k elements either side of
// n among its siblings is one that match is true for.
func elementNear(n *html.Node, k int, match func(*html.Node) bool) bool {
	for _, next := range []func(*html.Node) *html.Node{
		func(s *html.Node) *html.Node { return s.PrevSibling },
		func(s *html.Node) *html.Node { return s.NextSibling },
	} {
		seen := 0
		for s := next(n); s != nil && seen < k; s = next(s) {
			if s.Type != html.ElementNode {
				continue
			}
			seen++
			if match(s) {
				return true
			}
		}
	}
	return false
}

// screenReaderClass reports a class attribute that keeps its element
// for screen readers alone.
func screenReaderClass(class string) bool {
	for c := range strings.FieldsSeq(class) {
		if screenReaderOnly(c) {
			return true
		}
	}
	return false
}

// texGroupMarkerRe matches a formula that draws nothing: the TeX group
// that some sites open and close around each post ("$\begingroup$" …
// "$\endgroup$", the dollars escaped where a lone "$" is not math) so
// that the macros one post defines stay in it. A math renderer shows
// nothing for it; the page's text still holds it.
var texGroupMarkerRe = regexp.MustCompile(`^\s*\\?\$\s*\\(?:begin|end)group\s*\\?\$\s*$`)

// texGroupMarker reports a text that is only a TeX group marker.
func texGroupMarker(text string) bool {
	return strings.Contains(text, "group") && texGroupMarkerRe.MatchString(text)
}

// streamedSegment reports a block a server streamed after the page's shell:
// React sends each one as <div hidden id="S:n">, n in hexadecimal, and a
// script moves it into the placeholder it fills. Hidden only until that
// script runs, it is the page's content, not something the page hides.
func streamedSegment(n *html.Node) bool {
	if n.DataAtom != atom.Div || !hasAttr(n, "hidden") {
		return false
	}
	id, ok := strings.CutPrefix(attr(n, "id"), "S:")
	if !ok || id == "" {
		return false
	}
	for _, r := range id {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false // React numbers its segments in hexadecimal: S:9, S:a, S:1f
		}
	}
	return true
}

// screenReaderOnly reports a class name that CSS frameworks and sites give
// text hidden from sight and left for screen readers: Bootstrap's and
// Tailwind's "sr-only", WordPress's "screen-reader-text", Drupal's
// "element-invisible", and the many names built on the same words
// ("u-srOnly", "wt-screen-reader-only", "a-offscreen",
// "styles_visuallyHidden__x1y2"). Such text repeats what the page shows
// ("$19.99" beside the price drawn in parts) or labels a control ("opens
// in a new window"). A name scoped to a screen width ("lg:sr-only") hides
// the text at that width only, as "sr-only-mobile" does on phones (pages
// are read at a desktop's width), and "not-sr-only" shows it again.
func screenReaderOnly(class string) bool {
	c := strings.ToLower(class)
	if strings.Contains(c, ":") || strings.Contains(c, "not-sr") || strings.Contains(c, "mobile") {
		return false
	}
	if screenReaderClasses[c] {
		return true
	}
	folded := classWordJoiner.Replace(c)
	for _, w := range screenReaderWords {
		// Drupal's "field--label-visually_hidden" is a field whose label
		// is hidden, not a hidden field.
		if at := strings.Index(folded, w); at >= 0 && !strings.Contains(folded[:at], "label") {
			return true
		}
	}
	return false
}

// screenReaderClasses are whole class names for such text whose words
// say less alone.
var screenReaderClasses = map[string]bool{
	"element-invisible": true, "u-hidden-visually": true, "a11y-hidden": true,
}

// carouselClone reports the class of a copy of a slide that a carousel
// library adds at either end of an endless carousel: the same slide once
// more. Slick, Swiper, Splide, Glide and Flickity name it with a class of
// their own, Owl with "cloned" beside "owl-item".
func carouselClone(class string) bool {
	owlItem, cloned := false, false
	for c := range strings.FieldsSeq(class) {
		switch strings.ToLower(c) {
		case "slick-cloned", "swiper-slide-duplicate", "splide__slide--clone", "glide__slide--clone", "flickity-clone":
			return true
		case "owl-item":
			owlItem = true
		case "cloned":
			cloned = true
		}
	}
	return owlItem && cloned
}

// classWordJoiner drops the dashes and underscores between a class name's
// words.
var classWordJoiner = strings.NewReplacer("-", "", "_", "")

// screenReaderWords are the words of those class names, lower-cased and
// their dashes and underscores dropped.
var screenReaderWords = []string{"sronly", "visuallyhidden", "screenreader", "offscreen", "assistivetext", "a11ytext"}

// styleHides reads an inline style as a browser would for the two
// properties that hide an element; the last declaration wins.
func styleHides(style string) bool {
	display, visibility := "", ""
	for k, v := range styleDeclarations(style) {
		v = strings.ToLower(v)
		switch k {
		case "display":
			display = v
		case "visibility":
			visibility = v
		}
	}
	return display == "none" || visibility == "hidden" || visibility == "collapse"
}

// styleDeclarations yields the declarations of an inline style in their
// order, each property lower-cased and its value trimmed of white space
// and of "!important".
func styleDeclarations(style string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for decl := range strings.SplitSeq(style, ";") {
			k, v, ok := strings.Cut(decl, ":")
			if !ok {
				continue
			}
			v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "!important"))
			if !yield(strings.ToLower(strings.TrimSpace(k)), v) {
				return
			}
		}
	}
}

// numberedMarkers are the list-style types that number a list's items.
var numberedMarkers = map[string]bool{
	"decimal": true, "decimal-leading-zero": true, "lower-alpha": true, "upper-alpha": true, "lower-latin": true,
	"upper-latin": true, "lower-roman": true, "upper-roman": true, "lower-greek": true,
}

// numberedByStyle reports a <ul> whose inline style, or every item's,
// numbers its items (list-style-type: decimal): the steps of a recipe
// plugin's instructions, a list the page shows as numbered and writes
// as bulleted.
func numberedByStyle(ul *html.Node) bool {
	if numberedStyle(attr(ul, "style")) {
		return true
	}
	items := 0
	for k := ul.FirstChild; k != nil; k = k.NextSibling {
		if k.Type != html.ElementNode {
			continue
		}
		if k.DataAtom != atom.Li || !numberedStyle(attr(k, "style")) {
			return false
		}
		items++
	}
	return items > 0
}

// numberedStyle reports an inline style whose list-style or
// list-style-type names a numbered marker.
func numberedStyle(style string) bool {
	for k, v := range styleDeclarations(style) {
		if k != "list-style-type" && k != "list-style" {
			continue
		}
		for _, w := range strings.Fields(strings.ToLower(v)) {
			if numberedMarkers[w] {
				return true
			}
		}
	}
	return false
}

// urlAttrs are the attributes that hold one URL, resolved in the copy so
// that every later step reads absolute addresses.
var urlAttrs = map[string]bool{"href": true, "src": true, "poster": true, "cite": true, "longdesc": true}

// attr decides whether the copy keeps an attribute, and its value there.
// Event handlers and styles go: Markdown has no place for them, and a
// handler is script. URLs are made absolute against the page's base.
func (c *cleaner) attr(n *html.Node, a html.Attribute) (bool, string) {
	key := a.Key
	switch {
	case a.Namespace != "", strings.HasPrefix(key, "on"), key == composerAttr, key == tabLabelAttr:
		// The copy's own marks are the copy's: a page's attribute of the
		// same name is not one.
		return false, ""
	case key == "role" && strings.EqualFold(strings.TrimSpace(a.Val), "alert") && callout(n):
		// The extractor drops every alert as a script's message; a
		// callout is the text's own (see callout).
		return false, ""
	case key == "aria-hidden" && voicedApart(n):
		// What voicedApart keeps, the extractor is not to take for hidden.
		return false, ""
	case key == "style":
		// An image's style may declare the pixel size that marks a beacon.
		return n.DataAtom == atom.Img, a.Val
	case urlAttrs[key] && strings.HasPrefix(strings.TrimSpace(a.Val), "#"):
		// Readability weighs links within the page lightly (a table of
		// contents is not a list of links away); prepare resolves them.
		return true, a.Val
	case urlAttrs[key]:
		return true, resolve(c.base, a.Val)
	case key == "srcset" || key == "data-srcset":
		return true, resolveSrcset(c.base, a.Val)
	}
	return true, a.Val
}

// callout reports a box of the text marked role="alert", as Bootstrap's
// documentation tells every page to mark its callouts: one that opens
// with an admonition's word ("Warning", "Note:", "Tip") or shows code. A
// site's notices marked so (a deal's terms, a prompt to register) say
// neither and stay the extractor's to drop.
func callout(n *html.Node) bool {
	if findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.Code || k.DataAtom == atom.Pre }) != nil {
		return true
	}
	first := findFirstText(n)
	if first == nil {
		return false
	}
	start := strings.TrimSpace(first.Data)
	end := strings.IndexFunc(start, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(start)
	}
	return admonitionWords[strings.ToLower(start[:end])]
}

// findFirstText is the first text under n that is not white space alone,
// or nil.
func findFirstText(n *html.Node) *html.Node {
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.TextNode && strings.TrimSpace(k.Data) != "" {
			return k
		}
		if k.Type == html.ElementNode {
			if t := findFirstText(k); t != nil {
				return t
			}
		}
	}
	return nil
}

// admonitionWords open a callout: the names documentation generators and
// writers give a note set apart from the text.
var admonitionWords = map[string]bool{
	"note": true, "notes": true, "warning": true, "tip": true, "tips": true, "important": true, "caution": true,
	"danger": true, "info": true, "attention": true, "hint": true, "remember": true, "deprecated": true,
}

// baseURL is the URL relative addresses resolve against: the page's own,
// or the first <base href> it declares, as browsers do.
func baseURL(root *html.Node, pageURL *url.URL) *url.URL {
	b := findFirst(root, func(n *html.Node) bool { return n.DataAtom == atom.Base && hasAttr(n, "href") })
	if b == nil {
		return pageURL
	}
	ref, err := url.Parse(strings.TrimSpace(attr(b, "href")))
	if err != nil {
		return pageURL
	}
	u := pageURL.ResolveReference(ref)
	if u.Scheme != "http" && u.Scheme != "https" {
		return pageURL
	}
	return u
}

// urlBreaks are the tabs and line breaks a browser drops inside a URL.
var urlBreaks = strings.NewReplacer("\t", "", "\n", "", "\r", "")

// resolve makes a URL absolute against base; a value that does not parse
// is kept for later steps to reject.
func resolve(base *url.URL, raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || base == nil {
		return raw
	}
	// Browsers drop tabs and newlines inside URLs.
	if strings.ContainsAny(raw, "\t\n\r") {
		raw = urlBreaks.Replace(raw)
	}
	ref, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if ref.Scheme != "" && ref.Scheme != "http" && ref.Scheme != "https" {
		return raw // mailto:, javascript:, data: and the like
	}
	return base.ResolveReference(ref).String()
}

// resolveSrcset resolves each candidate of a srcset, keeping descriptors.
func resolveSrcset(base *url.URL, srcset string) string {
	var out []string
	for cand := range strings.SplitSeq(srcset, ",") {
		f := strings.Fields(cand)
		if len(f) == 0 {
			continue
		}
		f[0] = resolve(base, f[0])
		out = append(out, strings.Join(f, " "))
	}
	return strings.Join(out, ", ")
}

// collapsedLen is the length of s with each run of white space counted as
// one byte: what the text can shrink to in Markdown, at least.
func collapsedLen(s string) int {
	n, space := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\f':
			if !space {
				n++
			}
			space = true
		default:
			n++
			space = false
		}
	}
	return n
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return true
		}
	}
	return false
}

func setAttr(n *html.Node, key, val string) {
	for i, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			n.Attr[i].Val = val
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: val})
}

func removeAttr(n *html.Node, key string) {
	for i, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			n.Attr = append(n.Attr[:i], n.Attr[i+1:]...)
			return
		}
	}
}

// findFirst is the first node under root, in document order, that match
// accepts.
func findFirst(root *html.Node, match func(*html.Node) bool) *html.Node {
	stack := []*html.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Type == html.ElementNode && match(n) {
			return n
		}
		for k := n.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, k)
		}
	}
	return nil
}

// maxAnnouncement is the most text, in bytes, of an announcement.
const maxAnnouncement = 300

// announcement reports a status region (WAI-ARIA's role status): what
// the page tells a screen reader's user of its own state ("Loaded 338
// results", "Added to your cart", "Slide 1 of 8"). Its words come and go
// with what the reader does; they are not the page's. An alert is an
// author's note as often as the page's, and a region that announces its
// changes politely may be a box of news: both stay. A status region of
// more than a few sentences is a page's misuse of the role, and stays.
func announcement(n *html.Node) bool {
	return strings.EqualFold(strings.TrimSpace(attr(n, "role")), "status") && textUpTo(n, maxAnnouncement) <= maxAnnouncement
}

// tabButton reports, in a copy made for a selector's content, a button
// that is a tab (role="tab"): its label names a panel. The extraction
// reads the rows of tabs before its rules take buttons out (see
// markTabs); a selector's content is written as it is, and a form's
// buttons go from it here.
func (c *cleaner) tabButton(n *html.Node) bool {
	return !c.forExtraction && n.DataAtom == atom.Button && strings.EqualFold(strings.TrimSpace(attr(n, "role")), "tab")
}

// maxOpenerLabelDepth is how far above a link the control it labels is
// looked for.
const maxOpenerLabelDepth = 3

// inOpener reports whether n is, or is inside, a control that opens a
// panel of content (see opener).
func (c *cleaner) inOpener(n *html.Node) bool {
	for p, i := n, 0; p != nil && p.Type == html.ElementNode && i <= maxOpenerLabelDepth; p, i = p.Parent, i+1 {
		if opener(p, c.panels) {
			return true
		}
	}
	return false
}
