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

// maxCreditByWords is the most words a credit opened by "by" may have.
const maxCreditByWords = 8

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
	return agencyLine(text)
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
// right under a picture, with no <figcaption> to say it is a caption: a
// short line of capitalised names that names a picture agency ("Getty
// Images", "Getty Images / A. Photographer", "A. Photographer/AFP"), no
// link, and none of a name card's commas or brackets. Without the
// agency, a name and a role under a portrait ("A. Name / Architect") or
// a variant under its swatch ("Blue / Large") read the same, and stay.
func agencyLineUnderPicture(n *html.Node) bool {
	if !blockOrCaptionPart(n, n.DataAtom == atom.Span) {
		return false
	}
	text := flatTextUpTo(n, maxCreditChars)
	if strings.ContainsAny(text, ",()[]") || !capitalisedNames(text) || !namesPictureAgency(text) {
		return false
	}
	return findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.A }) == nil && underPicture(n)
}

// pictureAgencies are the names of the picture agencies and libraries
// that credits name, lower-cased, as words.
var pictureAgencies = []string{"getty images", "gettyimages", "shutterstock", "istock", "istockphoto", "alamy", "reuters", "afp",
	"ap photo", "associated press", "epa", "unsplash", "pexels", "pixabay", "adobe stock", "dreamstime", "depositphotos",
	"corbis", "bloomberg", "wikimedia commons", "stocksy", "nurphoto", "sipa", "imago", "dpa"}

// namesPictureAgency reports text one of whose parts between slashes is
// a picture agency, with perhaps its photographer's words ("Getty Images
// via AFP", "iStock/Getty").
func namesPictureAgency(text string) bool {
	for part := range strings.SplitSeq(strings.ToLower(text), "/") {
		words := " " + strings.Join(strings.FieldsFunc(part, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ") + " "
		for _, a := range pictureAgencies {
			if strings.Contains(words, " "+a+" ") {
				return true
			}
		}
	}
	return false
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
