package markdown

import (
	"regexp"
	"slices"
	"strings"

	"github.com/glimpse/glimpse/orchestrator/meta"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Choices: a shop's filters ("Size 8, 8.5, 9, …", "Colour black, grey,
// …"), its sort bar ("Featured, Best selling, Price low to high") and a
// product's options (its sizes, its colours) are lists of checkboxes or
// radio buttons, each named in a word or two. They are controls for the
// page, not its content, and on a category page they sit beside the grid
// and come in with it. They are known by their shape: a run of sibling
// entries, each holding one checkbox or radio button and a short label.
// A choice of two or three (monthly or yearly prices on a service page)
// is part of what it switches and stays, and so does a checklist whose
// boxes cannot be ticked (a task list written in Markdown).

const (
	// minChoices is the fewest entries of a list of choices.
	minChoices = 5
	// minChoiceShare is the least share of a block's entries that must
	// be choices for the block to be a list of them.
	minChoiceShare = 0.8
	// maxChoiceText is the most text, in bytes, of one choice's label.
	maxChoiceText = 60
	// maxChoiceHeading is the most text, in bytes, a block around a list
	// of choices may hold besides it ("Size", "Sort by", "Colour: Navy")
	// to go with it.
	maxChoiceHeading = 30
)

// dropChoices removes the lists of choices under root, each with the
// short heading that names it.
func dropChoices(root *html.Node) {
	var lists []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if choiceList(n) {
			lists = append(lists, n)
			return false
		}
		return true
	})
	for _, n := range lists {
		box, inner := n, collapsedText(n)
		for p := box.Parent; p != nil && p.Parent != nil; p = p.Parent {
			if p.DataAtom == atom.Body || p.DataAtom == atom.Main || p.DataAtom == atom.Form && box != n {
				break
			}
			t := collapsedText(p)
			if t-inner > maxChoiceHeading {
				break
			}
			box, inner = p, t
		}
		if box.Parent != nil {
			box.Parent.RemoveChild(box)
		}
	}
}

// choiceList reports a block whose entries are choices: at least
// minChoices element children, nearly all of them a choice. The rows of a
// table are not: a table of choices lays out the page's own data, each
// row a thing to weigh (a ranking's areas, a form of settings).
func choiceList(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Table, atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr:
		return false
	}
	entries, choices, counted := 0, 0, 0
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type != html.ElementNode {
			continue
		}
		entries++
		if choice(k) {
			choices++
			if facetCountRe.MatchString(strings.TrimSpace(textOf(k))) {
				counted++
			}
		}
	}
	// A filter of a shop or a search says how many items each choice
	// leaves ("Yes (30)"): a choice of two is a filter too when each
	// does; a price plan's monthly and yearly switch says no count.
	return choices >= minChoices && float64(choices) >= minChoiceShare*float64(entries) ||
		counted >= minCountedChoices && counted == entries
}

// facetCountRe is a choice's label ending in the count of what it leaves:
// "Wireless (21)", "Sony [12]".
var facetCountRe = regexp.MustCompile(`[(\[]\s*\d[\d,.]*\s*[)\]]$`)

// minCountedChoices is the fewest choices, each with its count, that make
// a filter.
const minCountedChoices = 2

// choice reports an entry holding one checkbox or radio button that can be
// ticked, and a label of at most maxChoiceText bytes.
func choice(n *html.Node) bool {
	controls := 0
	walk(n, func(k *html.Node) bool {
		if k.Type != html.ElementNode || controls > 1 {
			return false
		}
		if k.DataAtom == atom.Input {
			switch strings.ToLower(strings.TrimSpace(attr(k, "type"))) {
			case "checkbox", "radio":
				if !hasAttr(k, "disabled") {
					controls++
				} else {
					controls = 2 // a checklist's box, not a control
				}
			}
		}
		return true
	})
	if textUpTo(n, maxChoiceText) > maxChoiceText {
		return false
	}
	return controls == 1 || controls == 0 && swatch(n)
}

// classWord reports a class name of n with w among its words (see
// meta.ClassWords): "swatch" in "swatch-option" and "colorSwatch".
func classWord(n *html.Node, w string) bool {
	return slices.Contains(meta.ClassWords(attr(n, "class")), w)
}

// swatchRe is how a variant's swatch names itself: "Navy swatch",
// "carbon-fiber option".
var swatchRe = regexp.MustCompile(`(?i)\b(?:swatch|option)\s*$`)

// swatch reports an entry of a picker of variants drawn as pictures: a
// shop's colours or finishes, each a picture and no words, that says it
// is a swatch or an option (in its class, its label or its picture's alt
// text). Swatches with their names written beside them stay: a card of a
// category page says so in which colours its product comes.
func swatch(n *html.Node) bool {
	pictures, named := 0, classWord(n, "swatch") || swatchRe.MatchString(strings.TrimSpace(attr(n, "aria-label")))
	walk(n, func(k *html.Node) bool {
		if k.Type != html.ElementNode {
			return false
		}
		if k.DataAtom == atom.Img {
			pictures++
			named = named || swatchRe.MatchString(strings.TrimSpace(attr(k, "alt")))
		}
		named = named || classWord(k, "swatch") || swatchRe.MatchString(strings.TrimSpace(attr(k, "aria-label")))
		return true
	})
	return named && pictures == 1 && strings.TrimSpace(textOf(n)) == ""
}

// entryTypes are the types of <input> a reader types into; a control of
// no type is one too.
var entryTypes = map[string]bool{
	"": true, "text": true, "email": true, "tel": true, "number": true, "password": true, "search": true, "url": true,
	"date": true, "datetime-local": true, "month": true, "week": true, "time": true,
}

// entryField reports a control a reader types a value into or picks one
// from a menu of: a text box, a text area, a select.
func entryField(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Textarea, atom.Select:
		return true
	case atom.Input:
		return entryTypes[strings.ToLower(strings.TrimSpace(attr(n, "type")))]
	}
	return false
}

// dropFieldLabels removes the labels of the fields a form asks the reader
// to fill in ("First name*", "Email address", "Company"): the form's
// controls are not written, and their labels are a list of words that
// say nothing of the page. A label is known by the field it names (for=)
// or holds.
func dropFieldLabels(root *html.Node) {
	fields := map[string]bool{}
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode && entryField(n) {
			if id := attr(n, "id"); id != "" {
				fields[id] = true
			}
		}
		return n.Type == html.ElementNode
	})
	var labels []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if n.DataAtom != atom.Label {
			return true
		}
		if fields[attr(n, "for")] || findFirst(n, entryField) != nil {
			labels = append(labels, n)
		}
		return false
	})
	for _, n := range labels {
		n.Parent.RemoveChild(n)
	}
}
