package meta

import (
	"bytes"
	"io"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// flattenDepths are the element depths tried, deepest first, when a page
// nests deeper than the HTML parser accepts (512 open elements, implied ones
// included). A naive count of open tags runs ahead of the parser's own
// (unclosed <p> and <li> are closed implicitly), so each retry keeps less
// structure; the last keeps only the elements that never nest.
var flattenDepths = []int{384, 256, 128, 0}

// ParseDocument parses an HTML page for Extract. Pages are parsed as the
// HTML parser does, except where that parser gives up:
//   - bytes that are not UTF-8 become U+FFFD, so that every rule reads valid
//     text;
//   - text that was UTF-8 decoded once more as Latin-1 is decoded back
//     (see repairMojibake);
//   - elements nested deeper than the parser allows are dropped, their text
//     kept in place, so that a page built to be deep (or broken enough to
//     look it) still yields its head and its words.
//
// It fails only when r does.
func ParseDocument(r io.Reader) (*goquery.Document, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	root, err := html.Parse(bytes.NewReader(b))
	for _, depth := range flattenDepths {
		if err == nil {
			break
		}
		// The parser reads from memory, so its only error is the depth limit.
		root, err = html.Parse(bytes.NewReader(flatten(b, depth)))
	}
	if err != nil {
		// Not reached: at depth 0 no element nests. An empty document still
		// lets Extract answer the URL and the favicon guess.
		root = &html.Node{Type: html.DocumentNode}
	}
	repairMojibake(root)
	return goquery.NewDocumentFromNode(root), nil
}

// flatten rewrites a page so that no more than maxDepth elements are open at
// once, by a naive count of start and end tags. Start tags beyond the depth
// are dropped with their end tags; text, comments and elements that cannot
// nest (void elements such as <meta> and <img>, and raw-text elements such as
// <script> and <title>) are always kept, so the head and the words survive.
func flatten(b []byte, maxDepth int) []byte {
	z := html.NewTokenizer(bytes.NewReader(b))
	var out bytes.Buffer
	out.Grow(len(b))
	var open []string           // tag names of the elements kept open
	dropped := map[string]int{} // start tags dropped, by name, whose end tags go too
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out.Bytes() // io.EOF: the tokenizer reads from memory
		}
		raw := z.Raw()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			tag := string(name)
			switch {
			case isVoid(tag) || isRawText(tag):
				// A raw-text element must keep its tags: without them its
				// script or style would be read as markup.
			case len(open) < maxDepth:
				open = append(open, tag)
			default:
				dropped[tag]++
				continue
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			tag := string(name)
			// The elements dropped are the innermost, so their end tags come
			// before those of the kept elements of the same name.
			if dropped[tag] > 0 {
				dropped[tag]--
				continue
			}
			if i := lastIndex(open, tag); i >= 0 {
				open = open[:i]
			}
		}
		out.Write(raw)
	}
}

func lastIndex(names []string, name string) int {
	for i := len(names) - 1; i >= 0; i-- {
		if names[i] == name {
			return i
		}
	}
	return -1
}

// isVoid reports elements that never have content, so never add depth; tag
// is lower-case, as the tokenizer gives it.
func isVoid(tag string) bool {
	switch atom.Lookup([]byte(tag)) {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input, atom.Keygen,
		atom.Link, atom.Meta, atom.Param, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}

// isRawText reports elements whose content the tokenizer reads as text, so
// that they hold no elements of their own.
func isRawText(tag string) bool {
	switch atom.Lookup([]byte(tag)) {
	case atom.Script, atom.Style, atom.Title, atom.Textarea, atom.Xmp, atom.Iframe, atom.Noembed,
		atom.Noframes, atom.Noscript, atom.Plaintext:
		return true
	}
	return false
}
