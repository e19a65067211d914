package markdown

import "golang.org/x/net/html"

// chromeOutside is the length of the text of the page's header, menus,
// sidebars and footer, known by their tags or roles, outside main: a
// footer with a store locator or a mega-menu of every category may hold
// more text than the page's <main>, which is the content all the same.
func chromeOutside(body, main *html.Node, lengths map[*html.Node]int) int {
	total := 0
	walk(body, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n == main {
			return false
		}
		if chrome(n) == chromeByTag {
			total += lengths[n]
			return false
		}
		return true
	})
	return total
}
