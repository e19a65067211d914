package markdown

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A shop declares its product's description in the page's JSON-LD, for
// search engines, and shows it where its design puts it: in a panel that
// opens as a sheet over the page, in a tab, or only once its scripts have
// run (the static page holds the description in its data alone). When the
// content chosen for a page about one product leaves the declared
// description out, it is added at the top: from the page's own markup
// when the page holds it anywhere, else as the declared text.

const (
	// minDescribedWords is the fewest words a declared description has
	// to be added: a line such as "Blue cotton T-shirt" is a name, which
	// the title already gives.
	minDescribedWords = 15
	// describedShare is the share of the description's words the content
	// must hold to count as holding it, and the share an element of the
	// page must hold to stand for it.
	describedShare = 0.5
	foundShare     = 0.8
	// maxFoundFactor and maxFoundExtra bound the text of the element
	// that stands for the description, in times the description's and
	// characters more: a panel with its heading and a list of features,
	// not the page's product box. Its parents are taken while they add
	// at most maxFoundExtra characters to it.
	maxFoundFactor = 1.5
	maxFoundExtra  = 100
	// maxDescribedSearch bounds the text, in bytes, that the search for
	// the element holding the description reads: a page of many boxes
	// of about the description's size, nested deep, would otherwise have
	// it read the same text over and over. Past it, the declared text is
	// used.
	maxDescribedSearch = 2 << 20
)

// declaredDescription is the description that a page about one product
// declares in its JSON-LD, as plain text with its lines; "" when it
// declares none of minDescribedWords words.
func declaredDescription(page *html.Node) string {
	best := ""
	eachJSONLD(page, func(doc any) {
		topLevelNodes(doc, 0, func(node map[string]any) {
			product := false
			nodeTypes(node, func(t string) { product = product || productTypes[schemaType(t)] })
			if d, ok := node["description"].(string); ok && product && len(d) > len(best) {
				best = d
			}
		})
	})
	text := plainDescription(best)
	// Prose has spaces between its words; a description without them is
	// escaped for an address, or an identifier.
	if countWords(text) < minDescribedWords || strings.Count(text, " ") < minDescribedWords/2 {
		return ""
	}
	return text
}

var (
	descriptionBreaks = regexp.MustCompile(`(?i)<\s*(?:br|/p|/li|/h[1-6]|/div)\b[^>]*>`)
	descriptionTags   = regexp.MustCompile(`<[^>]*>`)
)

// plainDescription is a declared description as lines of text: some shops
// declare their description's markup, and their entities.
func plainDescription(d string) string {
	d = descriptionBreaks.ReplaceAllString(d, "\n")
	d = descriptionTags.ReplaceAllString(d, " ")
	d = html.UnescapeString(d)
	var lines []string
	for _, l := range strings.Split(d, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// descriptionWords are the lower-cased words of s.
func descriptionWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// share is the share of words that set holds.
func share(words []string, set map[string]bool) float64 {
	if len(words) == 0 {
		return 0
	}
	n := 0
	for _, w := range words {
		if set[w] {
			n++
		}
	}
	return float64(n) / float64(len(words))
}

// readerText is the text under n that a reader of the page sees: not its
// scripts' (the declared description is one), nor its styles'.
func readerText(n *html.Node) string {
	return textSkipping(n, func(k *html.Node) bool {
		return k.DataAtom == atom.Script || k.DataAtom == atom.Style || k.DataAtom == atom.Template
	})
}

// wordSet is the set of descriptionWords of s.
func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range descriptionWords(s) {
		set[w] = true
	}
	return set
}

// addDescription puts desc at the top of art unless art holds it already:
// from page, the smallest element that holds it, with what little more
// its parents add (its heading, its lines of features), when there is
// one; else its lines as paragraphs. page is the page before any rule
// removed a part of it.
func addDescription(art, page *html.Node, desc string) {
	words := descriptionWords(desc)
	if share(words, wordSet(readerText(art))) >= describedShare {
		return
	}
	block := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	if found, _ := findDescribed(page, desc, words); found != nil {
		block.AppendChild(cloneTree(found))
	} else {
		for _, l := range strings.Split(desc, "\n") {
			p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
			p.AppendChild(&html.Node{Type: html.TextNode, Data: l})
			block.AppendChild(p)
		}
	}
	art.InsertBefore(block, art.FirstChild)
}

// findDescribed returns the element of page that stands for desc, whose
// words are words (see addDescription), and how many bytes of text it
// read looking: past maxDescribedSearch it gives up, and found is nil.
func findDescribed(page *html.Node, desc string, words []string) (found *html.Node, read int) {
	most := int(maxFoundFactor*float64(len(desc))) + maxFoundExtra
	lengths := textLengths(page)
	walk(page, func(n *html.Node) bool {
		if n.Type != html.ElementNode || read > maxDescribedSearch {
			return false
		}
		l := lengths[n]
		if 2*l < len(desc) {
			return false // too little text here, and in all it holds
		}
		if l <= most && (found == nil || l < lengths[found]) {
			text := readerText(n)
			read += len(text)
			if share(words, wordSet(text)) >= foundShare {
				found = n
			}
		}
		return true
	})
	if found == nil || read > maxDescribedSearch {
		return nil, read // not searched through: what was found may not be the least
	}
	// Up to its heading and its lines, not the next panel.
	least := lengths[found]
	for p := found.Parent; p != nil && p.Type == html.ElementNode && lengths[p] <= min(most, least+maxFoundExtra); p = p.Parent {
		found = p
	}
	return found, read
}
