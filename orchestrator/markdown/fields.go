package markdown

import (
	"encoding/json"
	"net/url"
	"path"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Some templates print a record's fields as they are stored, in a list of
// names and values a stylesheet hides or a script reads: a picture's
// address written out as text ("cat_thumb_Navy: https://…/navy.jpg"), a
// name whose value is empty ("retail_price_tier3:"). No reader reads an
// address of a picture as words, nor a name with nothing after it.

// pictureExts are the file extensions of pictures on the web.
var pictureExts = map[string]bool{".jpg": true, ".jpeg": true, ".png": true, ".gif": true, ".webp": true,
	".svg": true, ".avif": true, ".bmp": true, ".tif": true, ".tiff": true, ".ico": true}

// pictureAddress reports text that is only the web address of a picture.
func pictureAddress(text string) bool {
	if strings.ContainsAny(text, " \t\n") {
		return false
	}
	u, err := url.Parse(text)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	return pictureExts[strings.ToLower(path.Ext(u.Path))]
}

// storedRecord reports an element whose text, and all it holds, is a
// record a script reads, written as JSON: an object, or a list of them
// ({"painterId":"AsinGrid","asins":["B0CX…"]}), which a template set in
// a box its stylesheet hides. A sentence is not valid JSON; "[1]" or
// "{}" is no record.
func storedRecord(n *html.Node) bool {
	k := n.FirstChild
	if k == nil || k.NextSibling != nil || k.Type != html.TextNode {
		return false
	}
	text := strings.TrimSpace(k.Data)
	if len(text) < minStoredRecord || !json.Valid([]byte(text)) {
		return false
	}
	switch text[0] {
	case '{':
		return true
	case '[':
		return strings.HasPrefix(strings.TrimSpace(text[1:]), "{")
	}
	return false
}

// templateSlotRe matches text that is only a template's placeholders or
// tags: "{{ item.title }}", "{{{ body }}}", "{% include 'banner' %}".
var templateSlotRe = regexp.MustCompile(`^(?:(?:\{\{\{?[^{}]{1,200}\}?\}\}|\{%[^{}]{1,200}%\})\s*)+$`)

// dropTemplateSlots removes the text of art that is only a template's
// placeholders: a script fills them in ("{{ board.errors[1179].message }}"),
// or a content system that should have ("{{hire-crew="/banners/hire"}}"),
// and the page was read before it did or it never did. The boxes left
// empty go with the rest of the empty ones. Code shows the syntax on
// purpose and is left alone, as is a sentence that names a placeholder.
func dropTemplateSlots(art *html.Node) {
	walk(art, func(n *html.Node) bool {
		switch {
		case n.Type == html.ElementNode && literalText(n):
			return false
		case n.Type == html.TextNode && strings.Contains(n.Data, "{") && templateSlotRe.MatchString(strings.TrimSpace(n.Data)):
			n.Parent.RemoveChild(n)
		}
		return true
	})
}

// minStoredRecord is the least text, in bytes, of a record written as
// JSON: a key and its value.
const minStoredRecord = 8

// oneWord reports whether the text under n is one word at most, as
// strings.Fields counts them, reading it only as far as a second word.
func oneWord(n *html.Node) bool {
	words, space := 0, true
	var read func(n *html.Node) bool
	read = func(n *html.Node) bool {
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if k.Type == html.TextNode {
				for _, r := range k.Data {
					switch {
					case isFieldSpace(r):
						space = true
					case space:
						if words++; words > 1 {
							return false
						}
						space = false
					}
				}
			} else if !read(k) {
				return false
			}
		}
		return true
	}
	return read(n)
}

// dropBareFields removes the blocks of art whose text is only a picture's
// address, not a link to it, with the name of the field they are the
// value of; and the names of fields without a value: a <dt> that ends in
// a colon, as a name before its value does, and has an empty <dd> or
// none. (A term without a colon may stand alone: an entry of a reference
// whose body is empty.)
func dropBareFields(art *html.Node) {
	var gone []*html.Node
	walk(art, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		switch n.DataAtom {
		case atom.Pre, atom.Code, atom.A, atom.Table:
			return false // an example's address in a reference's table is shown on purpose
		case atom.P, atom.Div, atom.Li, atom.Dd, atom.Span:
			if storedRecord(n) {
				gone = append(gone, n)
				return false
			}
			// An address is one word: a block of more is read no further
			// than its second.
			if !oneWord(n) {
				return true
			}
			linked := findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.A }) != nil
			if text := flatText(n); !linked && pictureAddress(text) && (n.DataAtom != atom.Span || noTextBeside(n)) {
				gone = append(gone, n)
				return false
			}
		}
		return true
	})
	for _, n := range gone {
		if n.DataAtom == atom.Dd {
			if dt := prevElement(n); dt != nil && dt.DataAtom == atom.Dt {
				dt.Parent.RemoveChild(dt)
			}
		}
		n.Parent.RemoveChild(n)
	}
	var names []*html.Node
	walk(art, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if n.DataAtom == atom.Dt {
			dd := nextElement(n)
			if strings.HasSuffix(flatText(n), ":") && (dd == nil || dd.DataAtom == atom.Dt || dd.DataAtom == atom.Dd && emptyBlock(dd)) {
				names = append(names, n)
			}
			return false
		}
		return true
	})
	for _, n := range names {
		if dd := nextElement(n); dd != nil && dd.DataAtom == atom.Dd {
			dd.Parent.RemoveChild(dd)
		}
		n.Parent.RemoveChild(n)
	}
}

// A credit's label may outlive its name: "By", "Edited by", "Reviewed
// by" over a name a script shows in a control (a tooltip's button, which
// the cleaning leaves out), "Sort by:" beside a menu that was a form's.
// With nothing after it the label says nothing; it goes. A label whose
// name follows it, in its own element or the next block ("By:" over a
// paragraph of authors, a card's "by" over its maker's link), stays.

// bareCreditRe is the whole text of a credit's label, the name left out:
// up to three words, then "by" (or its French, German, Spanish,
// Portuguese or Dutch), a colon perhaps.
var bareCreditRe = regexp.MustCompile(`(?i)^(?:\pL+(?:[\s-]+\pL+){0,2}\s+)?(?:by|par|von|por|door)\s*:?$`)

// maxCreditLabel is the most text, in bytes, of a credit's label.
const maxCreditLabel = 40

// dropBareCredits removes the credits' labels under art that no name
// follows in the nearest element holding more than the label (see
// nameAfter). A label stands as a line of its own, not a link's words
// nor a sentence's. Labels are weighed from the last: one whose name is
// only another bare label ("Edited by • Reviewed by") goes when that
// one has.
func dropBareCredits(art *html.Node) {
	var labels []*html.Node
	walk(art, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		switch n.DataAtom {
		case atom.Pre, atom.Code, atom.Table, atom.Blockquote, atom.A:
			return false // a link's words name where it leads
		}
		text := flatTextUpTo(n, maxCreditLabel+1)
		if len(text) > maxCreditLabel {
			return true
		}
		// A label holds no picture (a block of pictures under one line of
		// words is a box of logos) and is no heading ("Stand by", a
		// song's title).
		if headingLevel(n) == 0 && bareCreditRe.MatchString(text) && findFirst(n, picture) == nil {
			labels = append(labels, n)
			return false
		}
		return true
	})
	for i := len(labels) - 1; i >= 0; i-- {
		n := labels[i]
		text := flatText(n)
		top := n
		for top.Parent != nil && top.Parent != art && flatTextUpTo(top.Parent, len(text)+1) == text && !pictureBeside(top) {
			top = top.Parent
		}
		if top.Parent == nil || inlineTags[top.DataAtom] && !noTextBeside(top) || nameAfter(top) {
			continue
		}
		top.Parent.RemoveChild(top)
	}
}

// pictureBeside reports whether n's parent holds a picture outside n: a
// label's group with a logo or a portrait holds its name as a picture.
func pictureBeside(n *html.Node) bool {
	for k := n.Parent.FirstChild; k != nil; k = k.NextSibling {
		if k != n && k.Type == html.ElementNode && findFirst(k, picture) != nil {
			return true
		}
	}
	return false
}

// picture reports an element that shows a picture.
func picture(k *html.Node) bool {
	switch k.DataAtom {
	case atom.Img, atom.Picture, atom.Svg, atom.Video:
		return true
	}
	return false
}

// maxCreditName is the most words of what may be the name a credit's
// label is over: a writer, a maker, five authors with their initials.
const maxCreditName = 15

// maxNameSearch is the most nodes nameAfter reads looking for a name.
const maxNameSearch = 2000

// nameAfter reports whether what first follows n among its siblings may
// be a name: a picture (a maker's logo), or a few words; or a list the
// label leads into ("Make training effective by:"). The next paragraph
// of a story or a grid of products is not one, nor a control's text (a
// tooltip's button), which the converter leaves out.
func nameAfter(n *html.Node) bool {
	seen := 0
	// first is the first node under k, in document order, with a word
	// or a picture; nil when k has none.
	var first func(k *html.Node) *html.Node
	first = func(k *html.Node) *html.Node {
		if seen++; seen > maxNameSearch {
			return nil
		}
		switch {
		case k.Type == html.TextNode:
			if strings.IndexFunc(k.Data, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
				return k
			}
			return nil
		case k.Type != html.ElementNode:
			return nil
		case picture(k):
			return k
		case nonContent(k):
			return nil // a control's label, which the converter leaves out
		}
		for c := k.FirstChild; c != nil; c = c.NextSibling {
			if f := first(c); f != nil {
				return f
			}
		}
		return nil
	}
	for k := n.NextSibling; k != nil; k = k.NextSibling {
		f := first(k)
		if seen > maxNameSearch {
			return true // a page of empty boxes is read no further: the label stays
		}
		switch {
		case f == nil:
			continue
		case f.Type == html.ElementNode || k.DataAtom == atom.Ul || k.DataAtom == atom.Ol:
			return true
		case k.Type == html.TextNode:
			return countWords(k.Data) <= maxCreditName
		}
		return wordsUpTo(k, maxCreditName) <= maxCreditName
	}
	return false
}

// prevElement is the element before n among its siblings, or nil.
func prevElement(n *html.Node) *html.Node {
	for k := n.PrevSibling; k != nil; k = k.PrevSibling {
		if k.Type == html.ElementNode {
			return k
		}
	}
	return nil
}

// emptyBlock reports an element with no words and no picture.
func emptyBlock(n *html.Node) bool {
	return strings.TrimSpace(textOf(n)) == "" && findFirst(n, func(k *html.Node) bool {
		return k.DataAtom == atom.Img || k.DataAtom == atom.Picture || k.DataAtom == atom.Svg || k.DataAtom == atom.Video
	}) == nil
}
