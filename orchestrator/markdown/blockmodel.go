package markdown

import (
	"bytes"
	"compress/gzip"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"sync"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/markdown/internal/boost"
	"github.com/glimpse/glimpse/orchestrator/markdown/internal/score"
)

// Chooser is how Article decides which parts of a page are its main
// content.
type Chooser int

const (
	// ChooseByRules takes the rules' choice: the main region or the block
	// Readability picks, pruned of furniture. The default.
	ChooseByRules Chooser = iota
	// ChooseByModel lets the block model decide, block by block, which
	// text of the page is the content; the rules' choice is one of what
	// it weighs.
	ChooseByModel
)

// BlockModel is a trained block classifier: for each text block of a
// page, the probability that it belongs to the main content.
type BlockModel struct {
	model *boost.Model
	// Threshold is the least probability of a block that is kept.
	threshold float64
}

// blockModelFile is the model data as the training command writes it.
type blockModelFile struct {
	Threshold float64      `json:"threshold"`
	Model     *boost.Model `json:"model"`
}

// ParseBlockModel reads a model the training command wrote (JSON, gzipped
// or not). A model trained on other features than this version computes
// is refused.
func ParseBlockModel(data []byte) (*BlockModel, error) {
	if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
		z, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("the block model is not readable gzip: %w", err)
		}
		if data, err = io.ReadAll(io.LimitReader(z, 64<<20)); err != nil {
			return nil, fmt.Errorf("the block model is not readable gzip: %w", err)
		}
	}
	var f blockModelFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("the block model is not valid JSON: %w", err)
	}
	if f.Model == nil {
		return nil, fmt.Errorf("the block model holds no model")
	}
	if !slices.Equal(f.Model.Features, blockFeatureNames) {
		return nil, fmt.Errorf("the block model was trained on other features than this version computes; retrain it")
	}
	if err := f.Model.Check(); err != nil {
		return nil, fmt.Errorf("the block model is damaged: %w", err)
	}
	if f.Threshold <= 0 || f.Threshold >= 1 {
		f.Threshold = 0.5
	}
	return &BlockModel{model: f.Model, threshold: f.Threshold}, nil
}

// MarshalBlockModel writes m's data as ParseBlockModel reads it: for the
// training command.
func MarshalBlockModel(m *boost.Model, threshold float64) ([]byte, error) {
	return json.Marshal(blockModelFile{Threshold: threshold, Model: m})
}

//go:embed blockmodel.json.gz
var builtinBlockModel []byte

var builtinModel = sync.OnceValues(func() (*BlockModel, error) { return ParseBlockModel(builtinBlockModel) })

// collectKey carries, in a context, where PageBlocks wants the blocks.
type collectKey struct{}

// PageBlocks returns the text blocks of the page as the block model sees
// them, with their features: what the training command learns from. The
// page is taken as Article takes it, and the rules' answer, Article's with
// ChooseByRules, comes with them.
func PageBlocks(ctx context.Context, doc *goquery.Document, pageURL *url.URL, opts Options) ([]Block, string, error) {
	var out []Block
	opts.Chooser = ChooseByModel
	md, err := Article(context.WithValue(ctx, collectKey{}, &out), doc, pageURL, opts)
	if err != nil {
		return nil, "", err
	}
	return out, md, nil
}

// chooseBlocks is the block model's choice of the content of whole, the
// page as cleaned before the rules pruned it. pruned is the page once the
// rules removed its furniture, region their main region, and rules their
// choice; each is a feature of the blocks. It returns the content.
func chooseBlocks(ctx context.Context, whole, pruned, region, rules *html.Node, kind pageKind, opts Options) *html.Node {
	body := findFirst(whole, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	if body == nil {
		return rules
	}
	seg := segment(body)
	pc := pageContext{kind: kind, rules: newTextSet(rules), region: newTextSet(region), kept: newTextSet(pruned)}
	for _, b := range seg.blocks {
		pc.allWords += len(b.tokens)
	}
	if rules != nil {
		pc.rulesWords = len(score.WCXBTokens(textOf(rules)))
	}
	feats := seg.features(pc)
	if out, ok := ctx.Value(collectKey{}).(*[]Block); ok {
		for i, b := range seg.blocks {
			*out = append(*out, Block{Text: b.text.String(), Features: feats[i]})
		}
		return rules
	}
	m := opts.BlockModel
	if m == nil {
		var err error
		if m, err = builtinModel(); err != nil {
			return rules
		}
	}
	keep := make([]bool, len(seg.blocks))
	any := false
	for i, f := range feats {
		keep[i] = m.model.Predict(f) >= m.threshold
		any = any || keep[i]
	}
	if !any {
		return rules
	}
	dropTitle(body, whole)
	seg.prune(body, keep)
	return body
}

// prune removes from the page the text of the blocks not kept, the images
// between them, and the elements left with neither text nor image.
func (seg *segmentation) prune(root *html.Node, keep []bool) {
	for _, m := range seg.loose {
		prev := m.before == 0 || keep[m.before-1]
		next := m.before >= len(keep) || keep[m.before]
		if !prev || !next {
			if m.node.Parent != nil {
				m.node.Parent.RemoveChild(m.node)
			}
		}
	}
	for i, b := range seg.blocks {
		if !keep[i] {
			dropOwnText(b.node, b.node.DataAtom == atom.Pre)
		}
	}
	dropBare(root)
}

// dropOwnText removes the text of the block n that is its own: its text
// and inline elements, not the blocks nested in it.
func dropOwnText(n *html.Node, whole bool) {
	if whole {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
		return
	}
	for k := n.FirstChild; k != nil; {
		next := k.NextSibling
		switch {
		case k.Type == html.TextNode:
			n.RemoveChild(k)
		case k.Type != html.ElementNode || blockLevel(k) || unread(k):
		case findFirst(k, blockLevel) != nil:
			dropOwnText(k, false)
		default:
			n.RemoveChild(k)
		}
		k = next
	}
}

// dropBare removes the elements under n with neither text nor image; it
// reports whether n keeps either.
func dropBare(n *html.Node) bool {
	switch {
	case n.Type == html.TextNode:
		return collapsedLen(n.Data) > 0 && len(bytes.TrimSpace([]byte(n.Data))) > 0
	case n.Type == html.ElementNode && (n.DataAtom == atom.Img || n.DataAtom == atom.Picture || n.Data == "math" ||
		n.DataAtom == atom.Br || n.DataAtom == atom.Hr):
		return true
	case n.Type == html.ElementNode && unread(n):
		return false
	}
	has := false
	for k := n.FirstChild; k != nil; {
		next := k.NextSibling
		if dropBare(k) {
			has = has || k.Type != html.ElementNode || (k.DataAtom != atom.Br && k.DataAtom != atom.Hr)
		} else if k.Type == html.ElementNode {
			n.RemoveChild(k)
		}
		k = next
	}
	return has
}
