package markdown

import (
	"context"
	"log/slog"
	"net/url"
	"runtime/debug"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxPageTextFactor is how many times the answer's bound the text of a page
// may be for Article to search it: an article is rarely a quarter of its
// page, and Readability's time grows with the text.
const maxPageTextFactor = 4

// extract finds the main content of the document under root, in a copy the
// package owns; nil when the page has no text.
func extract(ctx context.Context, root *html.Node, base *url.URL, opts Options) (*html.Node, error) {
	c := &cleaner{ctx: ctx, base: base, forExtraction: true, maxElements: opts.maxElements(),
		maxText: maxPageTextFactor * opts.maxBytes(), textUnit: UnitTextBytes}
	page := c.clone(root, 0)
	if c.err != nil {
		return nil, c.err
	}
	if page == nil {
		return nil, nil
	}
	pruneBoilerplate(page)
	art, ok := readable(page, base)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !ok {
		// The extractor failed on markup it did not foresee; the page
		// without its furniture is the next best answer.
		art = findFirst(page, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	}
	if art != nil {
		dropEmptySections(art)
	}
	return art, nil
}

// readable runs Readability over a copy of page; ok is false when it
// panicked, which third-party code may do on markup nobody foresaw.
func readable(page *html.Node, base *url.URL) (article *html.Node, ok bool) {
	defer func() {
		if v := recover(); v != nil {
			slog.Error("the article extractor failed on this page; the page without its furniture is used instead",
				"url", base.String(), "panic", v, "stack", string(debug.Stack()))
			article, ok = nil, false
		}
	}()
	p := readability.NewParser()
	// Classes name the language of code blocks for the converter.
	p.KeepClasses = true
	art, err := p.ParseDocument(page, base)
	if err != nil {
		return nil, true
	}
	return art.Node, true
}
