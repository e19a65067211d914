package markdown

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A page's controls print labels that stand on lines of their own: the
// "Read more" under a teaser, the "Compare" box of a product card,
// "Loading…" or "Loading reviews…" where a script was to fill in, the "Click to expand…" of a
// quoted post, "Reply", "Reply with quote", "Share", "Follow", "Report
// inappropriate content", "Add to cart". They say what a click does, not
// what the page says, and read the same on every site. Only a label alone
// on its line goes: "read more" inside a sentence is the sentence's.

// interfaceLabelRe is the whole text of a control's label: a link's
// "Learn more", a product card's "Add to compare", "Choose options", "View
// details", "Quick view", a list's "Show more", a service page's calls to
// action ("Read the report", "Talk to sales", "Book a demo", "Get a quote
// (212) 555-0100", "Book now", "Start your free trial"), a forum's
// controls and notices ("Post reply", "Jump to", "Not open for further
// replies"), the links to the story before or after ("Previous article",
// "« Previous Thread Next Thread »"). Labels that pages also print as
// content ("Shop now" in a campaign's copy, "Print") are not in it; a
// heading ("Get started" over a guide) is never a label.
var interfaceLabelRe = regexp.MustCompile(`(?i)^\s*(?:(?:read|see|view)\s+(?:more|all)|(?:see|view)\s+less|` +
	`read\s+(?:the\s+)?full\s+(?:article|story|post|review)|continue\s+reading|click\s+to\s+(?:expand|shrink|collapse)|` +
	`expand(?:\s+(?:all|description|details))?|collapse\s+all|loading(?:(?:\s+\pL+){1,2}\s*(?:\.\.\.|…))?|compare|sponsored|reply|share|follow|bookmark|flag|report\s+(?:inappropriate\s+content|abuse|post|this\s+post|comment|spam)|reply\s+with\s+quote|multi-?quote|quote|see\s+similar\s+questions\s+with\s+these\s+tags|apply\s+now|discover\s+more|add\s+to\s+(?:cart|basket|bag|wish\s*list|compare)|(?:choose|select|see)\s+options|view\s+details|quick\s*(?:shop|view)|(?:show|load)\s+more|learn\s+more|advertisement|sign\s+in|log\s*in|subscribe(?:\s+now)?|back\s+to\s+(?:blog|top|news|articles)|read\s+next|article\s+continues\s+below|pin\s+(?:this\s+)?for\s+later|home|blog|ask\s+(?:a\s+|your\s+own\s+)?question|start\s+asking\s+to\s+get\s+answers|find\s+the\s+answer\s+to\s+your\s+question\s+by\s+asking|` +
	`(?:read|view|see|watch|explore|download)\s+(?:the\s+|our\s+|all\s+|this\s+|more\s+)?(?:blog|case\s+stud(?:y|ies)|reviews?|report|work|demo|video|webinar|white\s*paper|e-?book|data\s*sheet)|` +
	`(?:book|get|request|schedule|watch)\s+(?:a\s+|your\s+|free\s+|a\s+free\s+)?(?:custom\s+)?(?:demo|quote|consultation)(?:\s+\(?\d{3}\)?[\s.-]?\d{3}[\s.-]?\d{4})?|` +
	`(?:book|order|reserve)\s+(?:now|today)|talk\s+to\s+(?:sales|an?\s+expert|a\s+human|us)|contact\s+(?:sales|us)|` +
	`start\s+(?:your\s+|a\s+)?free\s+trial|try\s+(?:it\s+)?(?:for\s+)?free|get\s+started(?:\s+(?:for\s+)?free)?|` +
	`start\s+(?:a\s+)?new\s+(?:topic|thread|discussion)|(?:post|add)\s+(?:a\s+)?(?:reply|new\s+topic|new\s+thread)|reply\s+to\s+(?:this\s+)?(?:topic|thread)|` +
	`go\s+to\s+(?:topic|thread|forum)\s+listing|jump\s+to|display\s+posts\s+from\s+previous|(?:un)?watch\s+this\s+(?:topic|thread)|` +
	`not\s+open\s+for\s+further\s+replies|new\s+replies\s+are\s+no\s+longer\s+allowed|` +
	postNavigation + `(?:\s*[-–—|·•/]?\s*` + postNavigation + `)?|` +
	`(?:click|tap)\s+(?:here\s+)?to\s+(?:enlarge|zoom(?:\s+in)?)|(?:view|see)\s+larger(?:\s+image)?|enlarge\s+(?:this\s+)?image|` +
	`weiterlesen|mehr\s+lesen|lire\s+la\s+suite|leer\s+más|leggi\s+(?:di\s+)?(?:più|tutto)|lees\s+meer)\s*[.…›»+→]*\s*$`)

// postNavigation is the label of a link to the story or the thread
// before or after this one, an arrow perhaps before or after it:
// "Previous article", "« Previous Thread", "Next Post ›", a forum's "Next
// Oldest". A title after it ("Next post: A walk on the ridge") is the
// link's words, and the line stays.
const postNavigation = `(?:[«‹<←]\s*)?(?:previous|prev|next|older|newer)\s+(?:post|article|story|entry|thread|topic|oldest|newest)(?:\s*[»›>→])?`

// captionToggleRe is the whole text of the control that shows or hides a
// picture's caption ("hide caption", "toggle caption"). A news site may
// set it inside the caption's own line, after the credit; no sentence
// holds it as an element of its own.
var captionToggleRe = regexp.MustCompile(`(?i)^\s*(?:hide|show|toggle)\s+captions?\s*$`)

// closedTopicRe is the whole text of a forum's notice that a thread is
// closed: "This topic was automatically closed after 30 days. New
// replies are no longer allowed."
var closedTopicRe = regexp.MustCompile(`(?i)^\s*(?:this\s+)?(?:topic|thread|discussion)\s+(?:was|has\s+been|is)\s+(?:automatically\s+)?(?:closed|locked|archived)[^.!]{0,60}[.!]?(?:\s+new\s+replies\s+are\s+no\s+longer\s+allowed)?\s*[.!]?\s*$`)

// maxErrorNotice is the most text, in bytes, of a script's error notice
// or a forum's notice.
const maxErrorNotice = 200

// errorNoticeRe and retryRe find the notices a page's scripts show when
// something of theirs fails, which the page holds hidden until then:
// "Sorry, there was a problem.", "Oops! Something went wrong while
// submitting the form.", "Unable to add item to List. Please try
// again." A line that tells what went wrong in a story says more than a
// bare "there was a problem" and does not ask the reader to try again.
const (
	errorOpener  = `(?i)^\W*(?:(?:oops|opps|whoops|sorry|we'?re\s+sorry|uh[\s-]oh)\W+)*`
	errorFailure = `something\s+went\s+wrong|there\s+was\s+(?:a\s+problem|an\s+error)|an?\s+(?:unexpected\s+|unknown\s+)?error\s+(?:has\s+)?occurred`
)

var (
	errorNoticeRe = regexp.MustCompile(errorOpener + `(?:` + errorFailure + `)\W*$`)
	retryRe       = regexp.MustCompile(errorOpener + `(?:` + errorFailure + `|unable\s+to|could\s+not|couldn'?t|failed\s+to|your\s+request)` +
		`.*\bplease\s+(?:try\s+(?:again|your\s+request\s+again)|reload|refresh)[^.!]*[.!]?\s*$|` +
		`^\W*(?:oops|opps|whoops)\W+something\s+went\s+wrong[^.!]{0,60}[.!]?\s*$`)
)

// errorNotice reports the whole text of a script's error notice.
func errorNotice(text string) bool {
	return errorNoticeRe.MatchString(text) || retryRe.MatchString(text)
}

// emptyStateRe is the whole text of the note a widget shows when it has
// nothing to list: an archive's "No posts", a search box's "No results
// found.", a shop's "No reviews yet" and "Your cart is empty.", a
// community's "There's nothing here!", a review box's "Be the first to
// review this product". Pages ship these notes in the markup for a script
// to show or hide; they are never what the page says. A question ("No
// results found?") or more words after the noun ("No questions asked")
// are a sentence of the page.
var emptyStateRe = regexp.MustCompile(`(?i)^\W*(?:` +
	`(?:there\s+(?:are|is|were)\s+)?no\s+(?:\w+\s+){0,2}` +
	`(?:posts|results|items|products|comments|reviews|ratings|questions|answers|events|articles|entries|matches|listings|jobs|replies|messages|notifications|stories|videos)` +
	`(?:\s+(?:or|and)\s+\w+)?(?:\s+(?:were\s+|have\s+been\s+)?found|\s+yet|\s+to\s+(?:show|display)|\s+available)?` +
	`(?:\s+(?:for|in|matching|on)\s+[^.!?]{0,60})?` +
	`|(?:your\s+)?(?:shopping\s+)?(?:cart|bag|basket)\s+is\s+(?:currently\s+)?empty` +
	`|there(?:'s|’s|\s+is)\s+nothing\s+here(?:\s+yet)?` +
	`|nothing\s+(?:found|to\s+(?:show|display)|here\s+yet)` +
	`|be\s+the\s+first\s+to\s+(?:review|comment|rate|write\s+a\s+review|leave\s+a\s+(?:review|comment))[^.!?]{0,60}` +
	`)\s*[.!]?\s*$`)

// memberFiguresRe is the whole text of the figures a Q&A site prints on
// a member's card, "26.3k 23 gold badges 129 silver badges" (read run
// together as "1,66913 silver badges18 bronze badges"): the card's, not
// the post's.
var memberFiguresRe = regexp.MustCompile(`(?i)^(?:[\d,.]+[km]?\s*)?(?:\d[\d,]*\s*(?:gold|silver|bronze)\s+badges?\s*)+$`)

// posterBadgeRe is the whole text of the badge a forum sets beside the
// name of the member who started the thread, on each of their posts:
// "OP", "Original Poster", "Thread starter". It names no one; the name
// beside it does.
var posterBadgeRe = regexp.MustCompile(`^\s*(?:OP|Original\s+[Pp]oster|(?:Topic|Thread)\s+[Ss]tarter)\s*$`)

// countsRe is the whole text of a line of a post's or a story's counts:
// "1.2K views", "286 likes · 14 comments", "(Visited 1,902 times, 364
// visits today)". They count readers, not what the page says.
var countsRe = regexp.MustCompile(`(?i)^[^\pL\d]*(?:(?:visited\s+)?\d[\d.,]*\s*[km]?\s*(?:views?|likes?|comments?|shares?|visits?(?:\s+today)?|reads?|claps?|reactions?|upvotes?|votes?|replies|times)[^\pL\d]*){1,3}$`)

// shopLabelRe is the whole text of a shop's notices beside a product or
// on each card of a grid: its stock ("In stock", "Only 3 left", "Sold
// out", "Notify me", "Back-order"), its shipping ("Free shipping on
// orders over $99", "Taxes and shipping calculated at checkout"), the
// labels of its order form ("Qty", "Select a size", "Size guide"), a
// card's pointer to the variants it does not show ("+ More", "More
// options", "Available in additional 2 options") and the invitation of a
// product no one has reviewed ("Be the first to review this product").
// They are the shop's, the same on every product, and say nothing of the
// product itself. A discount ("Save 25%") says what the price is, and
// stays.
var shopLabelRe = regexp.MustCompile(`(?i)^\s*(?:(?:in|out\s+of|low)\s+stock|sold\s+out|only\s+\d+\s+left(?:\s+in\s+stock)?|` +
	`no\s+longer\s+available|currently\s+unavailable|notify\s+me(?:\s+when\s+(?:available|in\s+stock))?|coming\s+soon|` +
	`free\s+(?:standard\s+|fast\s+|express\s+|uk\s+|us\s+)?(?:shipping|delivery|returns)(?:\s+(?:on\s+(?:all\s+)?(?:domestic\s+)?orders\s+)?(?:over|from|above)\s+\S+)?|` +
	`(?:taxes(?:,\s*discounts)?\s+and\s+)?shipping\s+calculated\s+at\s+checkout|tax(?:es)?\s+included|` +
	`pick\s*-?\s*up\s+in\s+store|returns\s*(?:&|and)\s*exchanges\s+accepted|qty|quantity|` +
	`(?:select|choose)\s+(?:a\s+|your\s+)?size|size\s+(?:guide|chart)|add\s+to\s+list|` +
	`back-?order(?:ed)?|` +
	`\+\s*more|more\s+(?:options|colou?rs)|available\s+in\s+(?:additional\s+)?\d+\s+(?:options|colou?rs|sizes)|` +
	`be\s+the\s+first\s+to\s+(?:review|write\s+a\s+review)(?:\s+this\s+(?:product|item))?)\s*[.!:]*\s*$`)

// aloneInItsLine reports an element whose text, text, stands in a line of
// its own: the wrappers that hold nothing else are not inline elements
// inside a sentence ("to enjoy <strong><div>free shipping</div></strong>.").
func aloneInItsLine(n *html.Node, text string) bool {
	top := n
	for top.Parent != nil && top.Parent.Type == html.ElementNode &&
		flatText(top.Parent) == text {
		top = top.Parent
	}
	return top.Parent == nil || !inlineTags[top.DataAtom] || noTextBeside(top)
}

// maxControlLabel is the most text, in bytes, of a control's label.
const maxControlLabel = 60

// dropInterfaceLabels removes, under art, the elements that hold only a
// control's label. A table's cells are data (a comparison table's
// "Compare" column), whatever they say.
func dropInterfaceLabels(art *html.Node) {
	dropLines(art, maxErrorNotice, []atom.Atom{atom.Table}, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.P, atom.Div, atom.Li, atom.Span, atom.Strong, atom.B, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			return n.DataAtom != atom.Span && n.DataAtom != atom.Strong && n.DataAtom != atom.B || noTextBeside(n)
		}
		return false
	}, func(_ *html.Node, text string) bool {
		return errorNotice(text) || closedTopicRe.MatchString(text) || emptyStateRe.MatchString(text)
	})
	dropLines(art, maxControlLabel, []atom.Atom{atom.Table}, func(n *html.Node) bool {
		return n.Type == html.ElementNode
	}, func(_ *html.Node, text string) bool { return captionToggleRe.MatchString(text) })
	dropLines(art, maxControlRow, []atom.Atom{atom.Table}, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.P, atom.Div, atom.Li, atom.Section:
			return true
		}
		return false
	}, func(n *html.Node, _ string) bool { return controlRow(n) })
	dropLines(art, maxTickerText, []atom.Atom{atom.Table}, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.P, atom.Div, atom.Li, atom.Section, atom.Aside:
			return true
		case atom.Span, atom.A, atom.Strong, atom.B:
			return noTextBeside(n)
		}
		return false
	}, func(_ *html.Node, text string) bool { return ticker(text) })
	dropLines(art, maxControlLabel, []atom.Atom{atom.Table}, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.P, atom.Div, atom.Li, atom.Dt, atom.Dd, atom.Summary:
			return true
		case atom.A, atom.Span, atom.Button, atom.Label, atom.Strong, atom.B, atom.Small, atom.Em:
			return noTextBeside(n)
		}
		return false
	}, func(n *html.Node, text string) bool {
		label := func(text string) bool {
			return interfaceLabelRe.MatchString(text) || memberFiguresRe.MatchString(text) || countsRe.MatchString(text) ||
				posterBadgeRe.MatchString(text)
		}
		if label(text) || buttonLabel(n, text) || controlGlyphs(text) && !holdsCode(n) {
			return true
		}
		// An icon's name (the <title> of its drawing, "Comments") is no
		// word of the line the converter writes ("27 comments").
		if shown := textBesideDrawings(n); shown != text && label(shown) {
			return true
		}
		// A shop's notice may end a sentence of a promotion ("or spend $50
		// to enjoy <b>free standard shipping</b>"): only a block of its own
		// is one.
		switch n.DataAtom {
		case atom.P, atom.Div, atom.Li, atom.Dt, atom.Dd:
			return shopLabelRe.MatchString(text) && aloneInItsLine(n, text)
		}
		return false
	})
}

// textBesideDrawings is n's flat text without the text of the drawings
// it holds (an SVG icon's <title>), which the converter leaves out; n's
// flat text when it holds none. Namespaces are lost when Readability
// copies the page, so a drawing is known by name too.
func textBesideDrawings(n *html.Node) string {
	return strings.Join(strings.Fields(textSkipping(n, func(k *html.Node) bool { return k.Namespace == "svg" || k.Data == "svg" })), " ")
}

// maxButtonWords is the most words of a button's label: "Book your
// discovery call today" is a call to action, a sentence is not one.
const maxButtonWords = 6

// buttonLabel reports a link or a button the page draws as a button (its
// class names one: "btn", "button", "cta", alone or joined to other words,
// "chakra-button", "Button_root__x1"), standing alone on its line with a
// label of a few words: a call to action ("Request a quote", "Open app"),
// whatever it says. The toggle of a section a reader opens (it says what
// it controls, aria-expanded or aria-controls) or a heading's own button
// names the section and stays.
func buttonLabel(n *html.Node, text string) bool {
	if n.DataAtom != atom.A && n.DataAtom != atom.Button || !buttonClass(attr(n, "class")) {
		return false
	}
	if hasAttr(n, "aria-expanded") || hasAttr(n, "aria-controls") {
		return false
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if headingLevel(p) > 0 {
			return false
		}
	}
	return len(strings.Fields(text)) <= maxButtonWords
}

// buttonClass reports a class attribute one of whose words, split at
// hyphens and underscores, is "btn", "button" or "cta".
func buttonClass(class string) bool {
	for _, token := range strings.Fields(class) {
		for _, part := range strings.FieldsFunc(token, func(r rune) bool { return r == '-' || r == '_' }) {
			switch strings.ToLower(part) {
			case "btn", "button", "cta":
				return true
			}
		}
	}
	return false
}

// maxControlGlyphs is the most glyphs of a line that is a control's sign
// alone.
const maxControlGlyphs = 4

// controlGlyphs reports a line that is only the signs controls are drawn
// with: a carousel's arrows, a dialog's cross, an accordion's plus and
// minus, a menu's bars or dots, a separator's bar. Outside a table (where
// a dash may mean "none") and code, no reader reads them. A rating's
// stars and a check mark say something, and are no such sign.
func controlGlyphs(text string) bool {
	n := 0
	for _, r := range text {
		if unicode.IsSpace(r) {
			continue
		}
		if n++; n > maxControlGlyphs || !controlGlyph(r) {
			return false
		}
	}
	return n > 0
}

// controlGlyph reports a sign a control is drawn with.
func controlGlyph(r rune) bool {
	switch {
	case r >= 0x2190 && r <= 0x21FF, // arrows
		r >= 0x2794 && r <= 0x27BF, // dingbat arrows
		r >= 0x2B00 && r <= 0x2B2F, // more arrows
		r >= 0x25B2 && r <= 0x25C5: // triangles pointing the way: ▲ ▶ ► ▼ ◀ ◄
		return true
	}
	return strings.ContainsRune("×✕✖✗✘+−-–|›‹»«•·⋮⋯…☰⌄⌃", r)
}

// holdsCode reports whether n holds code: the signs of a command's option
// ("--") are the option's name.
func holdsCode(n *html.Node) bool {
	return findFirst(n, func(k *html.Node) bool {
		switch k.DataAtom {
		case atom.Code, atom.Kbd, atom.Samp, atom.Tt, atom.Var:
			return true
		}
		return false
	}) != nil
}

// A ticker (a marquee) runs one short phrase across the page over and
// over, each copy a box of its own so that the loop has no seam: "Book
// Now * Book Now * Book Now …", "Free shipping ✦ Free shipping ✦ …".
// Its line is the phrase said again and again, which no writer writes:
// a song's line says its refrain four times, not six.
const (
	maxTickerText    = 4000 // bytes of a ticker's line
	maxTickerPhrase  = 8    // words of its phrase
	minTickerRepeats = 6    // times the phrase is said
	minTickerWord    = 10   // times a phrase of one word is said ("na na na …")
)

// ticker reports a line that is one phrase of at most maxTickerPhrase
// words, with a letter, said minTickerRepeats times or more (a single
// word minTickerWord times), with nothing but signs between.
func ticker(text string) bool {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for period := 1; period <= maxTickerPhrase && period*minTickerRepeats <= len(words); period++ {
		if len(words)%period != 0 || period == 1 && len(words) < minTickerWord {
			continue
		}
		same := true
		for i := period; i < len(words) && same; i++ {
			same = words[i] == words[i-period]
		}
		if same {
			return strings.ContainsFunc(strings.Join(words[:period], ""), unicode.IsLetter)
		}
	}
	return false
}

// maxControlRow is the most text, in bytes, of a row of controls.
const maxControlRow = 200

// controlRow reports a block that is a row of controls and nothing else:
// each of its words is in a link or a button, two at least, and each
// link or button is a control's label ("Get started", "Contact sales",
// "Open app") or is drawn as a button. The labels the rules drop alone
// on a line stand side by side in it. A block with a picture, linked or
// not, is a card and stays.
func controlRow(n *html.Node) bool {
	controls := 0
	ok := true
	walk(n, func(k *html.Node) bool {
		if !ok {
			return false
		}
		switch {
		case k.Type == html.TextNode:
			if strings.TrimFunc(k.Data, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) != "" {
				ok = false // words outside the controls
			}
			return false
		case k.Type != html.ElementNode:
			return false
		case k.DataAtom == atom.Img || k.DataAtom == atom.Picture:
			ok = false // a card's picture is no control
			return false
		case k.DataAtom == atom.A || k.DataAtom == atom.Button:
			text := textBesideDrawings(k)
			if text == "" {
				// An icon's link, or a picture's.
				ok = findFirst(k, func(p *html.Node) bool { return p.DataAtom == atom.Img || p.DataAtom == atom.Picture }) == nil
				return false
			}
			controls++
			ok = interfaceLabelRe.MatchString(text) || buttonLabel(k, text)
			return false
		}
		return true
	})
	return ok && controls >= 2
}
