package markdown

import (
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// Blocks for one width of screen. A responsive page often holds a block
// twice, one copy for phones and one for wider screens, and hides the copy
// that does not fit with a utility class of its CSS framework: Tailwind's
// "hidden md:block" and "md:hidden", Bootstrap's "d-none d-lg-flex" and
// "d-lg-none", Bootstrap 3's "hidden-lg" and "visible-xs", Foundation's
// "hide-for-large". Those classes mean the same on every site, so the
// copy a desktop hides is known without the page's styles. Pages are read
// as a desktop shows them, at the API's default width of 1280 pixels.
//
// A bare "hidden" or "d-none" with no class for a width is left alone:
// a script may show it (a tab, an answer), and a page that hides
// something for good says so with the hidden attribute or an inline style.

// desktopWidth is the width of the screen pages are read at, in CSS
// pixels: the API's default viewport.
const desktopWidth = 1280

// tailwindWidths and bootstrapWidths are the least widths of their
// frameworks' breakpoint prefixes.
var (
	tailwindWidths  = map[string]int{"sm": 640, "md": 768, "lg": 1024, "xl": 1280, "2xl": 1536}
	bootstrapWidths = map[string]int{"sm": 576, "md": 768, "lg": 992, "xl": 1200, "xxl": 1400}
)

// displayValues are the values of CSS display that show an element, as
// the frameworks name their classes (Tailwind's "md:flex", Bootstrap's
// "d-lg-inline-block").
var displayValues = map[string]bool{
	"block": true, "inline": true, "inline-block": true, "flex": true, "inline-flex": true, "grid": true,
	"inline-grid": true, "table": true, "table-row": true, "table-cell": true, "contents": true,
	"flow-root": true, "list-item": true,
}

// narrowOnly are class names that show an element on narrow screens only,
// or hide it on wide ones: Bootstrap 3's and Foundation's, and the names
// sites give the same thing.
var narrowOnly = map[string]bool{
	"hidden-lg": true, "visible-xs": true, "visible-sm": true, "visible-md": true,
	"visible-xs-block": true, "visible-sm-block": true, "visible-md-block": true,
	"visible-xs-inline": true, "visible-sm-inline": true, "visible-md-inline": true,
	"visible-xs-inline-block": true, "visible-sm-inline-block": true, "visible-md-inline-block": true,
	"hide-for-large": true, "hide-for-xlarge": true, "show-for-small-only": true, "show-for-medium-only": true,
	"mobile-only": true, "hide-desktop": true, "hide-on-desktop": true, "hidden-desktop": true, "desktop-hidden": true,
}

// hiddenAtDesktop reports classes that hide their element on a screen
// desktopWidth wide. A display class for a width applies from that width
// up, and the widest one within desktopWidth wins, as in the frameworks'
// style sheets; a bare hiding class ("hidden", "d-none") counts only
// beside a class for a width. Between a class that hides and one that
// shows at the same width, the element is shown.
func hiddenAtDesktop(class string) bool {
	if class == "" {
		return false
	}
	type rule struct {
		width int
		show  bool
	}
	var rules []rule
	responsive := false
	add := func(width int, show bool) {
		rules = append(rules, rule{width, show})
		responsive = responsive || width > 0
	}
	for tok := range strings.FieldsSeq(strings.ToLower(class)) {
		if narrowOnly[tok] {
			return true
		}
		if prefix, name, ok := strings.Cut(tok, ":"); ok {
			if width, known := tailwindWidths[prefix]; known {
				switch {
				case name == "hidden":
					add(width, false)
				case displayValues[name]:
					add(width, true)
				}
			}
			continue
		}
		if tok == "hidden" {
			add(0, false)
			continue
		}
		rest, ok := strings.CutPrefix(tok, "d-")
		if !ok {
			continue
		}
		width := 0
		if bp, value, ok := strings.Cut(rest, "-"); ok && bootstrapWidths[bp] > 0 {
			width, rest = bootstrapWidths[bp], value
		}
		switch {
		case rest == "none":
			add(width, false)
		case displayValues[rest]:
			add(width, true)
		}
	}
	if !responsive {
		return false
	}
	widest, hide := -1, false
	for _, r := range rules {
		switch {
		case r.width > desktopWidth:
		case r.width > widest:
			widest, hide = r.width, !r.show
		case r.width == widest && r.show:
			hide = false
		}
	}
	return hide
}

// Prices for another state of the item. Shopify's own themes (Dawn and
// the themes built on it, the default of most shops there) write an
// item's price block with every state's prices in it and let the state's
// class on the block choose: "price__regular" holds the price shown when
// the item is not on sale, "price__sale" the old price struck through and
// the new one, shown only when the block says "price--on-sale", and the
// "Sale" and "Sold out" badges show only in their states. The markup holds
// them all; a reader sees one.

// maxPriceClimb is how many elements up from a part of a price block the
// block itself is looked for.
const maxPriceClimb = 4

// otherStatePrice reports a part of such a price block that its state
// hides.
func otherStatePrice(n *html.Node) bool {
	class := attr(n, "class")
	if !strings.Contains(class, "price__") {
		return false
	}
	var shownIn string // the state class that shows the part, or "" for one it hides
	hiddenIn := ""
	for c := range strings.FieldsSeq(class) {
		switch c {
		case "price__sale", "price__badge-sale":
			shownIn = "price--on-sale"
		case "price__badge-sold-out":
			shownIn = "price--sold-out"
		case "price__regular":
			hiddenIn = "price--on-sale"
		}
	}
	if shownIn == "" && hiddenIn == "" {
		return false
	}
	for a, i := n.Parent, 0; a != nil && i < maxPriceClimb; a, i = a.Parent, i+1 {
		classes := strings.Fields(attr(a, "class"))
		if !slices.Contains(classes, "price") {
			continue
		}
		if shownIn != "" {
			return !slices.Contains(classes, shownIn)
		}
		return slices.Contains(classes, hiddenIn)
	}
	return false
}
