package markdown

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Affiliate notes: the paragraph a blog or a review site prints over or
// under a piece to say that its links may earn it a commission, "This post
// may contain affiliate links", "As an Amazon Associate I earn from
// qualifying purchases". Regulators ask sites to print it, and the site
// prints the same words on every page: it is the template's, not the
// piece's. A sentence about affiliate links as a subject ("implement
// affiliate links and UTM tracking") names no commission of the site's
// and stays.

// affiliateNoteRe finds the words only such a note uses.
var affiliateNoteRe = regexp.MustCompile(`(?i)\bas an amazon (?:associate|affiliate)\b|\bearns? from qualifying purchases\b|` +
	`\b(?:post|article|page|site|website|blog|guide|review|content)s?\s+(?:may\s+|might\s+)?(?:contains?|includes?|uses?|features?)\s+(?:some\s+)?affiliate\s+links?\b|` +
	`\b(?:we|i)\s+(?:may\s+|might\s+|will\s+|can\s+)?(?:earn|receive|get|make)\s+(?:us\s+)?(?:an?\s+)?(?:small\s+|tiny\s+)?(?:affiliate\s+)?(?:commissions?|kickback)\b|` +
	`\bmay\s+earn\s+(?:us\s+)?(?:an?\s+)?(?:small\s+)?(?:affiliate\s+)?commissions?\b|` +
	`\b(?:buying|purchases?(?:\s+made)?|shopping)\s+(?:through|via)\s+(?:our\s+|the\s+|these\s+)?links\b[^.]{0,40}\b(?:supports?|helps?)\s+(?:us|our|the\s+site)\b|\bat\s+no\s+(?:extra|additional)\s+cost\s+to\s+you\b`)

// affiliateNoteWords are the words one of which every note affiliateNoteRe
// finds holds, looked for first: most lines hold none, and the pattern's
// many alternatives are slow to try at each position of a line.
var affiliateNoteWords = []string{"amazon", "qualifying", "affiliate", "commission", "kickback", "cost to you", "links"}

// affiliateNote reports the text of an affiliate note.
func affiliateNote(text string) bool {
	lower := strings.ToLower(text)
	for _, w := range affiliateNoteWords {
		if strings.Contains(lower, w) {
			return affiliateNoteRe.MatchString(text)
		}
	}
	return false
}

// maxAffiliateNote is the most text, in bytes, of an affiliate note: a
// few sentences, not a paragraph of the piece.
const maxAffiliateNote = 500

// dropAffiliateNotes removes the paragraphs under art that are affiliate
// notes.
func dropAffiliateNotes(art *html.Node) {
	dropLines(art, maxAffiliateNote, []atom.Atom{atom.Table, atom.Blockquote}, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.P, atom.Div, atom.Li, atom.Aside, atom.Section, atom.Small, atom.Em, atom.I:
			// The note's own paragraph, not a box that holds it beside
			// other things (an author's card, the piece's first line).
			// Its size first: the walks below read the whole box.
			return textUpTo(n, maxAffiliateNote) <= maxAffiliateNote && soleText(n) &&
				findFirst(n, func(k *html.Node) bool { return k != n && blockTag(k) || k.DataAtom == atom.Img }) == nil
		}
		return false
	}, func(n *html.Node, text string) bool {
		return affiliateNote(text)
	})
}
