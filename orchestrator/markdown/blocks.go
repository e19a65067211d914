package markdown

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/markdown/internal/score"
	"github.com/glimpse/glimpse/orchestrator/meta"
)

// A page's text blocks are what the block model keeps or drops: each
// paragraph, heading, list item, table cell, code block, and each other
// element with text of its own (a div or a span-wrapped line), with the
// text that sits in it outside the blocks nested in it. Each is described
// by features that hold on any site: its text and links, its tag and its
// ancestors' tags and roles, generic class and id words, its place in the
// page and among repeated siblings, its neighbours, whether the rules keep
// it, and what the page declares itself to be.

// Block is one text block of a page as the block model sees it.
type Block struct {
	// Text is the block's own text, white space collapsed.
	Text string
	// Features are its features, in the order of BlockFeatureNames.
	Features []float32
}

// inlineTags are the elements that sit inside a block's line rather than
// start a block of their own.
var inlineTags = map[atom.Atom]bool{
	atom.A: true, atom.Span: true, atom.Em: true, atom.Strong: true, atom.B: true, atom.I: true, atom.U: true,
	atom.Small: true, atom.Sup: true, atom.Sub: true, atom.Abbr: true, atom.Code: true, atom.Img: true,
	atom.Picture: true, atom.Source: true, atom.Time: true, atom.Label: true, atom.Font: true, atom.Cite: true,
	atom.Q: true, atom.Mark: true, atom.S: true, atom.Del: true, atom.Ins: true, atom.Kbd: true, atom.Var: true,
	atom.Samp: true, atom.Br: true, atom.Wbr: true, atom.Bdi: true, atom.Bdo: true, atom.Data: true,
	atom.Dfn: true, atom.Tt: true, atom.Big: true, atom.Strike: true, atom.Nobr: true, atom.Button: true,
}

// blockLevel reports an element that starts a block of its own.
func blockLevel(n *html.Node) bool {
	return n.Type == html.ElementNode && !inlineTags[n.DataAtom] && n.Namespace == ""
}

// unread are the elements whose text no reader sees.
func unread(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Head, atom.Script, atom.Noscript, atom.Style, atom.Template, atom.Title:
		return true
	}
	return n.Namespace == "svg" || n.Data == "svg"
}

// The ancestors a block may sit in, known by tag or ARIA role.
const (
	ancNav = iota
	ancHeader
	ancFooter
	ancAside
	ancMain
	ancArticle
	ancForm
	ancTable
	ancList
	ancFigure
	ancQuote
	ancSection
	ancDetails
	ancBody // itemprop="articleBody" or its like
	nAnc
)

var ancNames = [nAnc]string{"nav", "header", "footer", "aside", "main", "article", "form", "table", "list",
	"figure", "blockquote", "section", "details", "itemprop_body"}

// ancestorKinds are the kinds of ancestor n is.
func ancestorKinds(n *html.Node, kinds *[nAnc]bool) {
	switch n.DataAtom {
	case atom.Nav:
		kinds[ancNav] = true
	case atom.Header:
		kinds[ancHeader] = true
	case atom.Footer:
		kinds[ancFooter] = true
	case atom.Aside:
		kinds[ancAside] = true
	case atom.Main:
		kinds[ancMain] = true
	case atom.Article:
		kinds[ancArticle] = true
	case atom.Form:
		kinds[ancForm] = true
	case atom.Table:
		kinds[ancTable] = true
	case atom.Ul, atom.Ol, atom.Dl, atom.Menu:
		kinds[ancList] = true
	case atom.Figure:
		kinds[ancFigure] = true
	case atom.Blockquote:
		kinds[ancQuote] = true
	case atom.Section:
		kinds[ancSection] = true
	case atom.Details:
		kinds[ancDetails] = true
	}
	switch strings.ToLower(strings.TrimSpace(attr(n, "role"))) {
	case "navigation", "menu", "menubar", "tablist":
		kinds[ancNav] = true
	case "banner":
		kinds[ancHeader] = true
	case "contentinfo":
		kinds[ancFooter] = true
	case "complementary":
		kinds[ancAside] = true
	case "main":
		kinds[ancMain] = true
	case "article":
		kinds[ancArticle] = true
	}
	switch strings.ToLower(attr(n, "itemprop")) {
	case "articlebody", "text", "reviewbody", "description", "acceptedanswer", "suggestedanswer":
		kinds[ancBody] = true
	}
}

// hintGroups are generic words of class names and ids, grouped by what
// they say a block is. They name kinds of page parts, never one site's.
var hintGroups = []struct {
	name  string
	words []string
}{
	{"nav", []string{"nav", "navigation", "navbar", "menu", "breadcrumb", "breadcrumbs", "pagination", "pager", "toc", "tabs"}},
	{"header", []string{"header", "masthead", "topbar", "banner", "hero"}},
	{"footer", []string{"footer", "copyright", "legal", "bottom", "colophon"}},
	{"side", []string{"sidebar", "aside", "widget", "rail", "secondary"}},
	{"comment", []string{"comment", "comments", "reply", "replies", "respond", "discussion", "disqus"}},
	{"related", []string{"related", "recommended", "recommend", "popular", "trending", "more", "also", "next", "prev"}},
	{"share", []string{"share", "sharing", "social", "follow"}},
	{"ad", []string{"ad", "ads", "advert", "advertisement", "sponsor", "sponsored", "promo", "dfp"}},
	{"consent", []string{"cookie", "cookies", "consent", "gdpr", "privacy", "modal", "popup", "overlay"}},
	{"signup", []string{"newsletter", "subscribe", "subscription", "signup", "login", "register", "form"}},
	{"content", []string{"content", "article", "post", "entry", "body", "main", "text", "story", "prose", "markdown", "rich"}},
	{"title", []string{"title", "headline", "heading", "name"}},
	{"meta", []string{"meta", "byline", "author", "date", "time", "published", "info", "tags", "tag", "category", "categories"}},
	{"caption", []string{"caption", "credit", "credits", "figure", "photo", "image", "media", "gallery"}},
	{"product", []string{"product", "price", "cart", "buy", "sku", "specs", "spec", "description", "details", "review", "reviews", "rating"}},
	{"card", []string{"card", "item", "tile", "grid", "list", "teaser", "result", "results", "row", "col"}},
	{"thread", []string{"question", "answer", "message", "thread", "topic", "forum", "user", "vote", "votes"}},
	{"docs", []string{"doc", "docs", "documentation", "api", "code", "highlight", "example"}},
}

// hintIndex maps a class word to its groups.
var hintIndex = func() map[string][]int {
	m := map[string][]int{}
	for i, g := range hintGroups {
		for _, w := range g.words {
			m[w] = append(m[w], i)
		}
	}
	return m
}()

// elementHints marks the hint groups of n's class, id, role and itemtype.
func elementHints(n *html.Node, hints []bool) {
	mark := func(w string) {
		for _, g := range hintIndex[w] {
			hints[g] = true
		}
	}
	for _, w := range meta.ClassWords(attr(n, "class")) {
		mark(w)
	}
	if id := meta.ClassWords(attr(n, "id")); len(id) <= maxIDWords {
		for _, w := range id {
			mark(w)
		}
	}
	if t := strings.ToLower(attr(n, "itemtype")); t != "" {
		for _, w := range meta.ClassWords(t[strings.LastIndexByte(t, '/')+1:]) {
			mark(w)
		}
	}
}

// furnitureText are words that, said by a short block or the heading over
// it, mark page furniture on sites of any kind.
var furnitureText = map[string]bool{
	"copyright": true, "rights": true, "reserved": true, "cookies": true, "cookie": true, "subscribe": true,
	"newsletter": true, "share": true, "follow": true, "related": true, "recommended": true, "popular": true,
	"trending": true, "advertisement": true, "sponsored": true, "login": true, "log": true, "sign": true,
	"menu": true, "comments": true, "privacy": true, "terms": true, "tags": true,
}

// stopWords are the commonest English function words: prose has many,
// labels and names few.
var stopWords = map[string]bool{
	"the": true, "a": true, "an": true, "and": true, "or": true, "of": true, "to": true, "in": true, "on": true,
	"for": true, "with": true, "is": true, "are": true, "was": true, "were": true, "be": true, "it": true,
	"this": true, "that": true, "as": true, "at": true, "by": true, "from": true, "but": true, "not": true,
	"have": true, "has": true, "had": true, "you": true, "we": true, "they": true, "he": true, "she": true,
	"i": true, "if": true, "can": true, "will": true, "which": true, "their": true, "its": true, "our": true,
}

// pageBlock is a block being collected.
type pageBlock struct {
	node      *html.Node
	text      strings.Builder
	linkChars int
	depth     int
	ancDist   [nAnc]int
	hintDist  []int
	repeat    int // most same-shaped siblings of the block or an ancestor
	repDist   int // distance to the nearest of them with minRepeats or more
	heading   int
	prevHead  bool // the heading before it speaks of furniture
	before    int  // characters of the page before it
	tokens    []string
	charCount int
}

// segmentation holds a page's blocks and the media outside them.
type segmentation struct {
	blocks []*pageBlock
	// loose are images outside any block's text, with the number of
	// blocks before them: they stay when the blocks around them do.
	loose []looseMedia
}

type looseMedia struct {
	node   *html.Node
	before int
}

// walkState is what a block inherits from its ancestors.
type walkState struct {
	depth    int
	ancDist  [nAnc]int
	hintDist []int
	repeat   int
	repDist  int
	owner    *html.Node
	inLink   bool
	inPre    bool
}

const far = 1 << 20

// segment splits the page under root into blocks, in document order.
func segment(root *html.Node) *segmentation {
	seg := &segmentation{}
	byNode := map[*html.Node]*pageBlock{}
	chars := 0
	lastHeadingFurniture := false
	st := walkState{hintDist: make([]int, len(hintGroups))}
	for i := range st.ancDist {
		st.ancDist[i] = far
	}
	for i := range st.hintDist {
		st.hintDist[i] = far
	}
	st.repDist = far
	var visit func(n *html.Node, st walkState, sameShape int)
	visit = func(n *html.Node, st walkState, sameShape int) {
		switch n.Type {
		case html.TextNode:
			if st.owner == nil || strings.TrimSpace(n.Data) == "" {
				return
			}
			b := byNode[st.owner]
			if b == nil {
				b = &pageBlock{node: st.owner, depth: st.depth, ancDist: st.ancDist, hintDist: st.hintDist,
					repeat: st.repeat, repDist: st.repDist, heading: headingLevel(st.owner),
					prevHead: lastHeadingFurniture, before: chars}
				byNode[st.owner] = b
				seg.blocks = append(seg.blocks, b)
			}
			l := collapsedLen(n.Data)
			chars += l
			if st.inLink {
				b.linkChars += l
			}
			b.text.WriteString(n.Data)
			return
		case html.ElementNode, html.DocumentNode:
		default:
			return
		}
		if n.Type == html.ElementNode {
			if unread(n) {
				return
			}
			next := st
			next.depth++
			var kinds [nAnc]bool
			ancestorKinds(n, &kinds)
			for i := range next.ancDist {
				if kinds[i] {
					next.ancDist[i] = 0
				} else if next.ancDist[i] < far {
					next.ancDist[i]++
				}
			}
			hints := make([]bool, len(hintGroups))
			elementHints(n, hints)
			next.hintDist = make([]int, len(hintGroups))
			for i := range hints {
				switch {
				case hints[i]:
					next.hintDist[i] = 0
				case st.hintDist[i] < far:
					next.hintDist[i] = st.hintDist[i] + 1
				default:
					next.hintDist[i] = far
				}
			}
			if sameShape > next.repeat {
				next.repeat = sameShape
			}
			if sameShape >= minRepeats {
				next.repDist = 0
			} else if next.repDist < far {
				next.repDist++
			}
			if n.DataAtom == atom.A {
				next.inLink = true
			}
			if n.DataAtom == atom.Img || n.DataAtom == atom.Picture {
				if st.owner == nil || byNode[st.owner] == nil {
					seg.loose = append(seg.loose, looseMedia{node: n, before: len(seg.blocks)})
				}
				return
			}
			if !st.inPre && blockLevel(n) {
				next.owner = n
				if n.DataAtom == atom.Pre {
					next.inPre = true
				}
			}
			if l := headingLevel(n); l > 0 {
				lastHeadingFurniture = saysFurniture(textOf(n), 4)
			}
			st = next
		}
		// Count the children of each shape once: a post among posts, a
		// card among cards.
		shapes := map[string]int{}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if k.Type == html.ElementNode {
				shapes[k.Data+"."+attr(k, "class")]++
			}
		}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			same := 0
			if k.Type == html.ElementNode {
				same = shapes[k.Data+"."+attr(k, "class")]
			}
			visit(k, st, same)
		}
	}
	visit(root, st, 0)
	for _, b := range seg.blocks {
		b.tokens = score.WCXBTokens(b.text.String())
		b.charCount = collapsedLen(b.text.String())
	}
	return seg
}

// saysFurniture reports a short text (at most maxWords words) that uses
// the words of page furniture.
func saysFurniture(text string, maxWords int) bool {
	toks := score.WCXBTokens(text)
	if len(toks) == 0 || len(toks) > maxWords {
		return false
	}
	for _, t := range toks {
		if furnitureText[t] {
			return true
		}
	}
	return false
}

// textSet is a bag of a text's word n-grams (one to three words), hashed:
// enough to tell whether a block's words run the same way somewhere in
// another tree (the rules' choice), whatever the tree's shape.
type textSet map[uint64]struct{}

func tokenHash(t string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(t))
	return h.Sum64()
}

func gramKey(hs []uint64) uint64 {
	k := uint64(len(hs)) * 0x9e3779b97f4a7c15
	for _, h := range hs {
		k = (k ^ h) * 0x100000001b3
		k ^= k >> 29
	}
	return k
}

func newTextSet(root *html.Node) textSet {
	set := textSet{}
	if root == nil {
		return set
	}
	var sb strings.Builder
	walk(root, func(k *html.Node) bool {
		switch {
		case k.Type == html.TextNode:
			sb.WriteString(k.Data)
		case k.Type == html.ElementNode && unread(k):
			return false
		case blockLevel(k):
			sb.WriteByte(' ')
		}
		return true
	})
	toks := score.WCXBTokens(sb.String())
	hs := make([]uint64, len(toks))
	for i, t := range toks {
		hs[i] = tokenHash(t)
	}
	for i := range hs {
		for n := 1; n <= 3 && i+n <= len(hs); n++ {
			set[gramKey(hs[i:i+n])] = struct{}{}
		}
	}
	return set
}

// share is the part of the block's words found in the same order in set.
func (set textSet) share(toks []string) float32 {
	if len(toks) == 0 || len(set) == 0 {
		return 0
	}
	hs := make([]uint64, len(toks))
	for i, t := range toks {
		hs[i] = tokenHash(t)
	}
	n := min(3, len(hs))
	found := 0
	for i := 0; i+n <= len(hs); i++ {
		if _, ok := set[gramKey(hs[i:i+n])]; ok {
			found++
		}
	}
	return float32(found) / float32(len(hs)-n+1)
}

// pageContext is what the features of a page's blocks share.
type pageContext struct {
	kind                 pageKind
	rules, region, kept  textSet
	rulesWords, allWords int
}

// BlockFeatureNames names the features of a Block, in order.
func BlockFeatureNames() []string { return append([]string(nil), blockFeatureNames...) }

var blockFeatureNames = func() []string {
	names := []string{"log_chars", "log_words", "link_density", "punct_share", "stop_share", "digit_share",
		"capital_share", "sentence_ends", "mean_word_len", "comma_share",
		"tag_p", "tag_heading", "tag_li", "tag_cell", "tag_pre", "tag_quote", "tag_dl", "tag_caption", "tag_div", "tag_other",
		"depth", "position", "chars_before", "repeat", "repeat_near", "says_furniture", "heading_says_furniture",
		"in_rules", "in_region", "survives_boilerplate",
		"kind_article", "kind_many", "log_blocks", "log_page_words", "rules_share",
		"parent_log_chars", "parent_link_density", "block_share_of_parent", "up3_log_chars", "up3_link_density"}
	for _, a := range ancNames {
		names = append(names, "anc_"+a)
	}
	for _, g := range hintGroups {
		names = append(names, "hint_"+g.name)
	}
	for _, side := range []string{"prev", "next"} {
		for _, f := range []string{"heading", "log_words", "link_density", "in_rules", "tag_li", "tag_cell"} {
			names = append(names, side+"_"+f)
		}
	}
	return names
}()

// nearness turns a distance to an ancestor into a feature: 1 for the
// element itself, falling with distance, 0 for none.
func nearness(d int) float32 {
	if d >= far {
		return 0
	}
	return 1 / float32(1+d)
}

func log1p(n int) float32 { return float32(math.Log1p(float64(n))) }

// features fills each block's features.
func (seg *segmentation) features(pc pageContext) [][]float32 {
	total := 0
	for _, b := range seg.blocks {
		total += b.charCount
	}
	out := make([][]float32, len(seg.blocks))
	var root *html.Node
	if len(seg.blocks) > 0 {
		root = seg.blocks[0].node
		for root.Parent != nil {
			root = root.Parent
		}
	}
	stats := containerStats(root)
	inRules := make([]float32, len(seg.blocks))
	for i, b := range seg.blocks {
		inRules[i] = pc.rules.share(b.tokens)
	}
	for i, b := range seg.blocks {
		f := make([]float32, 0, len(blockFeatureNames))
		text := b.text.String()
		var punct, digits, ends, commas int
		for _, r := range text {
			switch {
			case unicode.IsDigit(r):
				digits++
			case r == '.' || r == '!' || r == '?':
				ends++
				punct++
			case r == ',':
				commas++
				punct++
			case unicode.IsPunct(r):
				punct++
			}
		}
		words := len(b.tokens)
		stops, capitals, wordLen := 0, 0, 0
		for _, t := range b.tokens {
			if stopWords[t] {
				stops++
			}
			wordLen += len(t)
		}
		for _, w := range strings.Fields(text) {
			if r := []rune(w); unicode.IsUpper(r[0]) {
				capitals++
			}
		}
		per := func(n, d int) float32 {
			if d == 0 {
				return 0
			}
			return float32(n) / float32(d)
		}
		f = append(f, log1p(b.charCount), log1p(words), per(b.linkChars, b.charCount), per(punct, b.charCount),
			per(stops, words), per(digits, b.charCount), per(capitals, max(words, 1)), per(ends, words),
			per(wordLen, words), per(commas, words))
		tag := func(ok bool) float32 {
			if ok {
				return 1
			}
			return 0
		}
		n := b.node
		isDiv := n.DataAtom == atom.Div || n.DataAtom == atom.Section || n.DataAtom == atom.Article ||
			n.DataAtom == atom.Main || n.DataAtom == atom.Body || n.DataAtom == atom.Header || n.DataAtom == atom.Footer ||
			n.DataAtom == atom.Nav || n.DataAtom == atom.Aside
		known := n.DataAtom == atom.P || b.heading > 0 || n.DataAtom == atom.Li || n.DataAtom == atom.Td ||
			n.DataAtom == atom.Th || n.DataAtom == atom.Pre || n.DataAtom == atom.Blockquote || n.DataAtom == atom.Dd ||
			n.DataAtom == atom.Dt || n.DataAtom == atom.Figcaption || n.DataAtom == atom.Caption || isDiv
		heading := float32(0)
		if b.heading > 0 {
			heading = float32(7-b.heading) / 6
		}
		f = append(f, tag(n.DataAtom == atom.P), heading, tag(n.DataAtom == atom.Li),
			tag(n.DataAtom == atom.Td || n.DataAtom == atom.Th), tag(n.DataAtom == atom.Pre),
			tag(n.DataAtom == atom.Blockquote), tag(n.DataAtom == atom.Dd || n.DataAtom == atom.Dt),
			tag(n.DataAtom == atom.Figcaption || n.DataAtom == atom.Caption), tag(isDiv), tag(!known))
		f = append(f, log1p(b.depth), per(i, len(seg.blocks)), per(b.before, total), log1p(b.repeat), nearness(b.repDist),
			tag(saysFurniture(text, 6)), tag(b.prevHead),
			inRules[i], pc.region.share(b.tokens), pc.kept.share(b.tokens),
			tag(pc.kind == kindArticle), tag(pc.kind == kindMany), log1p(len(seg.blocks)), log1p(pc.allWords),
			per(pc.rulesWords, pc.allWords))
		parent, up3 := up(n, 1), up(n, 3)
		ps, us := stats[parent], stats[up3]
		f = append(f, log1p(ps[0]), per(ps[1], ps[0]), per(b.charCount, ps[0]), log1p(us[0]), per(us[1], us[0]))
		for _, d := range b.ancDist {
			f = append(f, nearness(d))
		}
		for _, d := range b.hintDist {
			f = append(f, nearness(d))
		}
		for _, j := range []int{i - 1, i + 1} {
			if j < 0 || j >= len(seg.blocks) {
				f = append(f, -1, -1, -1, -1, -1, -1)
				continue
			}
			o := seg.blocks[j]
			oh := float32(0)
			if o.heading > 0 {
				oh = 1
			}
			f = append(f, oh, log1p(len(o.tokens)), per(o.linkChars, o.charCount), inRules[j],
				tag(o.node.DataAtom == atom.Li), tag(o.node.DataAtom == atom.Td || o.node.DataAtom == atom.Th))
		}
		out[i] = f
	}
	return out
}

// up is n's ancestor levels up, or the highest one below the document.
func up(n *html.Node, levels int) *html.Node {
	for range levels {
		if n.Parent == nil || n.Parent.Type != html.ElementNode {
			break
		}
		n = n.Parent
	}
	return n
}

// containerStats maps each element under root to the length of its text
// and of the part of it inside links.
func containerStats(root *html.Node) map[*html.Node][2]int {
	stats := map[*html.Node][2]int{}
	if root == nil {
		return stats
	}
	var measure func(n *html.Node, inLink bool) [2]int
	measure = func(n *html.Node, inLink bool) [2]int {
		switch {
		case n.Type == html.TextNode:
			l := collapsedLen(n.Data)
			if inLink {
				return [2]int{l, l}
			}
			return [2]int{l, 0}
		case n.Type == html.ElementNode && unread(n):
			return [2]int{}
		}
		inLink = inLink || n.DataAtom == atom.A
		var total [2]int
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			s := measure(k, inLink)
			total[0] += s[0]
			total[1] += s[1]
		}
		if n.Type == html.ElementNode {
			stats[n] = total
		}
		return total
	}
	measure(root, false)
	return stats
}
