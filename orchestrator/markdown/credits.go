package markdown

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/meta"
)

// A picture's credit ("Photo: A. Photographer / Agency", "Image source:
// Getty Images") names who owns the picture, not what the article says;
// pages repeat it under every picture. These rules remove it where the
// markup or the words say it is a credit, and leave the caption that
// describes the picture.

// maxCreditWords is the most words a credit may have: a name or two and
// an agency. A longer block is a caption that mentions its source.
const maxCreditWords = 20

// maxCreditChars bounds the text of an element looked at as a credit, so
// that the long blocks around one cost nothing to pass.
const maxCreditChars = 240

// creditWords are class and id words of the element holding a credit.
var creditWords = map[string]bool{
	"credit": true, "credits": true, "attribution": true, "copyright": true, "courtesy": true,
	"photographer": true, "creditor": true, "photocredit": true, "imagecredit": true, "imgcredit": true,
	"photocredits": true, "imagecredits": true, "mediacredit": true,
}

// creditPrefixRe matches the words a credit opens with, anywhere on the
// page: "Photo:", "Image credit:", "Credit:", "©".
var creditPrefixRe = regexp.MustCompile(`(?i)^[(\[]?\s*(?:` +
	`(?:(?:header|featured?|cover|top|lead|hero)\s+)?(?:photo(?:graph)?|image|picture|illustration|graphic|video|photo illustration)s?\s*(?:credits?|source|courtesy)?\s*:` +
	`|credits?\s*:|©|\(c\)\s|copyright\b)`)

// creditByRe matches the shorter credits that name their author with
// "by" or "courtesy of": "Photo by A. Photographer". A sentence may open
// the same way, so these are credits only when very short.
var creditByRe = regexp.MustCompile(`(?i)^[(\[]?\s*(?:(?:photo(?:graph)?|image|picture|illustration)s?\s+(?:by|courtesy of)|courtesy(?:\s+of)?)\b`)

// maxCreditByWords is the most words a credit opened by "by" may have:
// a photographer's studio and the magazine it came through ("Image by
// A. Photographer Studio via The Weekly").
const maxCreditByWords = 10

// captionSourceRe matches a source line, a credit only inside a caption:
// elsewhere "Source:" may open a quotation the article cites.
var captionSourceRe = regexp.MustCompile(`(?i)^[(\[]?\s*(?:source|sources|via)\s*:`)

// trailingCreditRe matches a credit at the end of a caption's text: "The
// river at dawn. (Credit: EPA)", "… at dawn. Photo: EPA".
var trailingCreditRe = regexp.MustCompile(`(?i)(?:[.!?]|[.!?]?\s*[|—–]|[.!?]?\s*[(\[])\s*((?:(?:photo(?:graph)?|image|picture|illustration)s?\s*(?:credits?|source)?|credits?)\s*:\s*[^.()\[\]]{1,80}[)\]]?\.?\s*)$`)

// dropCredits removes picture credits from a page the package owns.
func dropCredits(root *html.Node) {
	lengths := textLengths(root)
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if lengths[n] > maxCreditChars {
			return true // too long for a credit; one may be inside
		}
		switch n.DataAtom {
		case atom.Html, atom.Body, atom.Main, atom.Article, atom.Head, atom.Figure, atom.Img, atom.Picture, atom.Source:
			return true
		}
		if n.DataAtom == atom.Table {
			return false // a table's cells are data, whatever they say
		}
		if findFirst(n, func(k *html.Node) bool {
			return k.DataAtom == atom.Img || k.DataAtom == atom.Picture || headingLevel(k) > 0
		}) != nil {
			return true // a credit holds no picture and no heading; a caption may be inside
		}
		if credit(n, insideCaption(n)) || agencyLineUnderPicture(n) {
			n.Parent.RemoveChild(n)
			return false
		}
		if n.DataAtom == atom.Figcaption {
			trimTrailingCredit(n)
		}
		return true
	})
}

// credit reports an element that holds a picture's credit and nothing
// else.
func credit(n *html.Node, inCaption bool) bool {
	text := flatText(n)
	words := countWords(text)
	if words == 0 || words > maxCreditWords {
		return false
	}
	if creditByName(n) {
		return true
	}
	if !blockOrCaptionPart(n, inCaption) {
		return false
	}
	if creditPrefixRe.MatchString(text) || words <= maxCreditByWords && creditByRe.MatchString(text) {
		return true
	}
	if !inCaption {
		return false
	}
	if n.DataAtom == atom.Cite || captionSourceRe.MatchString(text) {
		return true
	}
	return agencyLine(text) || agencyCredit(text) && endsCaption(n)
}

// creditByName reports an element whose class or id words call it a
// credit.
func creditByName(n *html.Node) bool {
	words := meta.ClassWords(attr(n, "class"))
	if id := meta.ClassWords(attr(n, "id")); len(id) <= maxIDWords {
		words = append(words, id...)
	}
	for i, w := range words {
		// "no-credit" names a block without one.
		if creditWords[w] && (i == 0 || words[i-1] != "no") {
			return true
		}
	}
	return false
}

// blockOrCaptionPart reports an element whose text is a line of its own:
// a block, or any element inside a figure's caption.
func blockOrCaptionPart(n *html.Node, inCaption bool) bool {
	switch n.DataAtom {
	case atom.P, atom.Div, atom.Figcaption, atom.Small, atom.Section, atom.Footer, atom.Header:
		return true
	}
	return inCaption
}

// agencyLine reports a caption line made of names parted by a slash, the
// form of a photographer's credit ("A. Photographer / Agency", "Magazine /
// A. Photographer"): every word capitalised, no sentence.
func agencyLine(text string) bool {
	return strings.Contains(text, "/") && capitalisedNames(text)
}

// capitalisedNames reports a short line of names: at most 8 words, each
// capitalised, no address.
func capitalisedNames(text string) bool {
	if countWords(text) > 8 || strings.Contains(text, "://") {
		return false
	}
	for f := range strings.FieldsFuncSeq(text, func(r rune) bool { return unicode.IsSpace(r) || r == '/' }) {
		r := []rune(f)
		if unicode.IsLetter(r[0]) && !unicode.IsUpper(r[0]) {
			return false
		}
	}
	return true
}

// trimTrailingCredit cuts a credit written at the end of a caption's last
// text.
func trimTrailingCredit(caption *html.Node) {
	var last *html.Node
	walk(caption, func(k *html.Node) bool {
		if k.Type == html.TextNode && strings.TrimSpace(k.Data) != "" {
			last = k
		}
		return true
	})
	if last == nil {
		return
	}
	m := trailingCreditRe.FindStringSubmatchIndex(last.Data)
	if m == nil {
		return
	}
	// The separator before the credit stays: a sentence's full stop; a
	// bracket or a bar that only opened the credit goes.
	cut := m[2]
	if k := strings.TrimRight(last.Data[:cut], " \t\n([|—–"); len(k) < cut {
		cut = len(k)
	}
	last.Data = last.Data[:cut]
}

// agencyLineUnderPicture reports the credit a site sets in small type
// right under a picture, with no <figcaption> to say it is a caption
// (see agencyCredit), no link and nothing with words after it in its box.
func agencyLineUnderPicture(n *html.Node) bool {
	if !blockOrCaptionPart(n, n.DataAtom == atom.Span) || !agencyCredit(flatTextUpTo(n, maxCreditChars)) {
		return false
	}
	return findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.A }) == nil && underPicture(n)
}

// pictureAgencies are the names of the picture agencies and libraries
// that credits name, lower-cased, as words.
var pictureAgencies = map[string]bool{"getty images": true, "getty": true, "shutterstock": true, "istock": true, "istockphoto": true,
	"alamy": true, "reuters": true, "afp": true, "ap": true, "ap photo": true, "associated press": true, "epa": true, "unsplash": true,
	"pexels": true, "pixabay": true, "adobe stock": true, "dreamstime": true, "depositphotos": true, "corbis": true, "bloomberg": true,
	"wikimedia commons": true, "stocksy": true, "nurphoto": true, "sipa": true, "imago": true, "dpa": true}

// agencyPartsRe parts a credit's names: a slash, a bar or "via".
var agencyPartsRe = regexp.MustCompile(`(?i)\s*(?:[/|]|\bvia\b)\s*`)

// maxCreditNameWords is the most words of a name beside an agency in a
// credit: a photographer, a studio, a handle; maxAgencyCreditWords the
// most of the whole credit.
const (
	maxCreditNameWords   = 4
	maxAgencyCreditWords = 10
)

// agencyCredit reports the whole text of a picture's credit that names
// an agency: the agency alone ("Getty Images"), or with the names of a
// photographer or a studio, parted from it by a slash, a bar or "via"
// ("Getty Images / A. Photographer", "a.handle | Getty Images", "Studio
// Name via Getty Images"). A sentence that mentions an agency ("a picture
// from Getty Images") names it as no part of its own; a name and a role
// under a portrait ("A. Name / Architect") or a variant under its swatch
// ("Blue / Large") name none.
func agencyCredit(text string) bool {
	if countWords(text) > maxAgencyCreditWords || strings.ContainsAny(text, ",;()[]") || strings.Contains(text, "://") {
		return false
	}
	agency := false
	for _, part := range agencyPartsRe.Split(strings.TrimSpace(text), -1) {
		words := strings.Fields(strings.ToLower(strings.Trim(part, ".")))
		switch {
		case len(words) == 0:
			return false
		case pictureAgencies[strings.Join(words, " ")]:
			agency = true
		case len(words) > maxCreditNameWords:
			return false
		}
	}
	return agency
}

// underPicture reports an element that is the line right under a picture
// without a <figcaption>: the next element after it (or after a box
// holding only pictures), with no words between them, that ends its
// parent's text.
func underPicture(n *html.Node) bool {
	prev := n.PrevSibling
	for ; prev != nil && prev.Type != html.ElementNode; prev = prev.PrevSibling {
		if prev.Type == html.TextNode && countWords(prev.Data) > 0 {
			return false
		}
	}
	if prev == nil || !picture(prev) && (wordsUpTo(prev, 0) > 0 || findFirst(prev, picture) == nil) {
		return false
	}
	read := 0
	for k := n.NextSibling; k != nil; k = k.NextSibling {
		if read++; read > maxSiblingsAfterCredit {
			return false
		}
		if k.Type == html.TextNode && countWords(k.Data) > 0 || k.Type == html.ElementNode && wordsUpTo(k, 0) > 0 {
			return false
		}
	}
	return true
}

// maxSiblingsAfterCredit is how many of the nodes after a line under a
// picture are read to see that no words follow it in its box.
const maxSiblingsAfterCredit = 8

// endsCaption reports an element of a caption that is a line of its own,
// or that closes the caption after a sentence ("Dawn over the estuary.
// <a>A. Photographer via Agency</a>"): not a word of a sentence ("Image
// via <a>Agency</a>", "Photo by A. Photographer on <a>Agency</a>"),
// whose removal would leave the sentence broken.
func endsCaption(n *html.Node) bool {
	if !inlineTags[n.DataAtom] || noTextBeside(n) {
		return true
	}
	for k := n.NextSibling; k != nil; k = k.NextSibling {
		if k.Type == html.TextNode && countWords(k.Data) > 0 || k.Type == html.ElementNode && wordsUpTo(k, 0) > 0 {
			return false
		}
	}
	prev := n.PrevSibling
	for prev != nil && prev.Type == html.TextNode && strings.TrimSpace(prev.Data) == "" {
		prev = prev.PrevSibling
	}
	if prev == nil {
		return true
	}
	before := strings.TrimSpace(flatText(prev))
	if prev.Type == html.TextNode {
		before = strings.TrimSpace(prev.Data)
	}
	return strings.HasSuffix(before, ".") || strings.HasSuffix(before, "?") || strings.HasSuffix(before, "!")
}

// insideCaption reports a <figcaption> or an element within one.
func insideCaption(n *html.Node) bool {
	for p := n; p != nil; p = p.Parent {
		if p.DataAtom == atom.Figcaption {
			return true
		}
	}
	return false
}

// countWords counts the runs of letters and digits in s.
func countWords(s string) int {
	n, in := 0, false
	for _, r := range s {
		w := unicode.IsLetter(r) || unicode.IsDigit(r)
		if w && !in {
			n++
		}
		in = w
	}
	return n
}
