package markdown

import (
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A list whose entries are only page numbers, "1 2 3 … 9 Next", is a
// listing's pagination, and one that counts 1 to 5 under a picture is a
// carousel's dots: controls, whatever their class. A list of numbers
// that do not count up one by one (but across an ellipsis), of years, or
// with an entry that says anything else, is data: a ranking's scores, an
// archive's years; a recipe's steps say more than their number.

// pagerWordRe is the whole text of a pagination entry that is no number.
var pagerWordRe = regexp.MustCompile(`(?i)^(?:…|\.\.\.|next|previous|prev|first|last|older|newer|more|[«»‹›<>←→]+|` +
	`(?:next|previous|prev|first|last)\s+page|(?:next|prev|previous)\s*[»›>→]|[«‹<←]\s*(?:prev|previous)|page)$`)

// maxPageNumber bounds a page number: a list of years is no pagination.
const maxPageNumber = 1000

// minPagerNumbers is the fewest numbers a pagination or a carousel's dots
// show.
const minPagerNumbers = 2

// dropPagers removes, under art, the lists that are only page numbers.
func dropPagers(art *html.Node) {
	for _, n := range listsWhere(art, pager) {
		n.Parent.RemoveChild(n)
	}
}

// listsWhere returns the lists under art, outside code and tables, that
// match reports, without the lists inside those.
func listsWhere(art *html.Node, match func(*html.Node) bool) []*html.Node {
	var lists []*html.Node
	walk(art, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		switch n.DataAtom {
		case atom.Pre, atom.Code, atom.Table:
			return false
		case atom.Ul, atom.Ol:
			if match(n) {
				lists = append(lists, n)
				return false
			}
		}
		return true
	})
	return lists
}

// pager reports a list whose entries are page numbers counting up, at
// least minPagerNumbers of them, and the words of a pagination.
func pager(list *html.Node) bool {
	numbers, last, gap := 0, 0, true
	for li := list.FirstChild; li != nil; li = li.NextSibling {
		switch {
		case li.Type == html.TextNode && strings.TrimSpace(li.Data) == "", li.Type == html.CommentNode:
			continue
		case li.Type != html.ElementNode || li.DataAtom != atom.Li:
			return false
		}
		if textUpTo(li, 24) > 24 {
			return false
		}
		text := flatText(li)
		if text == "" || pagerWordRe.MatchString(text) {
			gap = gap || text == "…" || text == "..."
			continue
		}
		// Page numbers count up one by one, but across an ellipsis; a
		// year is no page number.
		v, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(text), "page "))
		if err != nil || v <= last || v >= maxPageNumber || !gap && v != last+1 {
			return false
		}
		numbers, last, gap = numbers+1, v, false
	}
	return numbers >= minPagerNumbers
}
