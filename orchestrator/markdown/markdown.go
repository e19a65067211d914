package markdown

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

const (
	// DefaultMaxBytes bounds the Markdown when Options leave it unset.
	DefaultMaxBytes = 4 << 20
	// DefaultMaxElements bounds the elements converted (and, for Article,
	// the elements of the page searched) when Options leave it unset: about
	// twenty times the largest article pages, and small enough that the
	// work stays within a second or two.
	DefaultMaxElements = 200_000
	// freeNesting is how deep an element may be and count for nothing
	// against the nesting bound; nestingPerElement is the levels past it
	// that each element of MaxElements may have on average. The page's
	// passes read a subtree once for each element around it, so their work
	// grows with each element's depth, not with the elements alone. No
	// development page nests its elements past the bound's hundredth; a
	// page of 100,000 paragraphs 300 levels deep passes it twenty-five
	// times over, and would keep a core busy for most of a minute.
	freeNesting       = 32
	nestingPerElement = 5
)

// Options bound one conversion.
type Options struct {
	// MaxBytes is the longest Markdown returned; past it the conversion
	// fails with a *TooLargeError rather than answer a truncated text.
	// 0 means DefaultMaxBytes.
	MaxBytes int
	// MaxElements is the most elements converted; past it the conversion
	// fails with a *TooLargeError before doing the work. 0 means
	// DefaultMaxElements.
	MaxElements int
	// Chooser is how Article decides what the main content is; the zero
	// value is ChooseByRules.
	Chooser Chooser
	// BlockModel is the model ChooseByModel uses; nil means the one built
	// in.
	BlockModel *BlockModel
}

func (o Options) maxBytes() int {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultMaxBytes
}

func (o Options) maxElements() int {
	if o.MaxElements > 0 {
		return o.MaxElements
	}
	return DefaultMaxElements
}

// maxNesting bounds the levels of nesting past freeNesting, summed over
// the elements: an element n levels deep counts n − freeNesting.
func (o Options) maxNesting() int { return nestingPerElement * o.maxElements() }

// The units a TooLargeError counts in.
const (
	// UnitMarkdownBytes bounds the answer: Options.MaxBytes.
	UnitMarkdownBytes = "bytes of Markdown"
	// UnitElements bounds the work: Options.MaxElements.
	UnitElements = "HTML elements"
	// UnitTextBytes bounds the page Article searches: the text of a page
	// past maxPageTextFactor times Options.MaxBytes is more than an
	// article the answer could hold, and more than is worth searching.
	UnitTextBytes = "bytes of page text"
	// UnitNesting bounds the work on deep pages: an element n levels deep
	// counts n − 32, and the bound is five levels per element of
	// MaxElements.
	UnitNesting = "levels of element nesting past the 32nd (an element n levels deep counts n − 32)"
)

// TooLargeError reports content past one of the Options' bounds. Nothing
// is returned with it: a truncated article would read as a whole one.
type TooLargeError struct {
	// Limit is the bound that was passed, in Unit.
	Limit int
	// Unit is one of UnitMarkdownBytes, UnitElements, UnitTextBytes and
	// UnitNesting.
	Unit string
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the content is too large to convert to Markdown: it holds more than %d %s; "+
		"choose a smaller part of the page with a selector", e.Limit, e.Unit)
}

// ErrNoDocument is returned for a nil document or selection.
var ErrNoDocument = errors.New("markdown: no document to convert")

// Article returns the main content of the page as Markdown: the article and
// nothing else, without navigation, menus, banners, related links, comments
// or footers. pageURL is the page's final URL; relative links and images
// are resolved against it (or against the page's <base href>). A page with
// no text gives "". The document is not modified.
//
// The result is deterministic (the same document gives the same bytes),
// carries no trailing spaces, no more than one blank line in a row, and
// ends with a single newline. It fails with a *TooLargeError past the
// Options' bounds, and with ctx.Err() when ctx ends first.
func Article(ctx context.Context, doc *goquery.Document, pageURL *url.URL, opts Options) (string, error) {
	if doc == nil || len(doc.Nodes) == 0 || pageURL == nil {
		return "", ErrNoDocument
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	root := doc.Nodes[0]
	for root.Parent != nil {
		root = root.Parent
	}
	base := baseURL(root, pageURL)
	content, err := extract(ctx, root, base, opts)
	if err != nil || content == nil {
		return "", err
	}
	if collapsedText(content) > opts.maxBytes() {
		return "", &TooLargeError{Limit: opts.maxBytes(), Unit: UnitMarkdownBytes}
	}
	return render(ctx, content, pageURL, base, opts, true)
}

// Convert returns the elements of sel as Markdown, as they are: for a data
// rule's selector, and for the whole page with the selection "html". Each
// element of the selection is converted in document order, separated by a
// blank line. Scripts, styles, hidden elements, form controls and
// tracking pixels are left out; links and images are made absolute against
// pageURL (or the page's <base href>). Output and errors are as for
// Article.
func Convert(ctx context.Context, sel *goquery.Selection, pageURL *url.URL, opts Options) (string, error) {
	if sel == nil || pageURL == nil {
		return "", ErrNoDocument
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if len(sel.Nodes) == 0 {
		return "", nil
	}
	root := sel.Nodes[0]
	for root.Parent != nil {
		root = root.Parent
	}
	base := baseURL(root, pageURL)
	c := &cleaner{ctx: ctx, base: base, panels: disclosures(root), shells: revealedShells(root), streams: streamedPlacements(root), maxElements: opts.maxElements(), maxNesting: opts.maxNesting(),
		maxText: opts.maxBytes(), textUnit: UnitMarkdownBytes}
	box := &html.Node{Type: html.ElementNode, Data: "div"}
	for _, n := range sel.Nodes {
		cp := c.clone(n, 0)
		if c.err != nil {
			return "", c.err
		}
		if cp == nil {
			continue
		}
		if cp.Type == html.DocumentNode {
			// A document cannot sit inside an element; its children can.
			for k := cp.FirstChild; k != nil; {
				next := k.NextSibling
				cp.RemoveChild(k)
				box.AppendChild(k)
				k = next
			}
			continue
		}
		box.AppendChild(cp)
	}
	return render(ctx, box, pageURL, base, opts, false)
}

// collapsedText is the length of the text under n, each run of white
// space counted once: what its Markdown holds at least.
func collapsedText(n *html.Node) int {
	total := 0
	walk(n, func(k *html.Node) bool {
		if k.Type == html.TextNode {
			total += collapsedLen(k.Data)
		}
		return true
	})
	return total
}
