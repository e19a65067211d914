package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A page shows tabs as a row of labels over one panel at a time ("npm",
// "Yarn"; "Python", "Go"), and the Markdown shows every panel the reader
// could open (see disclosed). Left as they are, the labels make a list
// above the panels, or go with the page's controls, and no panel says
// which it is. The Markdown writes each tab's label over its panel, as a
// line of bold text, in place of the row.

// maxTabLabel is the longest label, in bytes, a tab is read with: a word
// or a few, not a card that a carousel marks as a tab.
const maxTabLabel = 80

// maxTabPanelClimb is how many boxes above the row of tabs its panels are
// looked for when no attribute names them: the row and the panels share
// a box, or the row sits in a box of its own beside them.
const maxTabPanelClimb = 3

// tabLabelAttr marks, in the copy, a panel with its tab's label, from
// the moment the row of tabs goes to the moment the label is written.
const tabLabelAttr = "data-glimpse-tab"

// markTabs takes out, under root, each row of tabs (role="tablist", a
// row of labels, see labelRow, or a list of links to tab panes, see
// paneLinks) whose
// every tab is matched to a distinct panel in the tree, by the tab's
// aria-controls, by the panel's aria-labelledby, by the tab's link to a
// tab pane, or, where the page names none, by their order, and marks each panel with its tab's label (see
// labelTabs). A row whose panels are not all there, or that holds words
// besides its tabs (an accordion marked up as tabs, its answers inside
// the row), is left as it is. The extraction
// marks the panels before its rules weigh the page, which take a row of
// buttons for controls, and writes nothing into the page they weigh.
func markTabs(root *html.Node) {
	var rows []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode || literalText(n) {
			return false
		}
		if strings.EqualFold(strings.TrimSpace(attr(n, "role")), "tablist") || labelRow(n) || len(paneLinks(n)) > 0 {
			rows = append(rows, n)
			return false
		}
		return true
	})
	if len(rows) == 0 {
		return
	}
	// An id the page gives twice (a page that repeats a block for each
	// of its variants) names no one element.
	ids, twice := map[string]*html.Node{}, map[string]bool{}
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if id := attr(n, "id"); id != "" {
			twice[id] = ids[id] != nil
			ids[id] = n
		}
		return true
	})
	for id, dup := range twice {
		if dup {
			delete(ids, id)
		}
	}
	byLabel := map[string]*html.Node{} // panels by the ids of the tabs they name
	for _, n := range ids {
		for _, id := range strings.Fields(attr(n, "aria-labelledby")) {
			byLabel[id] = n
		}
	}
	for _, row := range rows {
		tabs, labels := tabsOf(row)
		links := len(tabs) == 0 // a list of links, whose panes only their links name
		if links {
			tabs = paneLinks(row)
			for _, a := range tabs {
				labels = append(labels, flatText(a))
			}
		}
		if len(tabs) < 2 || !onlyLabels(row, tabs) {
			continue
		}
		panels := namedPanels(tabs, ids, byLabel)
		if panels == nil && !links {
			panels = panelsInOrder(row, len(tabs))
		}
		if panels == nil && labelRow(row) {
			panels = boxesAfter(row, len(tabs))
		}
		if panels == nil {
			continue
		}
		for i, p := range panels {
			// The article extractor may put a box's only child in its
			// place; the child carries the mark too.
			for k := p; k != nil; k = onlyChild(k) {
				setAttr(k, tabLabelAttr, labels[i])
			}
		}
		row.Parent.RemoveChild(row)
	}
}

// onlyChild is n's one child element when n holds nothing else but blank
// text; nil otherwise.
func onlyChild(n *html.Node) *html.Node {
	var only *html.Node
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		switch {
		case k.Type == html.ElementNode && only == nil:
			only = k
		case k.Type == html.ElementNode, k.Type == html.TextNode && strings.TrimSpace(k.Data) != "":
			return nil
		}
	}
	return only
}

// labelTabs writes each tab's label, as a line of bold text, at the head
// of its panel: the panels the extraction marked, and those of the rows
// still in root (a selector's content, which no extraction read). A label
// goes inside its panel, so that whatever took the panel out took its
// label too; a panel with nothing to read, or that opens with its own
// name, gets none.
func labelTabs(root *html.Node) {
	markTabs(root)
	var panels []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if hasAttr(n, tabLabelAttr) {
			panels = append(panels, n)
			return false // the marks inside are this panel's own
		}
		return true
	})
	for _, p := range panels {
		label := attr(p, tabLabelAttr)
		walk(p, func(n *html.Node) bool {
			removeAttr(n, tabLabelAttr)
			return n.Type == html.ElementNode
		})
		removeAttr(p, tabLabelAttr)
		if label == "" || emptyBlock(p) || opensWith(p, label) {
			continue // nothing to name (a picture a script draws), or named
		}
		line := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
		bold := &html.Node{Type: html.ElementNode, Data: "strong", DataAtom: atom.Strong}
		bold.AppendChild(&html.Node{Type: html.TextNode, Data: label})
		line.AppendChild(bold)
		p.InsertBefore(line, p.FirstChild)
	}
}

// labelRow reports a row of tabs drawn with labels of radio buttons, as
// tabs made without script are (Material for MkDocs' "tabbed" sets, a
// documentation site's code groups): an element whose children are two
// labels or more, each for a control of its own, and nothing else (the
// radio buttons between them are gone by the time the Markdown is
// written). Its panels are known by their class (see
// tabPaneClass), or are the boxes of the box right after it, as many as
// its labels (see boxesAfter).
func labelRow(n *html.Node) bool {
	labels := 0
	seen := map[string]bool{}
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		switch {
		case k.Type == html.TextNode && strings.TrimSpace(k.Data) != "":
			return false
		case k.Type != html.ElementNode:
		case k.DataAtom != atom.Label:
			return false
		default:
			id := strings.TrimSpace(attr(k, "for"))
			if id == "" || seen[id] {
				return false
			}
			seen[id] = true
			labels++
		}
	}
	return labels >= 2
}

// paneLinks gives the links of a list of tabs written as links to their
// panes, as Bootstrap's `nav-tabs` are without ARIA: a list whose every
// item holds one link to a place in the page ("#specs") and nothing else
// to read; nil for any other element. Which places are tab panes is
// asked when the panels are matched (see namedPanels).
func paneLinks(n *html.Node) []*html.Node {
	if n.DataAtom != atom.Ul && n.DataAtom != atom.Ol {
		return nil
	}
	var links []*html.Node
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		switch {
		case li.Type == html.TextNode && strings.TrimSpace(li.Data) != "":
			return nil
		case li.Type != html.ElementNode:
			continue
		case li.DataAtom != atom.Li:
			return nil
		}
		a := findFirst(li, func(k *html.Node) bool { return k.DataAtom == atom.A })
		if a == nil {
			return nil
		}
		href, label := strings.TrimSpace(attr(a, "href")), flatText(a)
		if len(href) < 2 || href[0] != '#' || label == "" || label != flatText(li) ||
			findFirst(a, func(k *html.Node) bool { return k != a && k.DataAtom == atom.A }) != nil {
			return nil
		}
		links = append(links, a)
	}
	if len(links) < 2 {
		return nil
	}
	return links
}

// boxesAfter gives the boxes of the box that follows a row of labels,
// when it holds as many as the row has labels and nothing else to read:
// a code group's blocks, one for each package manager its labels name,
// each of one tag and one first class name.
func boxesAfter(row *html.Node, want int) []*html.Node {
	next := row.NextSibling
	for next != nil && next.Type != html.ElementNode {
		next = next.NextSibling
	}
	if next == nil {
		return nil
	}
	var boxes []*html.Node
	for k := next.FirstChild; k != nil; k = k.NextSibling {
		switch {
		case k.Type == html.TextNode && strings.TrimSpace(k.Data) != "":
			return nil
		case k.Type == html.ElementNode:
			boxes = append(boxes, k)
		}
	}
	if len(boxes) != want {
		return nil
	}
	// Panels are a series: one tag and one first class name.
	first := func(n *html.Node) string {
		f := strings.Fields(attr(n, "class"))
		if len(f) == 0 {
			return ""
		}
		return f[0]
	}
	for _, b := range boxes[1:] {
		if b.DataAtom != boxes[0].DataAtom || b.Data != boxes[0].Data || first(b) != first(boxes[0]) {
			return nil
		}
	}
	return boxes
}

// tabsOf gives the tabs of a row and their labels: the tab's words, or
// its aria-label when it shows only an icon. It gives none when a tab has
// no label or a long one.
func tabsOf(row *html.Node) (tabs []*html.Node, labels []string) {
	ok, ofLabels := true, labelRow(row)
	walk(row, func(n *html.Node) bool {
		if !ok || n.Type != html.ElementNode {
			return false
		}
		if !strings.EqualFold(strings.TrimSpace(attr(n, "role")), "tab") && !(ofLabels && n.Parent == row) {
			return true
		}
		label := flatText(n)
		if label == "" {
			label = strings.Join(strings.Fields(attr(n, "aria-label")), " ")
		}
		if label == "" || len(label) > maxTabLabel {
			ok = false
			return false
		}
		tabs = append(tabs, n)
		labels = append(labels, label)
		return false
	})
	if !ok {
		return nil, nil
	}
	return tabs, labels
}

// onlyLabels reports whether the row holds no words outside its tabs.
func onlyLabels(row *html.Node, tabs []*html.Node) bool {
	isTab := map[*html.Node]bool{}
	for _, t := range tabs {
		isTab[t] = true
	}
	words := false
	walk(row, func(n *html.Node) bool {
		if words || isTab[n] {
			return false
		}
		words = n.Type == html.TextNode && strings.TrimSpace(n.Data) != ""
		return n.Type == html.ElementNode
	})
	return !words
}

// namedPanels gives the panel each tab names (ids), or that names it
// (byLabel), when every tab has one of its own in the tree; nil otherwise.
func namedPanels(tabs []*html.Node, ids, byLabel map[string]*html.Node) []*html.Node {
	panels := make([]*html.Node, 0, len(tabs))
	seen := map[*html.Node]bool{}
	for _, t := range tabs {
		p := ids[controlledID(strings.TrimSpace(attr(t, "aria-controls")))]
		if p == nil && attr(t, "id") != "" {
			p = byLabel[attr(t, "id")]
		}
		if href := strings.TrimSpace(attr(t, "href")); p == nil && t.DataAtom == atom.A && strings.HasPrefix(href, "#") {
			if q := ids[href[1:]]; q != nil && (tabPaneClass(q) || strings.EqualFold(strings.TrimSpace(attr(q, "role")), "tabpanel")) {
				p = q // a framework's tab, a link to its pane
			}
		}
		if p == nil || seen[p] || p.Parent == nil {
			return nil
		}
		seen[p] = true
		panels = append(panels, p)
	}
	return panels
}

// panelsInOrder gives the panels that follow the row, up to the next
// row, when there are as many as tabs: those in the row's box, or else in
// one of the maxTabPanelClimb boxes above it. A panel is known by its
// role or by the class the common frameworks give it (see tabPaneClass);
// panels inside a panel belong to a row of their own.
func panelsInOrder(row *html.Node, want int) []*html.Node {
	var panels []*html.Node
	done := false // the next row, or more panels than tabs
	var look func(n *html.Node) bool
	look = func(n *html.Node) bool {
		if done || n.Type != html.ElementNode {
			return false
		}
		switch {
		case strings.EqualFold(strings.TrimSpace(attr(n, "role")), "tablist"):
			done = true
		case strings.EqualFold(strings.TrimSpace(attr(n, "role")), "tabpanel") || tabPaneClass(n):
			panels = append(panels, n)
			done = len(panels) > want
		default:
			return true
		}
		return false
	}
	at := row
	for range maxTabPanelClimb {
		for s := at.NextSibling; s != nil && !done; s = s.NextSibling {
			if look(s) {
				walk(s, look)
			}
		}
		if len(panels) > 0 || done || at.Parent == nil {
			break
		}
		at = at.Parent
	}
	if len(panels) != want {
		return nil
	}
	return panels
}

// opensWith reports whether the first text of panel, outside code, is
// label: a panel that begins with its own heading or line naming it.
func opensWith(panel *html.Node, label string) bool {
	var first *html.Node
	walk(panel, func(n *html.Node) bool {
		switch {
		case first != nil:
			return false
		case n.Type == html.TextNode && strings.TrimSpace(n.Data) != "":
			first = n
			return false
		case n.DataAtom == atom.Pre || n.DataAtom == atom.Code:
			first = n
			return false
		}
		return n.Type == html.ElementNode
	})
	if first == nil || first.Type != html.TextNode {
		return false
	}
	return strings.EqualFold(strings.Join(strings.Fields(first.Data), " "), label)
}
