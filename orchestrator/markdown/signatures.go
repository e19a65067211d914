package markdown

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A post written on a phone ends with the line its app adds: "Sent from
// my iPhone using Tapatalk", "Sent from my SM-S908U using AC Forums
// mobile app". It names the device, not what the post says, and a forum
// that many post to from phones repeats it under half of its posts. It
// stands as a block of its own or as the last line of the post's text,
// after a line break.

// deviceSignatureRe is the whole text of such a line.
var deviceSignatureRe = regexp.MustCompile(`(?i)^\s*(?:sent\s+from\s+my\s+[^.!?,;:\n]{1,40}?(?:\s+using\s+[^.!?,;:\n]{1,40})?|sent\s+using\s+tapatalk)\s*\.?\s*$`)

// maxDeviceSignature is the most text, in bytes, of the line.
const maxDeviceSignature = 140

// dropDeviceSignatures removes under art the lines a post's app adds.
func dropDeviceSignatures(art *html.Node) {
	dropLines(art, maxDeviceSignature, []atom.Atom{atom.Table, atom.Blockquote}, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.P, atom.Div, atom.Span, atom.Small, atom.Em, atom.I:
			return n.DataAtom == atom.P || n.DataAtom == atom.Div || noTextBeside(n)
		}
		return false
	}, func(_ *html.Node, text string) bool { return deviceSignatureRe.MatchString(text) })
	var blocks []*html.Node
	seen := map[*html.Node]bool{}
	walk(art, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		switch n.DataAtom {
		case atom.Pre, atom.Code, atom.Table, atom.Blockquote:
			return false
		case atom.Br:
			if p := n.Parent; p != nil && !seen[p] {
				seen[p] = true
				blocks = append(blocks, p)
			}
		}
		return true
	})
	for _, b := range blocks {
		dropSignatureLine(b)
	}
}

// dropSignatureLine removes from block the text after its last line
// break when that text is a device's signature, with the breaks before
// it.
func dropSignatureLine(block *html.Node) {
	var last *html.Node
	for k := block.LastChild; k != nil; k = k.PrevSibling {
		if k.Type == html.ElementNode && k.DataAtom == atom.Br {
			last = k
			break
		}
	}
	if last == nil {
		return
	}
	var tail strings.Builder
	for k := last.NextSibling; k != nil; k = k.NextSibling {
		if k.Type == html.ElementNode && blockLevel(k) {
			return // the line goes on in a block of its own
		}
		if k.Type == html.TextNode {
			tail.WriteString(k.Data)
		} else {
			tail.WriteString(textOf(k))
		}
		if tail.Len() > maxDeviceSignature {
			return
		}
	}
	text := strings.Join(strings.Fields(tail.String()), " ")
	if text == "" || !deviceSignatureRe.MatchString(text) {
		return
	}
	for k := last.NextSibling; k != nil; {
		next := k.NextSibling
		block.RemoveChild(k)
		k = next
	}
	// The breaks that led to it, and the blank text between them.
	for k := last; k != nil; {
		prev := k.PrevSibling
		if k.Type == html.ElementNode && k.DataAtom == atom.Br || k.Type == html.TextNode && strings.TrimSpace(k.Data) == "" {
			block.RemoveChild(k)
			k = prev
			continue
		}
		break
	}
}
