package markdown

import (
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestFlatTextIsTheFieldsOfTheTextJoined checks the one-pass flatText
// against its definition, strings.Join(strings.Fields(textOf(n)), " "),
// and flatTextUpTo against its prefix, on trees of random text nodes:
// ASCII and Unicode white space, words split across nodes, invalid UTF-8
// and empty nodes.
func TestFlatTextIsTheFieldsOfTheTextJoined(t *testing.T) {
	pieces := []string{"", " ", "  ", "\t", "\n", "\v", "\f", "\r", "\u00a0", "\u0085", "\u2003", "\u3000", "\u200b",
		"word", "two words", "é", "日本", "\xff", "\xe2\x80", "a", "-", "x\u00a0y", " lead", "trail ", "\u2028"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		root := randomTextTree(rng, pieces, 8, 4)
		want := strings.Join(strings.Fields(textOf(root)), " ")
		if got := flatText(root); got != want {
			t.Fatalf("tree %d: flatText = %q, want %q (text %q)", i, got, want, textOf(root))
		}
		limit := rng.IntN(12)
		if got := flatTextUpTo(root, limit); got != want[:min(len(want), limit)] {
			t.Fatalf("tree %d: flatTextUpTo(%d) = %q, want %q", i, limit, got, want[:min(len(want), limit)])
		}
	}
}

// TestOneWordCountsAsFieldsDoes checks oneWord against the count of
// strings.Fields on the same random trees' text.
func TestOneWordCountsAsFieldsDoes(t *testing.T) {
	pieces := []string{"", " ", "\u00a0", "\u3000", "\n", "word", "x", "\xff", "é", "a b", " c", "d "}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 5000 {
		root := randomTextTree(rng, pieces, 6, 3)
		if got, want := oneWord(root), len(strings.Fields(textOf(root))) <= 1; got != want {
			t.Fatalf("tree %d: oneWord = %v, want %v (text %q)", i, got, want, textOf(root))
		}
	}
}

// randomTextTree is a <div> of up to nodes random children at any depth,
// a third of them <span> elements and the rest text nodes of up to
// perText pieces each.
func randomTextTree(rng *rand.Rand, pieces []string, nodes, perText int) *html.Node {
	root := &html.Node{Type: html.ElementNode, Data: "div"}
	parents := []*html.Node{root}
	for range rng.IntN(nodes) {
		p := parents[rng.IntN(len(parents))]
		if rng.IntN(3) == 0 {
			e := &html.Node{Type: html.ElementNode, Data: "span"}
			p.AppendChild(e)
			parents = append(parents, e)
			continue
		}
		var sb strings.Builder
		for range rng.IntN(perText) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		p.AppendChild(&html.Node{Type: html.TextNode, Data: sb.String()})
	}
	return root
}
