package markdown

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A listing's controls: the lines a shop's category page or a search puts
// over its grid to steer it, "Sort by:", "Filters", "View:", and the count
// of what it found, "514 items", "Showing 24 of 133 results", "Products
// (338)", and the
// badges it pins on cards, "Best seller", "New arrival". They name
// the page's controls, not its items, and read the same on every listing
// of the site. A count is known anywhere by its shape; a control's name
// ("Filters") may head a section of a guide, so it goes only from a page
// that declares or shows many blocks.

var (
	// listingCountRe is the whole text of a line counting what a listing
	// shows.
	listingCountRe = regexp.MustCompile(`(?i)^(?:showing\s+)?(?:\d[\d,.]*\s*(?:-|–|to)\s*)?\d[\d,.]*\s+(?:of\s+\d[\d,.]*\s+)?(?:results?|items?|products?|matches|listings|articles|posts)(?:\s+found)?\.?$|^showing\s+\d[\d,.]*\s+(?:of|to)\s+\d[\d,.]*$|^(?:results?|items?|products?|listings|articles|posts)\s*\(\d[\d,.]*\)$`)
	// listingControlRe is the whole text of a line naming a listing's
	// control.
	listingControlRe = regexp.MustCompile(`(?i)^(?:sort|sort by|sort order|order by|filter|filters|filter by|refine|refine by|view|show|display|items per page|results per page|per page|show filters|hide filters|clear all|clear filters|filter\s*(?:&|and)\s*sort|sort\s*(?:&|and)\s*filter|sort options|view options)\s*:?$`)
	// listingSortRe is the whole text of a line naming a listing's order
	// with the order chosen: "Sort: Best Match", "Sort by: Price: Low to
	// High". The orders are the few every shop offers.
	listingSortRe = regexp.MustCompile(`(?i)^(?:sort(?:ed)?(?:\s+by)?|order(?:ed)?\s+by)\s*:?\s*(?:best\s+match(?:es)?|relevan(?:ce|cy)|featured|newest(?:\s+first|\s+arrivals)?|most\s+recent|oldest(?:\s+first)?|most\s+popular|popularity|top\s+rated|highest\s+rated|best\s*-?\s*selling|best\s+sellers?|recommended|customer\s+rating|(?:price|name)\s*[:(,-]?\s*(?:low\s+to\s+high|high\s+to\s+low|a\s*-\s*z|z\s*-\s*a)\)?|alphabetical(?:ly)?|a\s*-\s*z|z\s*-\s*a)$`)
	// listingBadgeRe is the whole text of a badge a shop pins on its
	// cards: the same few words on any item, never the item's own.
	listingBadgeRe = regexp.MustCompile(`(?i)^(?:best\s*-?\s*sellers?|top\s+rated|new\s+arrivals?|just\s+in|award\s+winner|sold\s+out|online\s+only|limited\s+edition|new|sale|on\s+sale|hot|trending)!?$`)
)

// maxControlText is the most text, in bytes, of such a line.
const maxControlText = 48

// dropListingControls removes the lines under art that count a listing's
// items and, when many is set, those that name its controls.
func dropListingControls(art *html.Node, many bool) {
	// A table's cells and a form's labels are data and fields, whatever
	// they say.
	dropLines(art, maxControlText, []atom.Atom{atom.Table, atom.Form}, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.P, atom.Div, atom.Li, atom.Legend, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			return true
		case atom.Span, atom.Strong, atom.B, atom.Label:
			return noTextBeside(n) // else a few words of a sentence
		}
		return false
	}, func(n *html.Node, text string) bool {
		if !strings.ContainsAny(text, "0123456789") && !many ||
			findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.A || k.DataAtom == atom.Img }) != nil {
			return false
		}
		return listingCountRe.MatchString(text) ||
			many && (listingControlRe.MatchString(text) || listingSortRe.MatchString(text) || listingBadgeRe.MatchString(text))
	})
}
