package markdown

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/meta"
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

// A forum prints the lines each member wrote once for all their posts
// under every post: their gear, a motto, links to their shop. The forum
// software names the box for what it is, a signature (vBulletin's and
// phpBB's "signature", XenForo's "message-signature", Invision's
// "ipsEntry__signature", FluxBB's "postsignature"), and it says nothing of
// the thread.

// maxForumSignature is the most text, in bytes, of a signature's box: a
// forum caps a signature at a few lines; a box holding more is a post.
const maxForumSignature = 2000

// dropForumSignatures removes under art, a thread's posts, the boxes a
// forum names for a member's signature.
func dropForumSignatures(art *html.Node) {
	var boxes []*html.Node
	walk(art, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if signatureBox(n) && textUpTo(n, maxForumSignature) <= maxForumSignature {
			boxes = append(boxes, n)
			return false
		}
		return true
	})
	for _, b := range boxes {
		if b.Parent != nil {
			b.Parent.RemoveChild(b)
		}
	}
}

// A forum the page does not declare, and whose posts the engine does not
// see as a series (rows of a table, items of a list with a toolbar each),
// still names its signatures. On such a page a box named a signature may
// also be a product's feature ("Digital signature" in a comparison's row)
// or a house speciality, so its boxes go only when they have the shape of
// a signature under each post: two or more of one class, each a part of
// a block of its own that holds words beside it (the post; two posts'
// signatures never share one, a list of specialities' items do), the
// posts saying more than the boxes, and none a row, a cell or an item
// of a list.

// dropPostSignatures removes under art, a page not known as a thread, the
// signature boxes that have the shape of one under each post.
func dropPostSignatures(art *html.Node) {
	groups := map[string][]*html.Node{}
	var order []string
	walk(art, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if !signatureBox(n) {
			return true
		}
		switch n.DataAtom {
		case atom.Tr, atom.Td, atom.Th, atom.Thead, atom.Tbody, atom.Tfoot, atom.Li, atom.Dt, atom.Dd:
			return false
		}
		if n.Parent == nil || textUpTo(n, maxForumSignature) > maxForumSignature {
			return false
		}
		class := strings.Join(strings.Fields(attr(n, "class")), " ")
		if _, ok := groups[class]; !ok {
			order = append(order, class)
		}
		groups[class] = append(groups[class], n)
		return false
	})
	for _, class := range order {
		boxes := groups[class]
		if len(boxes) < 2 || !underPosts(boxes) {
			continue
		}
		for _, b := range boxes {
			b.Parent.RemoveChild(b)
		}
	}
}

// underPosts reports whether the boxes have the shape of signatures
// under posts: each stands in a block of its own, at most postDepth
// levels up, that holds words beside it (its post; boxes side by side
// share the block that holds them), and the posts say more than their
// signatures.
func underPosts(boxes []*html.Node) bool {
	const postDepth = 3
	posts := map[*html.Node]bool{}
	in, beside := 0, 0
	for _, b := range boxes {
		own := wordsUpTo(b, maxForumSignature)
		var post *html.Node
		words := 0
		for a, up := b.Parent, 0; a != nil && up < postDepth && post == nil; a, up = a.Parent, up+1 {
			if words = wordsUpTo(a, own+maxForumSignature); words > own {
				post = a
			}
		}
		if post == nil || posts[post] {
			return false
		}
		posts[post] = true
		in += own
		beside += words - own
	}
	return beside > in
}

// wordsUpTo counts the words under n, only until they pass limit.
func wordsUpTo(n *html.Node, limit int) int {
	return measureUpTo(n, limit, countWords)
}

// signatureBox reports an element its class or id names a signature: the
// word "signature" (or "postsignature", "signaturecontainer") among its class or id
// words, or Invision's data-role. Headings and tables are never one.
func signatureBox(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Table, atom.Body, atom.Html, atom.Main, atom.Article:
		return false
	}
	if strings.EqualFold(attr(n, "data-role"), "memberSignature") {
		return true
	}
	for _, raw := range []string{attr(n, "class"), attr(n, "id")} {
		for _, w := range meta.ClassWords(raw) {
			if w == "signature" || w == "postsignature" || w == "signaturecontainer" {
				return true
			}
		}
	}
	return false
}
