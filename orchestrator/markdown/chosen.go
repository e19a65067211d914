package markdown

import (
	"index/suffixarray"
	"strings"

	"golang.org/x/net/html"
)

// chosenText tells whether a piece of text is part of the block the
// extractor chose. The choice compares each card, post, band or heading of
// the main region with that block; a page of thousands of cards and a block
// of megabytes would make a substring search for each a matter of minutes,
// so a long block is indexed once.
type chosenText struct {
	art   *html.Node
	text  string // art's text, once read (see content)
	read  bool
	index *suffixarray.Index
	// lookups counts the searches of the text, for the tests of what a
	// check costs.
	lookups int
}

// indexedTextLen is the length, in bytes, from which the chosen block's
// text is indexed rather than searched.
const indexedTextLen = 1 << 16

// newChosenText is art, the chosen block, for the checks that weigh it
// against the region; one serves all of them.
func newChosenText(art *html.Node) *chosenText {
	return &chosenText{art: art}
}

// content is the chosen block's text, read when a check first asks for
// it: most choices are settled by the blocks' sizes alone.
func (c *chosenText) content() string {
	if !c.read {
		c.text, c.read = flatText(c.art), true
	}
	return c.text
}

// holds reports whether the chosen block holds n: whether the start of
// n's text, up to heldPrefix bytes, is part of its text.
func (c *chosenText) holds(n *html.Node) bool {
	return c.contains(heldStart(n))
}

// heldPrefix is how much of a block's text, in bytes, is looked for in the
// chosen block: enough to tell one post or card from another, and short
// enough that the extractor's trimming of the block's end does not count.
const heldPrefix = 60

// contains reports whether s is part of the chosen block's text.
func (c *chosenText) contains(s string) bool {
	c.lookups++
	text := c.content()
	if s == "" || len(text) < indexedTextLen {
		return strings.Contains(text, s)
	}
	if c.index == nil {
		c.index = suffixarray.New([]byte(text))
	}
	return len(c.index.Lookup([]byte(s), 1)) > 0
}
