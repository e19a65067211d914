package markdown

import (
	"strings"
	"testing"
)

// TestTheChosenTextAnswersAsASearchWouldWhateverItsLength asks the same
// questions of a short block, searched, and of a long one, indexed: the
// answers are those of a search of the text.
func TestTheChosenTextAnswersAsASearchWouldWhateverItsLength(t *testing.T) {
	for _, size := range []int{1, indexedTextLen/40 + 1} {
		text := strings.Repeat("Walnut side table model x, and its oak twin. ", size)
		chosen := newChosenText(parseBody(t, `<div><p>`+text+`</p></div>`))
		for _, s := range []string{"", "Walnut side table model x", "oak twin. Walnut", "model 12", "é", "twin. " + text} {
			if got, want := chosen.contains(s), strings.Contains(chosen.content(), s); got != want {
				t.Errorf("a block of %d bytes: contains(%.40q) = %v, want %v", len(chosen.content()), s, got, want)
			}
		}
		if !chosen.holds(parseBody(t, `<p></p>`)) {
			t.Errorf("a block of %d bytes does not hold an empty one", len(chosen.content()))
		}
	}
}
