package markdown

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Holes: the extractor cleans its chosen block of the boxes it judges
// furniture by their share of links or their weight, and among them are
// parts of the piece. An entry of a list of reviews or products, a few
// sentences and then "Read the full review", "Compare prices", "Buy on …",
// each a line of its own, is as much link as text to its measure; a
// section of a guide under its own heading, a plant's or a product's, may
// weigh too little beside the paragraphs around it. The main region still
// holds them, between parts the block kept. A paragraph of prose the
// block left out, where the block kept a paragraph or a line before it
// and a paragraph of prose after it, is a hole the cleaning made when it
// stands beside such link
// lines, in such a section, or in an entry of a list most of whose
// entries the block kept: the part it belongs to goes back in its place,
// and the rules for furniture judge it there with the rest.
//
// The extractor also drops, by the same measures, the cards of related
// stories set between a story's paragraphs (under linked headlines) and
// the galleries of captioned pictures inside it (items of a list), which
// are not the piece, and stay out.

// minHoleProse is the least prose, in bytes, outside links, of a
// paragraph that marks a hole: a sentence or two, not a label or a link.
const minHoleProse = 80

// minHoleProseShare is the least share of a paragraph's text its prose
// must be: a teaser that is mostly its headline's link marks no hole.
const minHoleProseShare = 0.7

// fillHoles puts back into art, the block the extractor chose, the parts
// of region it left out before a paragraph of prose it kept, each after
// the kept paragraph or line before it.
func fillHoles(art, region *html.Node, chosen *chosenText, page *url.URL) {
	kept := map[string]*html.Node{} // art's paragraphs by the start of their text
	walk(art, func(k *html.Node) bool {
		if k.DataAtom == atom.P {
			if t := heldStart(k); t != "" {
				kept[t] = k
			}
			return false
		}
		return true
	})
	type para struct {
		n    *html.Node
		held bool
	}
	var paras []para
	inContent := map[*html.Node]bool{} // the elements of region holding a kept paragraph or heading
	mark := func(n *html.Node) {
		for a := n; a != nil && !inContent[a]; a = a.Parent {
			inContent[a] = true
		}
	}
	walk(region, func(k *html.Node) bool {
		if headingLevel(k) > 0 {
			if t := flatText(k); t != "" && chosen.contains(t) {
				mark(k)
			}
			return false
		}
		if k.DataAtom != atom.P {
			return k.Type == html.ElementNode
		}
		if t := flatText(k); t != "" {
			held := partHeld(chosen, t)
			paras = append(paras, para{k, held})
			if held {
				mark(k)
			}
		}
		return false
	})
	linkLines := map[*html.Node]bool{} // linkLinesIn by parent, each read once
	sections := map[*html.Node]bool{}  // sectionIn by box
	series := map[entriesKey]bool{}    // mostlyKept by series
	var anchor *html.Node              // the node of art the next part put back follows
	var holes []*html.Node
	var lines *lineOrder // region's order, read once when a part goes back
	for _, p := range paras {
		if !p.held {
			if anchor != nil && prose(p.n) {
				box := holeBox(p.n, inContent)
				if len(holes) > 0 && holes[len(holes)-1] == box {
					continue
				}
				if linkLinesIn(p.n.Parent, linkLines) || sectionIn(box, sections, page) || mostlyKept(box, inContent, series) {
					holes = append(holes, box)
				}
			}
			continue
		}
		if !prose(p.n) {
			// A kept label or link line ("Learn more") closes no hole,
			// and moves the place of the next.
			if k := kept[heldStart(p.n)]; k != nil && len(holes) == 0 {
				anchor = k
			}
			continue
		}
		if len(holes) > 0 {
			if lines == nil {
				lines = orderOfLines(region)
			}
			anchor = pastHeadings(anchor, holes[0], lines)
		}
		for _, box := range holes {
			c := cloneTree(box)
			anchor.Parent.InsertBefore(c, anchor.NextSibling)
			anchor = c
		}
		holes = holes[:0]
		anchor = kept[heldStart(p.n)]
	}
}

// lineOrder is the document order of region's elements, and where the
// texts of its headings and paragraphs first and last stand in it.
type lineOrder struct {
	at          map[*html.Node]int
	first, last map[string]int
}

// orderOfLines reads region once for pastHeadings.
func orderOfLines(region *html.Node) *lineOrder {
	o := &lineOrder{at: map[*html.Node]int{}, first: map[string]int{}, last: map[string]int{}}
	i := 0
	walk(region, func(k *html.Node) bool {
		if k.Type != html.ElementNode {
			return false
		}
		i++
		o.at[k] = i
		if headingLevel(k) > 0 || k.DataAtom == atom.P {
			if t := flatText(k); t != "" {
				if _, ok := o.first[t]; !ok {
					o.first[t] = i
				}
				o.last[t] = i
			}
			return false
		}
		return true
	})
	return o
}

// pastHeadings is where a part put back after anchor goes: after the
// headings and paragraphs that follow anchor in art and stand before the
// part in region (the heading of the section the part is in, "Shipping
// questions" over an accordion, and the lines under it), so that the
// part keeps its place in the page's order.
func pastHeadings(anchor, part *html.Node, o *lineOrder) *html.Node {
	line := func(n *html.Node) bool {
		return n != nil && n.Type == html.ElementNode && (headingLevel(n) > 0 || n.DataAtom == atom.P)
	}
	before := func(n *html.Node) bool {
		i, ok := o.first[flatText(n)]
		return ok && i < o.at[part]
	}
	after := func(n *html.Node) bool { return o.last[flatText(n)] > o.at[part] }
	at, safe := anchor, anchor
	for s := nextElement(at); line(s) && before(s); s = nextElement(s) {
		at = s
		if headingLevel(s) == 0 {
			safe = s
		}
	}
	// A heading is left only for a heading or paragraph known to come
	// after the part. Anything else after the heading may be its own
	// lines, which the part would cut from it; with nothing after it in
	// its box, its lines are elsewhere.
	if next := nextElement(at); at != safe && !(line(next) && after(next)) {
		at = safe
	}
	return at
}

// holeBox is the largest element around the paragraph p, left out by the
// extractor, that holds nothing the extractor kept: the entry or the
// section the paragraph is part of, with its heading and pictures.
func holeBox(p *html.Node, inContent map[*html.Node]bool) *html.Node {
	box := p
	for box.Parent != nil && !inContent[box.Parent] {
		box = box.Parent
	}
	return box
}

// heldStart is the start of n's text that chosenText.holds looks for.
func heldStart(n *html.Node) string { return flatTextUpTo(n, heldPrefix) }

// prose reports whether the paragraph p is prose: sentences, not a label
// or a link.
func prose(p *html.Node) bool {
	n := proseLen(p)
	return n >= minHoleProse && float64(n) >= minHoleProseShare*float64(collapsedText(p))
}

// linkLinesIn reports whether box holds, as a child, a line that is all
// one link: "Read the full review", "Compare prices", "Buy on …". The
// answers are kept in seen.
func linkLinesIn(box *html.Node, seen map[*html.Node]bool) bool {
	if v, ok := seen[box]; ok {
		return v
	}
	found := false
	for k := box.FirstChild; k != nil && !found; k = k.NextSibling {
		if k.Type != html.ElementNode || headingLevel(k) > 0 {
			continue // a linked heading is a headline, not a link line
		}
		if t := collapsedText(k); t > 0 {
			a := findFirst(k, func(a *html.Node) bool { return a.DataAtom == atom.A })
			found = a != nil && collapsedText(a) == t
		}
	}
	seen[box] = found
	return found
}

// holeProbe is the length, in runes, of each piece of a paragraph's text
// looked for in the chosen block.
const holeProbe = 40

// partHeld reports whether the chosen block holds the text t: its start,
// or its middle and its end. The rules that pruned the region and the
// extractor's cleaning of its block each take a link or a label out of a
// paragraph here and there ("@<a>name</a> I do not use…"), so a paragraph
// is left out only when neither is found; a phrase that ends many
// paragraphs of a page does not make one held.
func partHeld(chosen *chosenText, t string) bool {
	r := []rune(t)
	if len(r) <= holeProbe {
		return chosen.contains(t)
	}
	piece := func(at int) string { return strings.TrimSpace(string(r[at : at+holeProbe])) }
	return chosen.contains(piece(0)) ||
		chosen.contains(piece((len(r)-holeProbe)/2)) && chosen.contains(piece(len(r)-holeProbe))
}

// sectionIn reports whether box is a section of the piece: under a
// heading of its own, no heading in it a link to another page (a
// teaser's headline is; a permalink into the page is not),
// its prose mostly outside lists (a gallery's captions and a list of
// cards are items of lists). The answers are kept in seen.
func sectionIn(box *html.Node, seen map[*html.Node]bool, page *url.URL) bool {
	if v, ok := seen[box]; ok {
		return v
	}
	headed, linked := false, false
	inLists := 0
	walk(box, func(k *html.Node) bool {
		if headingLevel(k) > 0 {
			headed = true
			linked = linked || linkedHeading(k) && !permalinkOnly(k, page)
			return false
		}
		if k.DataAtom == atom.Ul || k.DataAtom == atom.Ol {
			inLists += proseLen(k)
			return false
		}
		return true
	})
	v := headed && !linked && 2*inLists < proseLen(box)
	seen[box] = v
	return v
}

// permalinkOnly reports whether the links of the heading h, if any, all
// point into page itself: a documentation section's "¶" anchor, written
// as a fragment or in full, not a headline leading to another page.
func permalinkOnly(h *html.Node, page *url.URL) bool {
	only := !insideTag(h, atom.A)
	walk(h, func(a *html.Node) bool {
		if a.DataAtom == atom.A {
			href := attr(a, "href")
			only = only && (strings.HasPrefix(href, "#") || page != nil && withinPage(href, page, page))
			return false
		}
		return true
	})
	return only
}

// minKeptEntries is the fewest entries of a series the block must have
// kept for one it left out to be a hole.
const minKeptEntries = 2

// entriesKey names a series: the children of parent of one tag and class.
type entriesKey struct {
	parent     *html.Node
	tag, class string
}

// mostlyKept reports whether box is an entry of a series (its siblings of
// the same tag and class) most of whose entries the block kept: the
// cleaning took one or two entries of a list out, by their links or
// their weight, where a list of teasers of which the block kept one is
// a list of teasers. The answers are kept in seen, so each series is
// counted once.
func mostlyKept(box *html.Node, inContent map[*html.Node]bool, seen map[entriesKey]bool) bool {
	key := entriesKey{box.Parent, box.Data, attr(box, "class")}
	if v, ok := seen[key]; ok {
		return v
	}
	kept, left := 0, 0
	for k := box.Parent.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.ElementNode && k.Data == key.tag && attr(k, "class") == key.class {
			if inContent[k] {
				kept++
			} else {
				left++
			}
		}
	}
	v := kept >= minKeptEntries && kept >= left
	seen[key] = v
	return v
}

// The lead: a page often sets its first paragraphs beside its title, in a
// box of their own above the byline, the share buttons and the table of
// contents, and the body below them. The extractor chooses the body, and
// the paragraphs that open the piece are lost. The paragraphs of prose of
// the main region that stand before the first line the block kept, and
// that the block left out, are the lead when there are few of them: they
// go back at the head of the block.

// maxLeadParagraphs and maxLeadText bound a lead: a few paragraphs, or a
// documentation page's introduction before its first section, not a part
// of the page the extractor judged apart from the piece.
const (
	maxLeadParagraphs = 10
	maxLeadText       = 4000
)

// restoreLead puts back at the head of art, the block the extractor
// chose, the lead of region it left out. A paragraph that is the page's
// description (summaries, the text its meta tags give for sharing) is the
// page's summary of itself, set under the title as a dek, and is no lead.
func restoreLead(art, region *html.Node, chosen *chosenText, summaries []string) {
	var lead []*html.Node
	var first *html.Node // the first line of region the block kept
	total, done, closed := 0, false, false
	seen := map[string]bool{} // a lead written twice, for two widths of screen, comes once
	walk(region, func(k *html.Node) bool {
		switch {
		case done || k.Type != html.ElementNode:
			return false
		case headingLevel(k) > 0:
			if t := flatText(k); t != "" && chosen.contains(t) {
				first, done = k, true
			} else if t != "" && headingLevel(k) > 1 {
				// What a heading the block left out heads is a section
				// of its own, no lead; the page's title heads the lead.
				closed = true
			}
			return false
		case k.DataAtom != atom.P:
			return true
		}
		t := flatText(k)
		switch {
		case t == "":
		case partHeld(chosen, t):
			first, done = k, true
		case closed || !prose(k) || summarises(t, summaries) || seen[t] || affiliateNote(t) || signedBy(k):
		default:
			seen[t] = true
			lead = append(lead, k)
			total += collapsedText(k)
			done = len(lead) > maxLeadParagraphs || total > maxLeadText
		}
		return false
	})
	if first == nil || len(lead) == 0 || len(lead) > maxLeadParagraphs || total > maxLeadText {
		return
	}
	head := findFirst(art, func(n *html.Node) bool {
		return (headingLevel(n) > 0 || n.DataAtom == atom.P) && flatText(n) != ""
	})
	if head == nil || head.Parent == nil || heldStart(head) != heldStart(first) {
		return // the block does not open with the line the lead comes before
	}
	if box := leadBox(lead); box != nil {
		head.Parent.InsertBefore(cloneTree(box), head)
		return
	}
	for _, p := range lead {
		head.Parent.InsertBefore(cloneTree(p), head)
	}
}

// leadBox is the box that holds all of lead's paragraphs and, beside them,
// only what goes with them (an example's code, a list, a table, a
// picture): no other paragraph or text, no heading, and at most twice the
// lead's text. It goes back whole; nil when the paragraphs have no such
// box.
func leadBox(lead []*html.Node) *html.Node {
	box := lead[0].Parent
	if box == nil || box.DataAtom == atom.Body {
		return nil
	}
	text := 0
	for _, p := range lead {
		if p.Parent != box {
			return nil
		}
		text += collapsedText(p)
	}
	if textUpTo(box, 2*maxLeadText) > 2*text || findFirst(box, func(h *html.Node) bool { return headingLevel(h) > 0 }) != nil {
		return nil
	}
	// Every paragraph of the box is one of the lead's: one passed over
	// (a byline, a note, a copy) stays out.
	inLead := map[*html.Node]bool{}
	for _, p := range lead {
		inLead[p] = true
	}
	if findFirst(box, func(p *html.Node) bool { return p.DataAtom == atom.P && !inLead[p] && flatText(p) != "" }) != nil {
		return nil
	}
	// Nor any text but the paragraphs' and the examples': a label, a
	// link to act or a note in a box of its own stays out too.
	stray := false
	walk(box, func(k *html.Node) bool {
		switch {
		case stray || inLead[k]:
			return false
		case k.Type == html.TextNode:
			stray = strings.TrimSpace(k.Data) != ""
			return false
		}
		switch k.DataAtom {
		case atom.Pre, atom.Ul, atom.Ol, atom.Table, atom.Figure, atom.Blockquote:
			return false
		}
		return true
	})
	if stray {
		return nil
	}
	return box
}

// minSummaryProbe is how much, in bytes, of a paragraph's start is
// looked for in the page's summaries.
const minSummaryProbe = 60

// summarises reports whether the paragraph text t opens as one of the
// page's summaries does.
func summarises(t string, summaries []string) bool {
	probe := strings.Join(strings.Fields(t), " ")
	if len(probe) > minSummaryProbe {
		probe = probe[:minSummaryProbe]
	}
	for _, s := range summaries {
		if strings.HasPrefix(strings.Join(strings.Fields(s), " "), probe) {
			return true
		}
	}
	return false
}

// pageSummaries are the descriptions the page gives of itself: in its
// meta tags (its description, the ones for sharing, a microdata
// description) and in its JSON-LD. A product's declared description is
// its text, not a summary, and is not one of them.
func pageSummaries(root *html.Node) []string {
	var out []string
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if n.DataAtom == atom.Meta {
			switch strings.ToLower(attr(n, "name") + attr(n, "property") + attr(n, "itemprop")) {
			case "description", "og:description", "twitter:description":
				if c := strings.TrimSpace(attr(n, "content")); c != "" {
					out = append(out, c)
				}
			}
		}
		return true
	})
	eachJSONLD(root, func(doc any) {
		topLevelNodes(doc, 0, func(node map[string]any) {
			product := false
			nodeTypes(node, func(t string) { product = product || productTypes[schemaType(t)] })
			if d, ok := node["description"].(string); ok && !product && strings.TrimSpace(d) != "" {
				out = append(out, html.UnescapeString(d))
			}
		})
	})
	return out
}

// signedBy reports a paragraph that opens as a byline does, "By" and
// then the writer's name in a link or a box of its own: "By <a>Alex
// Heath</a>, a deputy editor …".
func signedBy(p *html.Node) bool {
	first := findFirstText(p)
	if first == nil {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(first.Data)) {
	case "by", "von", "par", "por", "door", "di", "av", "af":
		return true // the word alone, the name in an element after it
	}
	return false
}
