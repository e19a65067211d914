package markdown

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A form with a box to write in (a <textarea>) is a composer: the reply
// box under a thread, the answer form under a question, a blog's comment
// form. What the copy keeps of it once its fields are gone is its labels
// and instructions ("Your Answer", "Sign up or log in", "Post as a
// guest", "Required, but never shown"): the site's, never the page's
// words. The copy marks such a form (its fields are left out of the copy,
// so the mark is all that tells it), and the content loses it unless it
// holds much of the content: a page built inside one form, as some
// frameworks build every page, is the page.

// composerAttr marks a composer in the copy.
const composerAttr = "data-glimpse-composer"

// maxComposerText is the most text, in bytes, of a composer that goes,
// and maxComposerShare the most of the content's text it may hold.
const (
	maxComposerText  = 2000
	maxComposerShare = 0.3
)

// composer reports whether n, a form of the page, holds a box to write
// in.
func composer(n *html.Node) bool {
	return n.DataAtom == atom.Form && findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.Textarea }) != nil
}

// dropComposers removes the composers under art (see above).
func dropComposers(art *html.Node) {
	var forms []*html.Node
	walk(art, func(n *html.Node) bool {
		// Readability copies a form it keeps as a <div>, its attributes
		// with it.
		if n.Type == html.ElementNode && hasAttr(n, composerAttr) {
			forms = append(forms, n)
			return false
		}
		return true
	})
	if len(forms) == 0 {
		return
	}
	total := collapsedText(art)
	for _, f := range forms {
		if t := collapsedText(f); t <= maxComposerText && float64(t) <= maxComposerShare*float64(total) {
			f.Parent.RemoveChild(f)
		}
	}
}
