package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A lazy loader shows a placeholder (a blurred thumbnail, a grey box)
// where the picture goes, and keeps the picture itself in a <noscript>
// right after it for clients without script:
//
//	<div><img src="/max/60/photo.png?q=20"></div>
//	<img width="1894" height="970">
//	<noscript><img src="/max/3788/photo.png"></noscript>
//
// The placeholder is an image of its own address, which no rule can tell
// from the picture; the <noscript> says which picture it stands for. The
// copy shows that picture in the placeholder's place, and leaves out the
// empty frames a loader fills by script.

// maxNoscriptImageMarkup is the most markup, in bytes, a <noscript>
// holding one picture is read for: a picture with a long source set is a
// few kilobytes; more is a page's worth, which revealNoscript weighs.
const maxNoscriptImageMarkup = 16 << 10

// noscriptImage returns the image a <noscript> holds when that is all it
// holds; nil otherwise. The parser keeps a <noscript>'s markup as text
// when the page was parsed for a browser with script, as children when
// not.
func noscriptImage(n *html.Node) *html.Node {
	if n.FirstChild == nil {
		return nil
	}
	var nodes []*html.Node
	if n.FirstChild.Type == html.TextNode && n.FirstChild.NextSibling == nil {
		if len(n.FirstChild.Data) > maxNoscriptImageMarkup || !strings.Contains(n.FirstChild.Data, "<") {
			return nil
		}
		parsed, err := parseNoscript(n.FirstChild.Data)
		if err != nil {
			return nil
		}
		nodes = parsed
	} else {
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			nodes = append(nodes, k)
		}
	}
	var img *html.Node
	for _, k := range nodes {
		switch k.Type {
		case html.TextNode:
			if strings.TrimSpace(k.Data) != "" {
				return nil
			}
		case html.ElementNode:
			if img != nil {
				return nil
			}
			if img = soleImage(k); img == nil {
				return nil
			}
		}
	}
	return img
}

// parseNoscript parses the markup a <noscript> keeps as text, when the
// page was parsed for a browser with script, as the children of a box.
func parseNoscript(markup string) ([]*html.Node, error) {
	context := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	return html.ParseFragment(strings.NewReader(markup), context)
}

// soleImage returns the image n is, or the one image it wraps with no
// words beside it; nil otherwise.
func soleImage(n *html.Node) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == atom.Img {
		return n
	}
	var img *html.Node
	found := true
	walk(n, func(k *html.Node) bool {
		if !found {
			return false
		}
		switch {
		case k.Type == html.TextNode && strings.TrimSpace(k.Data) != "":
			found = false
		case k.Type == html.ElementNode && k.DataAtom == atom.Img:
			if img != nil {
				found = false
			}
			img = k
			return false
		}
		return true
	})
	if !found {
		return nil
	}
	return img
}

// imageSource reports whether the image names a picture anywhere: its
// source, a source set or an attribute of a lazy loader.
func imageSource(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Val == "" {
			continue
		}
		switch k := strings.ToLower(a.Key); {
		case k == "src" || k == "srcset":
			return true
		case strings.HasPrefix(k, "data-") || strings.Contains(k, "lazy"):
			if strings.Contains(a.Val, "/") || strings.Contains(a.Val, ".") {
				return true
			}
		}
	}
	return false
}

// placeholderBefore is the image of the copy's last element under dst,
// when that is one image alone, that the picture of a <noscript> coming
// next replaces; images naming no picture at all between them are
// removed, being frames a script fills. nil when there is none.
func placeholderBefore(dst *html.Node) *html.Node {
	for k := dst.LastChild; k != nil; {
		prev := k.PrevSibling
		switch {
		case k.Type == html.TextNode && strings.TrimSpace(k.Data) == "":
		case k.Type == html.ElementNode && k.DataAtom == atom.Img && !imageSource(k):
			dst.RemoveChild(k)
		case k.Type == html.ElementNode:
			return soleImage(k)
		default:
			return nil
		}
		k = prev
	}
	return nil
}

// unwrapNoscriptImage puts the picture of the <noscript> n in place of
// the placeholder the copy under dst ends with, and reports whether it
// did.
func (c *cleaner) unwrapNoscriptImage(dst, n *html.Node, depth int) bool {
	img := noscriptImage(n)
	if img == nil || !imageSource(img) {
		return false
	}
	ph := placeholderBefore(dst)
	if ph == nil {
		return false
	}
	cp := c.clone(img, depth)
	if cp == nil || cp.DataAtom != atom.Img {
		return false
	}
	if attr(cp, "alt") == "" && attr(ph, "alt") != "" {
		setAttr(cp, "alt", attr(ph, "alt"))
	}
	ph.Parent.InsertBefore(cp, ph)
	ph.Parent.RemoveChild(ph)
	return true
}
