package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// minRepeatedCaption is the shortest caption, in bytes of text, whose
// repetition is left out: a short one ("Before", "After", "Figure") may
// rightly label several pictures.
const minRepeatedCaption = 24

// captionSeen removes a figure's caption that says, word for word, what an
// earlier caption of the same content said: galleries and sliders repeat
// one caption (often a credit or a campaign line) under every picture,
// and it is worth reading once. seen holds the captions met so far.
// A quotation's attribution ("— A reader") is no picture's caption and may
// rightly sign several quotations.
func captionSeen(caption *html.Node, seen map[string]bool) {
	if caption.Parent == nil || findFirst(caption.Parent, func(k *html.Node) bool {
		return k.DataAtom == atom.Img || k.DataAtom == atom.Picture
	}) == nil {
		return
	}
	text := strings.ToLower(flatText(caption))
	if len(text) < minRepeatedCaption {
		return
	}
	if seen[text] {
		caption.Parent.RemoveChild(caption)
		return
	}
	seen[text] = true
}
