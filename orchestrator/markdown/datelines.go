package markdown

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Datelines: the line a page prints over or under a piece to say when it
// was published or changed, "Updated on January 30, 2026", "Posted
// October 29, 2025", a line of a label and a date and nothing else, and
// the reading time printed beside it, "5 min read", or a time told
// relative to the page's serving, "3 days ago". The
// dates are the answer's datePublished and dateModified; in the text
// they are the template's, repeated on every page and every post. A date
// inside a sentence, or a line that says more than the date, is text.

// datelineRe is the whole text of a dateline: a label, then a written
// date, with a time perhaps.
var datelineRe = regexp.MustCompile(`(?i)^(?:last\s+)?(?:updated|published|posted|modified|reviewed|edited|asked|answered|first published|originally published|first posted|originally posted|` +
	`aktualisiert|veröffentlicht|publié|mis à jour|publicado|actualizado|atualizado|pubblicato|aggiornato|gepubliceerd|bijgewerkt)` +
	`(?:\s+(?:on|at|am|le|el|em|il|op))?\s*:?\s*` +
	`(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+)?` +
	`(?:\p{L}{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}(?:st|nd|rd|th)?\.?\s+\p{L}{3,9}\.?,?\s+\d{4}|\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{2,4}|\p{L}{3,9},?\s+\d{4})` +
	`(?:,?\s+(?:at\s+)?\d{1,2}[:.]\d{2}(?:\s*[ap]\.?m\.?)?(?:\s+[A-Z]{2,4})?)?\.?$`)

// readingTimeRe is the whole text of the line that estimates a piece's
// reading time beside its dateline, "5 min read", "Reading time: 7
// minutes", "Lesezeit: 4 Min.": the template's too.
var readingTimeRe = regexp.MustCompile(`(?i)^(?:(?:estimated\s+)?reading\s+time|read\s+time|lesezeit|temps\s+de\s+lecture|tiempo\s+de\s+lectura|` +
	`tempo\s+di\s+lettura|leestijd)\s*:?\s*(?:about\s+|~\s*)?\d{1,3}\s*(?:-\s*)?(?:min(?:ute)?s?|min\.?)\.?$|` +
	`^(?:about\s+|~\s*)?\d{1,3}\s*(?:-\s*)?(?:min(?:ute)?s?|min\.?)\s+(?:read|reading|to\s+read|read\s+time|de\s+lecture|de\s+lectura|di\s+lettura|leestijd|lesezeit)\.?$`)

// relativeTimeRe is the whole text of a time told relative to when the
// page was served, "3 days ago", "Posted about an hour ago": stale as soon
// as the page is read, and the template's, like a dateline.
var relativeTimeRe = regexp.MustCompile(`(?i)^(?:(?:posted|updated|edited|published|last\s+(?:updated|active|seen))\s+)?(?:about\s+|over\s+|almost\s+|nearly\s+)?` +
	`(?:\d{1,3}|an?|one)\s+(?:second|sec|minute|min|hour|hr|day|week|wk|month|mo|year|yr)s?\.?\s+ago$`)

// editedRe opens a dateline that tells when a post was edited.
var editedRe = regexp.MustCompile(`(?i)^(?:last\s+)?edited\b`)

// maxDatelineText is the most text, in bytes, of a dateline.
const maxDatelineText = 72

// datelineCandidate reports an element that may be a dateline: a block,
// or inline markup with no text beside it in its line.
func datelineCandidate(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Div, atom.Li, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	case atom.Time, atom.Small, atom.Span, atom.Em, atom.I, atom.Strong, atom.B, atom.A:
		return noTextBeside(n)
	}
	return false
}

// dropDatelines removes the datelines standing as lines of their own
// under art, and, in a declared article, its one date alone on a line
// (see bareDateRe).
func dropDatelines(art *html.Node, article bool) {
	var bare []*html.Node
	// A table's dates are its data; a quotation's, the quoted post's.
	dropLines(art, maxDatelineText, []atom.Atom{atom.Table, atom.Blockquote}, datelineCandidate, func(n *html.Node, text string) bool {
		text = strings.Trim(text, "|·•—–- ")
		linked := findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.A }) != nil
		switch {
		case text == "":
			return false
		case datelineRe.MatchString(text) || readingTimeRe.MatchString(text) || relativeTimeRe.MatchString(text):
			// A linked date is a permalink, the post's address; a linked
			// "edited" date leads to the post's revisions, the template's.
			return !linked || editedRe.MatchString(text)
		case article && !linked && bareDateRe.MatchString(text) && (len(bare) == 0 || !inside(n, bare[len(bare)-1])):
			bare = append(bare, n) // not its inner markup, the same line
		}
		return false
	})
	if len(bare) == 1 && bare[0].Parent != nil {
		bare[0].Parent.RemoveChild(bare[0])
	}
}

// A date standing alone as a line ("March 4, 2025", "4 March 2025",
// "2025-03-04"), without a label, is a dateline too when it is the only
// one of the piece: the date it was published, printed by the template
// over or under it. Several are a dated list (a changelog, a timeline, a
// programme) and stay, as does a date in a table, a quotation or code.

// bareDateRe is the whole text of a date with no label: a month written
// out or abbreviated, its day and year, in either order, a weekday
// perhaps, or an ISO date.
var bareDateRe = regexp.MustCompile(`(?i)^(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?` +
	`(?:\p{L}{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}(?:st|nd|rd|th)?\.?\s+\p{L}{3,9}\.?,?\s+\d{4}|\d{4}-\d{2}-\d{2})$`)
