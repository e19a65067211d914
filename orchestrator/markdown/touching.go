package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Cards, bylines and menus often write their parts as inline elements side
// by side with nothing between them, and lay them out apart with style
// sheets: a product's brand over its name (<span>Merrell</span><span>Moab
// 3</span>), an author beside a date (<span>Ada Lovelace</span><time>Mar
// 7</time>), a link's label over its subtitle. Written as text they run
// together ("MerrellMoab 3", "Ada LovelaceMar 7"), which makes new words
// that are neither part. spaceTouchingInlines puts a space between two such
// elements where the first ends a word and the second starts a capitalised
// one, or a word meets a number ("Simulation" + "3D"): a change of case or
// of kind at the seam of two elements is a seam between two texts. What
// stays joined: a single letter before the seam ("i" + "Phone"), a word's
// styled part in lower case ("Un" + "likely"), a number and its unit
// ("450" + "kcal"), text beside an element ("Acme<sup>TM</sup>"), and code.
// Two labels of controls side by side are always read apart.

// touchingInlines are the elements a page writes side by side inside a
// line.
var touchingInlines = map[atom.Atom]bool{
	atom.Span: true, atom.A: true, atom.Time: true, atom.Strong: true, atom.B: true, atom.Em: true,
	atom.I: true, atom.Small: true, atom.Label: true, atom.Abbr: true, atom.Cite: true, atom.Mark: true,
	atom.Font: true, atom.U: true, atom.Bdi: true, atom.Data: true, atom.Q: true, atom.S: true, atom.Del: true,
	atom.Ins: true,
}

// spaceTouchingInlines inserts the spaces described above under root.
func spaceTouchingInlines(root *html.Node) {
	if literalText(root) {
		return
	}
	spaceChildren(root)
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode || literalText(n) || n.Data == "math" || n.Data == "svg" {
			return false
		}
		spaceChildren(n)
		return true
	})
}

// spaceChildren puts a space between the touching inline children of n
// whose texts meet at a seam (see seamInWords).
func spaceChildren(n *html.Node) {
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		prev := k.PrevSibling
		for prev != nil && prev.Type == html.CommentNode {
			prev = prev.PrevSibling
		}
		if prev != nil && touchingInlines[k.DataAtom] && touchingInlines[prev.DataAtom] && (seamInWords(prev, k) || labelsMeet(prev, k)) {
			n.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, k)
		}
	}
}

// seamInWords reports two elements whose texts meet as the end of a word of
// at least two letters or digits and the capital letter that starts the
// next, or as the end of such a word of letters and a digit.
func seamInWords(before, after *html.Node) bool {
	end := edgeText(before, true)
	start := edgeText(after, false)
	if end == "" || start == "" {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(end)
	first, _ := utf8.DecodeRuneInString(start)
	switch {
	case unicode.Is(unicode.Sc, first) && (unicode.IsLetter(last) || unicode.IsDigit(last)):
		return true // two prices: "$25.00 USD" + "$19.00 USD", an old one and the new
	case unicode.IsUpper(first) && (unicode.IsLetter(last) || unicode.IsDigit(last)):
	case unicode.IsDigit(first) && unicode.IsLetter(last):
	default:
		return false
	}
	return utf8.RuneCountInString(lastWord(end)) >= 2
}

// labelsMeet reports two labels of controls whose words touch: a row of
// tabs drawn as labels ("pip" "pipx"), two captions that never make one
// word, whatever their case.
func labelsMeet(before, after *html.Node) bool {
	if before.DataAtom != atom.Label || after.DataAtom != atom.Label {
		return false
	}
	end, start := edgeText(before, true), edgeText(after, false)
	if end == "" || start == "" {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(end)
	first, _ := utf8.DecodeRuneInString(start)
	return !unicode.IsSpace(last) && !unicode.IsSpace(first)
}

// edgeText is the text at n's end (last) or start: the last or first
// non-blank text under n (with the white space the page put at its edge,
// which is no letter), "" when a blank text, a line break or more than
// maxEdgeDepth elements stand between n's edge and its text.
func edgeText(n *html.Node, last bool) string {
	text, _ := edgeTextIn(n, last, 0)
	return text
}

// maxEdgeDepth bounds the search for an element's edge text.
const maxEdgeDepth = 16

// edgeTextIn is edgeText at a depth; found reports that the search ended
// at n, with a text or at a stop, rather than finding nothing to read.
func edgeTextIn(n *html.Node, last bool, depth int) (text string, found bool) {
	switch {
	case n.Type == html.TextNode:
		if strings.TrimSpace(n.Data) == "" {
			if n.Data != "" {
				return "", true // white space at the seam
			}
			return "", false
		}
		return n.Data, true
	case n.Type != html.ElementNode:
		return "", false
	case depth >= maxEdgeDepth, n.DataAtom == atom.Br:
		return "", true
	}
	k := n.FirstChild
	if last {
		k = n.LastChild
	}
	for k != nil {
		if text, found := edgeTextIn(k, last, depth+1); found {
			return text, true
		}
		if last {
			k = k.PrevSibling
		} else {
			k = k.NextSibling
		}
	}
	return "", false
}

// lastWord is the run of letters and digits that ends s.
func lastWord(s string) string {
	i := strings.LastIndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return s[i+1:]
}
