package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Code pasted from an editor into a page's rich text keeps the editor's
// look as inline style, not as markup: a code editor's copy is a box in a
// monospace font that keeps its white space (white-space: pre), with a
// line per <div> and a <span> per coloured token. A reader sees code; the
// copy writes the box as a <pre> block of its lines, so that the
// converter fences it and leaves its underscores and indentation alone.
// A box that keeps its white space in a proportional font is verse or an
// address, and one in a monospace font that wraps its lines is prose set
// in a typewriter's face: both stay text.

// monospaceFamilies are words of the font families of code, lower-cased:
// the generic family and the faces editors and sites name.
var monospaceFamilies = []string{"monospace", "courier", "consolas", "menlo", "monaco", "lucida console",
	"source code pro", "fira code", "fira mono", "dejavu sans mono", "roboto mono", "sf mono", "jetbrains mono",
	"ubuntu mono", "liberation mono", "cascadia"}

// styledAsCode reports a box whose inline style sets it as code: a
// monospace font, and white space kept as written.
func styledAsCode(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Div, atom.P:
	default:
		return false
	}
	style := attr(n, "style")
	if style == "" {
		return false
	}
	mono, kept := false, false
	for k, v := range styleDeclarations(style) {
		v = strings.ToLower(v)
		switch k {
		case "font-family":
			mono = false
			for _, f := range monospaceFamilies {
				if strings.Contains(v, f) {
					mono = true
					break
				}
			}
		case "white-space":
			kept = v == "pre" || v == "pre-wrap"
		}
	}
	return mono && kept
}

// codeOf copies the box n, which styledAsCode accepts, as a <pre> block
// of its text: a line for each block inside it and each line break,
// white space as written, what the copy leaves out (a script, a hidden
// note) left out. Nil when the box holds no text.
func (c *cleaner) codeOf(n *html.Node) *html.Node {
	var sb strings.Builder
	newline := func() {
		if sb.Len() > 0 && !strings.HasSuffix(sb.String(), "\n") {
			sb.WriteByte('\n')
		}
	}
	type item struct {
		n   *html.Node
		end bool // the end of a block: its line ends
	}
	stack := []item{{n: n}}
	for len(stack) > 0 && c.err == nil && c.tick() {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if cur.end {
			newline()
			continue
		}
		switch k := cur.n; {
		case k.Type == html.TextNode:
			sb.WriteString(k.Data)
			continue
		case k.Type != html.ElementNode || k != n && c.drop(k):
			continue
		case k.DataAtom == atom.Br:
			sb.WriteByte('\n')
			continue
		case k != n && (k.DataAtom == atom.Div || k.DataAtom == atom.P || k.DataAtom == atom.Li || k.DataAtom == atom.Pre):
			newline()
			stack = append(stack, item{n: k, end: true})
		}
		for k := cur.n.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, item{n: k})
		}
	}
	text := strings.Trim(sb.String(), "\n")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	c.text += collapsedLen(text)
	if c.maxText > 0 && c.text > c.maxText {
		c.err = &TooLargeError{Limit: c.maxText, Unit: c.textUnit}
		return nil
	}
	code := &html.Node{Type: html.ElementNode, Data: "code", DataAtom: atom.Code}
	code.AppendChild(&html.Node{Type: html.TextNode, Data: text})
	pre := &html.Node{Type: html.ElementNode, Data: "pre", DataAtom: atom.Pre}
	pre.AppendChild(code)
	return pre
}
