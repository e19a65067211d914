package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// dropDialogs removes the page's dialogs: blocks with the role dialog or
// alertdialog, or marked aria-modal. A script opens them over the page (a
// privacy policy, the terms of sale, a sign-up form, a size guide); until
// then they are not part of what a reader sees, however much text they
// hold, as a closed <dialog> is not. A dialog that holds the page's <main>,
// an <article> or the page's first first-rank heading is the page itself,
// shown as one.
func dropDialogs(page *html.Node) {
	title := findFirst(page, func(n *html.Node) bool { return n.DataAtom == atom.H1 })
	walk(page, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		role := strings.ToLower(strings.TrimSpace(attr(n, "role")))
		if role != "dialog" && role != "alertdialog" && !strings.EqualFold(strings.TrimSpace(attr(n, "aria-modal")), "true") {
			return true
		}
		if findFirst(n, func(k *html.Node) bool {
			return k == title || k.DataAtom == atom.Main || k.DataAtom == atom.Article ||
				strings.EqualFold(strings.TrimSpace(attr(k, "role")), "main")
		}) != nil {
			return true
		}
		n.Parent.RemoveChild(n)
		return false
	})
}
