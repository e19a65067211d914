package markdown

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A page hides some of its content only until the reader asks for it: the
// answers of an FAQ, the panels of an accordion, the tabs of a product's
// description and specs. They are shipped in the document, hidden, and a
// click shows them, so they are the page's content, not something it
// hides. WAI-ARIA names them: a control that says whether it is expanded
// (aria-expanded), or is a button, names the panel it opens
// (aria-controls), and a tab panel says what it is (role=tabpanel).
// HTML's hidden="until-found" is content the browser's find-in-page opens.
//
// Menus, dialogs and drawers are opened the same way. They stay hidden:
// a panel that is one by its element or role, or whose text is mostly
// links or too short to read (a cart, a search box), is not content.

// panelSet is what the page's controls open.
type panelSet struct {
	// ids are the ids the controls name, each with whether an element of
	// that id is content.
	ids map[string]bool
	// content are the elements of those ids that are content (see
	// contentPanel). Pages repeat ids, a menu's list and an FAQ's answer
	// both "content-1"; each element is judged on its own.
	content map[*html.Node]bool
}

// disclosures are the panels that controls on the page open; nil when
// there are none.
func disclosures(root *html.Node) *panelSet {
	var controlled map[string]bool
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		controls := strings.TrimSpace(attr(n, "aria-controls"))
		if controls == "" || (!hasAttr(n, "aria-expanded") && !strings.EqualFold(attr(n, "role"), "tab") && !button(n)) {
			return true
		}
		for id := range strings.FieldsSeq(controls) {
			if controlled == nil {
				controlled = map[string]bool{}
			}
			controlled[controlledID(id)] = true
		}
		return true
	})
	if controlled == nil {
		return nil
	}
	panels := &panelSet{ids: map[string]bool{}, content: map[*html.Node]bool{}}
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode {
			if id := attr(n, "id"); controlled[id] {
				ok := contentPanel(n)
				panels.ids[id] = panels.ids[id] || ok
				if ok {
					panels.content[n] = true
				}
			}
		}
		return true
	})
	return panels
}

// controlledID is the id an aria-controls value names: the value itself,
// or, as some templates write it, the selector of that id ("#tab-1").
func controlledID(v string) string {
	if id, ok := strings.CutPrefix(v, "#"); ok && id != "" {
		return id
	}
	return v
}

// notPanelRoles are the roles of what opens like a panel but is not
// content.
var notPanelRoles = map[string]bool{
	"menu": true, "menubar": true, "navigation": true, "dialog": true, "alertdialog": true,
	"listbox": true, "tooltip": true, "search": true, "combobox": true, "tree": true,
}

const (
	// minPanelText is the text, links aside, that a panel holds at least
	// to be content: a sentence, not a label.
	minPanelText = 40
	// maxPanelLinkShare is the share of a panel's text that may be link
	// text: more, and it is a menu of links.
	maxPanelLinkShare = 0.5
)

// disclosed reports a hidden element that is a panel a reader opens, given
// the panels the page's controls open.
func disclosed(n *html.Node, panels *panelSet) bool {
	if n.Type != html.ElementNode {
		return false
	}
	if panels != nil && panels.content[n] {
		return true
	}
	if strings.EqualFold(strings.TrimSpace(attr(n, "hidden")), "until-found") || strings.EqualFold(attr(n, "role"), "tabpanel") || tabPaneClass(n) || answersQuestion(n) || readMoreOf(n) {
		return contentPanel(n)
	}
	return false
}

// maxQuestionText is the longest text, in bytes, of a question an
// answer that opens with a click follows, and maxQuestionNodes the most
// nodes it is made of: a line, read at little cost for every hidden
// element.
const (
	maxQuestionText  = 300
	maxQuestionNodes = 64
)

// answersQuestion reports a hidden element right after a question or a
// button that opens it: the answer of an FAQ whose script opens it on a
// click, with no ARIA to name it ("<div class=q>Is it waterproof?</div>
// <div style=display:none>Yes, …</div>"), and the panel of WAI-ARIA's
// disclosure, whose button says whether it is expanded and need not name
// what it opens. The question is the element before it, whose whole text
// ends with a question mark, or that is such a button or holds one and
// nothing else to read; a question whose control names its panel
// (aria-controls) opens that panel alone.
func answersQuestion(n *html.Node) bool {
	prev := besideElement(n, func(k *html.Node) *html.Node { return k.PrevSibling })
	if prev == nil {
		return false
	}
	// Read prev depth first, and stop at the first of the bounds.
	var text strings.Builder
	var toggle *html.Node
	nodes := 0
	for k := prev; k != nil; {
		if nodes++; nodes > maxQuestionNodes || text.Len() > maxQuestionText {
			return false
		}
		if k.Type == html.TextNode {
			if t := strings.Join(strings.Fields(k.Data), " "); t != "" {
				text.WriteString(t + " ") // markup's indentation is no part of the line
			}
		}
		if k.Type == html.ElementNode && hasAttr(k, "aria-controls") {
			return false // its control names the panel it opens (see disclosures)
		}
		if k.Type == html.ElementNode && hasAttr(k, "aria-expanded") && button(k) && toggle == nil {
			toggle = k
		}
		k = nextInTree(k, prev)
	}
	q := strings.TrimSpace(text.String())
	// The button is the line, not a control beside other text (a
	// biography's own "Read more").
	return toggle != nil && spacedText(toggle) == q || asks(q)
}

// asks reports a line that ends with a question mark, in any script.
func asks(line string) bool {
	return strings.HasSuffix(line, "?") || strings.HasSuffix(line, "？") || strings.HasSuffix(line, "؟")
}

// maxPanelWrappers is how many boxes deep a panel may sit inside the
// hidden box that an accordion collapses.
const maxPanelWrappers = 3

// wrapsPanel reports a hidden box that only wraps a panel a reader opens:
// accordions collapse a box of their own around the panel the control
// names (<div class="collapse" style="display:none"><div role="region"
// id="panel-1">), and the box opens with the panel.
func wrapsPanel(n *html.Node, panels *panelSet) bool {
	if panels == nil {
		return false
	}
	for range maxPanelWrappers {
		var only *html.Node
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			switch {
			case k.Type == html.TextNode && strings.TrimSpace(k.Data) != "":
				return false
			case k.Type != html.ElementNode || k.DataAtom == atom.Style || k.DataAtom == atom.Script:
				continue
			case only != nil:
				return false
			}
			only = k
		}
		if only == nil {
			return false
		}
		if disclosed(only, panels) {
			return true
		}
		n = only
	}
	return false
}

// opener reports a control that opens a panel of content: the button of
// an accordion's section, whose label (the question of an FAQ) is part of
// the content the panel answers.
func opener(n *html.Node, panels *panelSet) bool {
	if panels == nil || !hasAttr(n, "aria-expanded") || !button(n) {
		return false
	}
	for id := range strings.FieldsSeq(attr(n, "aria-controls")) {
		if panels.ids[controlledID(id)] {
			// "Read more" only opens the rest: it is no part of it.
			return !moreLabelRe.MatchString(textOf(n))
		}
	}
	return false
}

// moreLabelRe is a control that says only that it opens or closes more of
// the same text.
var moreLabelRe = regexp.MustCompile(`(?i)^\s*(?:(?:read|show|see|view|load)\s+(?:more|less|all)|more|less|expand|collapse|` +
	`mehr(?:\s+(?:lesen|anzeigen))?|weiterlesen|lire\s+(?:la\s+suite|plus)|voir\s+plus|(?:leer|ver|mostrar)\s+más|` +
	`leggi\s+(?:di\s+)?(?:più|tutto)|ler\s+mais|ver\s+mais|lees\s+meer|toon\s+meer)\s*[.…›»+]*\s*$`)

// contentPanel reports a panel that holds content, not a menu, a dialog,
// a drawer or a label.
func contentPanel(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Dialog, atom.Header, atom.Footer, atom.Aside, atom.Form, atom.Ul, atom.Ol:
		return false
	}
	if notPanelRoles[strings.ToLower(strings.TrimSpace(attr(n, "role")))] || hasAttr(n, "aria-modal") {
		return false
	}
	text, links := panelText(n)
	if text > links && findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.Pre }) != nil {
		return true // a command or a program in a tab of its own, however short
	}
	return text-links >= minPanelText && float64(links) <= maxPanelLinkShare*float64(text)
}

// maxPanelNodes bounds the nodes of a panel that are read to judge it, so
// that panels nested in panels cost no more than a look at each.
const maxPanelNodes = 2000

// panelText is the length of the text under n and of the part of it that
// is link text, read from its first maxPanelNodes nodes in document order.
func panelText(n *html.Node) (text, links int) {
	inLink := 0 // links around k, inside n
	k := n.FirstChild
	for seen := 0; k != nil && seen < maxPanelNodes; seen++ {
		switch {
		case k.Type == html.TextNode:
			l := len(strings.TrimSpace(k.Data))
			text += l
			if inLink > 0 {
				links += l
			}
		case k.Type == html.ElementNode && !nonContent(k) && k.FirstChild != nil:
			if k.DataAtom == atom.A {
				inLink++
			}
			k = k.FirstChild
			continue
		}
		// The next node after k's subtree: its sibling, or that of the
		// nearest element around it with one, leaving the links passed.
		for k != n && k.NextSibling == nil {
			k = k.Parent
			if k.DataAtom == atom.A && k != n {
				inLink--
			}
		}
		if k == n {
			break
		}
		k = k.NextSibling
	}
	return text, links
}

// shown is the copy's attribute list of a disclosed panel: without what
// hid it, so that every later step reads it as the page shows it opened.
func shown(attrs []html.Attribute) []html.Attribute {
	out := attrs[:0]
	for _, a := range attrs {
		if a.Namespace == "" && (a.Key == "hidden" || a.Key == "aria-hidden") {
			continue
		}
		out = append(out, a)
	}
	return out
}

// button reports a button, or what says it is one.
func button(n *html.Node) bool {
	return n.DataAtom == atom.Button || strings.EqualFold(strings.TrimSpace(attr(n, "role")), "button")
}

// nextInTree is the node after k in the document order of root's tree,
// nil past its end.
func nextInTree(k, root *html.Node) *html.Node {
	if k.FirstChild != nil {
		return k.FirstChild
	}
	for ; k != root; k = k.Parent {
		if k.NextSibling != nil {
			return k.NextSibling
		}
	}
	return nil
}

// tabPaneClasses are the classes the common frameworks give a tab's
// panel: Bootstrap's, Foundation's, Elementor's, Divi's, WPBakery's and
// Material for MkDocs'.
// A script shows one and hides the others, often with an inline style,
// and a page that uses them says no more (no role="tabpanel").
var tabPaneClasses = map[string]bool{
	"tab-pane": true, "tabs-panel": true, "elementor-tab-content": true, "et_pb_tab": true, "vc_tta-panel": true,
	"tabbed-block": true,
}

// tabPaneClass reports an element a framework's class names a tab's
// panel.
func tabPaneClass(n *html.Node) bool {
	for _, w := range strings.Fields(attr(n, "class")) {
		if tabPaneClasses[w] {
			return true
		}
	}
	return false
}

// readMoreOf reports a hidden element that a "Read more" toggle after it
// opens: the rest of a description or a biography, cut where the page
// shows its first lines. The toggle, the element after it or inside that
// element, is a button that says whether it is expanded and only that it
// shows more.
func readMoreOf(n *html.Node) bool {
	next := besideElement(n, func(k *html.Node) *html.Node { return k.NextSibling })
	if next == nil {
		return false
	}
	nodes := 0
	for k := next; k != nil; k = nextInTree(k, next) {
		if nodes++; nodes > maxQuestionNodes {
			return false
		}
		if k.Type == html.ElementNode && hasAttr(k, "aria-expanded") && button(k) {
			return moreLabelRe.MatchString(textOf(k))
		}
	}
	return false
}

// besideElement is the element next to n in the direction step takes,
// past white space and comments; nil when text or nothing is there.
func besideElement(n *html.Node, step func(*html.Node) *html.Node) *html.Node {
	k := step(n)
	for k != nil && (k.Type == html.TextNode && strings.TrimSpace(k.Data) == "" || k.Type == html.CommentNode) {
		k = step(k)
	}
	if k == nil || k.Type != html.ElementNode {
		return nil
	}
	return k
}
