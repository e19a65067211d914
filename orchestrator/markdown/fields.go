package markdown

import (
	"encoding/json"
	"net/url"
	"path"
	"strings"

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
