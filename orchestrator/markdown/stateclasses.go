package markdown

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The article extractor removes, before it scores anything, every element
// whose class or id holds one of its words for furniture ("header",
// "menu", "sidebar", "banner", "related", …) anywhere in a name, unless
// another name says it may be the content, and weighs down those whose
// names hold "sidebar", "banner", "footer" and the like when it cleans its
// choice. A name may hold such a word and still not call the element
// furniture: it may say that the element, or the page around it, has or
// lacks such a part ("has-banner", "no-sidebar", "with-subnav"), set a
// style on a part of it ("kt-pane-header-alignment-left", the alignment of
// an accordion's headers; "latest--related-posts-false"), speak of a
// table's header row ("sticky-header"), or call a heading its section's
// header ("header-anchor-post", a blog platform's heading one may link
// to). An accordion of a review's method, a table whose header row stays
// in view while it scrolls, the section of a page that "has a banner" and
// every heading of a newsletter's posts went with the furniture.
//
// The rules before the extractor have already removed what glimpse takes
// for furniture, by its own measures. The extractor reads the class of an
// element without such names, when they are all of the class's names
// that hold its words (the element's other names still count), and its
// answer gets them back. The page's root and body are left as they are:
// the extractor never removes the body, and reads a page whose root it
// removed once more without this step of its own.

// extractorFurnitureRe is the extractor's words, in an element's class or
// id, for furniture it removes or weighs down.
var extractorFurnitureRe = regexp.MustCompile(`(?i)-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote|com-|contact|masthead|meta|outbrain|promo|share|shopping|tags|widget`)

// extractorCandidateRe is the extractor's words that keep such an element:
// it may be the content.
var extractorCandidateRe = regexp.MustCompile(`(?i)and|article|body|column|content|main|mathjax|shadow`)

// shownClassAttr holds, while the extractor reads the page, the class of
// an element it reads without its names of state and style.
const shownClassAttr = "data-glimpse-class"

// stateNameRe is a name that opens with a word saying that the element,
// or the page, has or lacks the part its furniture word names:
// "has-banner", "no-sidebar", "with-sidebar-left", "without-header",
// "hasRightSidebar". A name that opens with "is", "sticky", "fixed" or
// "show" ("is-menu", "sticky-sidebar", "fixed-header") says what the
// element is, and the extractor reads it right.
var stateNameRe = regexp.MustCompile(`(?i:^(?:has|no|with|without)(?:[-_]|$))|^(?:[hH]as|[nN]o|[wW]ith|[wW]ithout)[A-Z]`)

// styleWords are the words that, after a furniture word in a name, say
// that the name sets a style or a value ("pane-header-alignment-left",
// "related-posts-false"), not the part of the page the element is.
var styleWords = map[string]bool{
	"alignment": true, "align": true, "style": true, "color": true, "colour": true, "position": true,
	"layout": true, "size": true, "width": true, "height": true, "spacing": true, "padding": true,
	"margin": true, "font": true, "background": true, "border": true, "offset": true, "overlap": true,
	"false": true, "none": true, "off": true,
}

// misreadNames returns the names of the class of n that hold the
// extractor's furniture words only to say a state or a style, or, on a
// heading that opens a section of text, to call it the section's header,
// or, on a table, to speak of its header or footer rows ("sticky-header",
// a table whose header row stays in view), when these are all the names
// of its class and id that hold such words; nil when there are none or
// another name calls n furniture or content.
func misreadNames(n *html.Node) []string {
	class, id := attr(n, "class"), attr(n, "id")
	names := class + " " + id
	if !extractorFurnitureRe.MatchString(names) || extractorCandidateRe.MatchString(names) || extractorFurnitureRe.MatchString(id) {
		return nil
	}
	var state []string
	for name := range strings.FieldsSeq(class) {
		found := extractorFurnitureRe.FindAllStringIndex(name, -1)
		for _, at := range found {
			word := strings.ToLower(name[at[0]:at[1]])
			if !stateOrStyleName(name, at[1]) && !(word == "header" && opensSection(n)) && !(n.DataAtom == atom.Table && (word == "header" || word == "footer")) {
				return nil
			}
		}
		if len(found) > 0 {
			state = append(state, name)
		}
	}
	return state
}

// stateOrStyleName reports a name, holding a furniture word that ends at
// end, that says a state or sets a style.
func stateOrStyleName(name string, end int) bool {
	if stateNameRe.MatchString(name) {
		return true
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(name[end:]), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if styleWords[w] {
			return true
		}
	}
	return false
}

// hideStateNames takes off the class of each element under root, but its
// root and body, the names misreadNames returns, keeping the class in
// shownClassAttr, and returns the elements.
func hideStateNames(root *html.Node) []*html.Node {
	var changed []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		removeAttr(n, shownClassAttr) // the page's own, which is not a class to give back
		if n.DataAtom == atom.Html || n.DataAtom == atom.Body {
			return true
		}
		state := misreadNames(n)
		if len(state) == 0 {
			return true
		}
		class := attr(n, "class")
		var kept []string
		for name := range strings.FieldsSeq(class) {
			if !slices.Contains(state, name) {
				kept = append(kept, name)
			}
		}
		setAttr(n, shownClassAttr, class)
		if len(kept) == 0 {
			removeAttr(n, "class")
		} else {
			setAttr(n, "class", strings.Join(kept, " "))
		}
		changed = append(changed, n)
		return true
	})
	return changed
}

// restoreClass gives n back the class hideStateNames kept.
func restoreClass(n *html.Node) {
	if !hasAttr(n, shownClassAttr) {
		return
	}
	setAttr(n, "class", attr(n, shownClassAttr))
	removeAttr(n, shownClassAttr)
}

// restoreClasses gives root and the elements under it back the classes
// hideStateNames kept; root may be nil.
func restoreClasses(root *html.Node) {
	if root == nil {
		return
	}
	if root.Type == html.ElementNode {
		restoreClass(root)
	}
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		restoreClass(n)
		return true
	})
}

// minSectionStart is the least text, in bytes, of the block after a
// heading that makes the heading a section's: a sentence or a list.
const minSectionStart = 20

// opensSection reports a heading whose next element is a paragraph, a
// list, a quotation or code with some text, or a box of prose: the title
// of a section of the text ("header-anchor-post", a heading one may link
// to; "accordion-header", a question over its answer), not of a box of
// cards or links.
func opensSection(n *html.Node) bool {
	if headingLevel(n) == 0 {
		return false
	}
	for k := n.NextSibling; k != nil; k = k.NextSibling {
		if k.Type == html.ElementNode {
			switch k.DataAtom {
			case atom.P, atom.Ul, atom.Ol, atom.Blockquote, atom.Pre:
				return len(flatTextUpTo(k, minSectionStart)) >= minSectionStart
			case atom.Div, atom.Section:
				// A box of prose: an accordion's answer under its
				// question ("accordion-header"), not a box of cards, each
				// under a heading of its own, or of links.
				return len(flatTextUpTo(k, minSectionStart)) >= minSectionStart && 2*proseLen(k) > collapsedText(k) &&
					findFirst(k, func(h *html.Node) bool { return headingLevel(h) > 0 }) == nil
			}
			return false
		}
	}
	return false
}
