package meta

import (
	"math"

	"github.com/PuerkitoBio/goquery"
)

// authorBoxNames returns the names of a byline block anywhere in the
// article, however far from the headline: the box about the author that
// ends many posts when nothing near the title names anyone. A bare link to
// a contributor's page that far down is a guest or a source, not a byline,
// and is left out.
func (p *page) authorBoxNames() []authorValue {
	return p.bylineNamesWithin(math.MaxInt)
}

// inBylineBlock reports an element classed as a byline or an author's
// block, or inside one.
func inBylineBlock(s *goquery.Selection) bool {
	return s.Is(bylineBlocks) || s.ParentsFiltered(bylineBlocks).Length() > 0
}
