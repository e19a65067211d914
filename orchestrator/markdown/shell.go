package markdown

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Some pages ship their whole body hidden and show it once their script
// and styles have loaded: a wrapper with an inline visibility:hidden or
// display:none around everything (a guard against a flash of unstyled
// content). Read without the script, the page would seem empty. A wrapper
// hidden so that holds most of the page's text is the page, shown a moment
// later, not something it hides; a menu, a dialog or a hidden copy holds a
// part of the text at most. So is one that holds the page's headline and a
// fair part of its text: a shop's product hidden until its script runs,
// beside mega-menus that outweigh it.

// minShellShare is the least share of the body's text that a hidden
// wrapper holds to be the page's shell.
const minShellShare = 0.6

// minHeadlineShellShare is the least share of the body's text that a
// hidden wrapper holding the page's first <h1> holds to be the shell: a
// product's page hidden until its script runs, beside a site's mega-menus
// that outweigh it.
const minHeadlineShellShare = 0.2

// revealedShells returns the elements under root hidden by an inline
// style that hold at least minShellShare of the body's text, or
// minHeadlineShellShare and the body's first <h1>; nil when there are
// none.
func revealedShells(root *html.Node) map[*html.Node]bool {
	body := findFirst(root, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	if body == nil {
		return nil
	}
	var candidates []*html.Node
	walk(body, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if style := attr(n, "style"); style != "" && styleHides(style) {
			candidates = append(candidates, n)
			return false // the outermost one is the shell
		}
		return true
	})
	if len(candidates) == 0 {
		return nil
	}
	total := visibleTextLen(body)
	// The page's headline shown only inside a hidden wrapper says the
	// wrapper is the page, however long the site's menus beside it.
	headline := findFirst(body, func(n *html.Node) bool { return n.DataAtom == atom.H1 })
	var shells map[*html.Node]bool
	for _, n := range candidates {
		share := float64(visibleTextLen(n)) / float64(max(total, 1))
		if total > 0 && (share >= minShellShare || share >= minHeadlineShellShare && headline != nil && holds(n, headline)) {
			if shells == nil {
				shells = map[*html.Node]bool{}
			}
			shells[n] = true
		}
	}
	return shells
}

// visibleTextLen is the length of the text under n, white space collapsed,
// outside scripts, styles and templates.
func visibleTextLen(n *html.Node) int {
	total := 0
	walk(n, func(k *html.Node) bool {
		switch {
		case k.Type == html.TextNode:
			total += collapsedLen(k.Data)
		case k.DataAtom == atom.Script || k.DataAtom == atom.Style || k.DataAtom == atom.Template || k.DataAtom == atom.Noscript:
			return false
		}
		return true
	})
	return total
}
