package markdown

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/glimpse/glimpse/orchestrator/markdown/internal/boost"
	"github.com/glimpse/glimpse/orchestrator/meta"
)

func TestPruneKeepsTheStructureOfWhatIsKept(t *testing.T) {
	for _, tc := range []struct {
		name, html string
		keep       []bool
		want       string
	}{
		{"a dropped paragraph goes, the kept one stays",
			`<p>Menu</p><p>Story</p>`, []bool{false, true}, `<p>Story</p>`},
		{"a dropped div keeps the kept paragraph nested in it",
			`<div>Posted by Ann<p>The answer</p></div>`, []bool{false, true}, `<div><p>The answer</p></div>`},
		{"a list loses the items dropped and keeps its shape",
			`<ul><li>One</li><li>Ad</li><li>Two</li></ul>`, []bool{true, false, true}, `<ul><li>One</li><li>Two</li></ul>`},
		{"an image between kept paragraphs stays",
			`<p>Before</p><figure><img src="a.png"></figure><p>After</p>`, []bool{true, true}, `<p>Before</p><figure><img src="a.png"/></figure><p>After</p>`},
		{"an image beside a dropped block goes",
			`<p>Logo</p><div><img src="logo.png"></div><p>Story</p>`, []bool{false, true}, `<p>Story</p>`},
		{"an image inside a kept paragraph stays with it",
			`<p>See <img src="b.png"> here</p><p>Footer</p>`, []bool{true, false}, `<p>See <img src="b.png"/> here</p>`},
		{"code dropped goes whole",
			`<pre><span>x</span></pre><p>Text</p>`, []bool{false, true}, `<p>Text</p>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := parseBody(t, `<html><body>`+tc.html+`</body></html>`)
			body := findFirst(doc, func(n *html.Node) bool { return n.Data == "body" })
			seg := segment(body)
			if len(seg.blocks) != len(tc.keep) {
				t.Fatalf("%d blocks %q for %d decisions", len(seg.blocks), blockTexts(seg), len(tc.keep))
			}
			seg.prune(body, tc.keep)
			var sb strings.Builder
			for k := body.FirstChild; k != nil; k = k.NextSibling {
				html.Render(&sb, k)
			}
			if sb.String() != tc.want {
				t.Errorf("after pruning: %s\nwant %s", sb.String(), tc.want)
			}
		})
	}
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write(b)
	z.Close()
	return buf.Bytes()
}

func TestParseBlockModelRefusesWhatItCannotUse(t *testing.T) {
	names := BlockFeatureNames()
	leaf := boost.Tree{Feature: []int{-1}, Threshold: []float32{0}, Left: []int{0}, Right: []int{0}, Value: []float32{1}}
	good, err := MarshalBlockModel(&boost.Model{Features: names, Trees: []boost.Tree{leaf}}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	otherFeatures, _ := MarshalBlockModel(&boost.Model{Features: names[1:], Trees: []boost.Tree{leaf}}, 0.5)
	loop := boost.Tree{Feature: []int{0, -1}, Threshold: []float32{0, 0}, Left: []int{0, 0}, Right: []int{1, 0}, Value: []float32{0, 0}}
	damaged, _ := MarshalBlockModel(&boost.Model{Features: names, Trees: []boost.Tree{loop}}, 0.5)
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"not JSON", "not valid JSON", []byte("model")},
		{"broken gzip", "not readable gzip", append([]byte{0x1f, 0x8b}, "xxxxxxxxxxxx"...)},
		{"no model in it", "holds no model", []byte(`{"threshold":0.5}`)},
		{"trained on other features", "other features", otherFeatures},
		{"a tree that loops", "damaged", damaged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseBlockModel(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
	for _, data := range [][]byte{good, gz(good)} {
		if _, err := ParseBlockModel(data); err != nil {
			t.Errorf("a sound model was refused: %v", err)
		}
	}
}

func TestTheBuiltInBlockModelLoads(t *testing.T) {
	m, err := builtinModel()
	if err != nil {
		t.Fatalf("the built-in block model does not load: %v; retrain it with the command in docs/content-extraction.md", err)
	}
	if len(m.model.Trees) == 0 {
		t.Error("the built-in block model has no trees")
	}
}

func TestPageBlocksDescribesEveryBlock(t *testing.T) {
	doc, err := meta.ParseDocument(strings.NewReader(thread(4)))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("https://forum.example/t/1")
	blocks, md, err := PageBlocks(context.Background(), doc, u, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rules, _ := Article(context.Background(), doc, u, Options{}); md != rules {
		t.Errorf("PageBlocks gave another answer than the rules:\n%s\nwant\n%s", md, rules)
	}
	if len(blocks) < 12 {
		t.Fatalf("%d blocks for a thread of four posts", len(blocks))
	}
	for _, b := range blocks {
		if len(b.Features) != len(blockFeatureNames) {
			t.Fatalf("block %q has %d features, want %d", b.Text, len(b.Features), len(blockFeatureNames))
		}
	}
}

func TestChooseByModelIsDeterministicAndLeavesTheRulesAlone(t *testing.T) {
	u, _ := url.Parse("https://forum.example/t/1")
	for _, tc := range []struct {
		name, page string
	}{
		{"a thread", thread(5)},
		{"a service page", servicePage},
		{"a question with its answers", questionAndAnswers},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := meta.ParseDocument(strings.NewReader(tc.page))
			if err != nil {
				t.Fatal(err)
			}
			before, err := Article(context.Background(), doc, u, Options{})
			if err != nil {
				t.Fatal(err)
			}
			first, err := Article(context.Background(), doc, u, Options{Chooser: ChooseByModel})
			if err != nil {
				t.Fatal(err)
			}
			second, _ := Article(context.Background(), doc, u, Options{Chooser: ChooseByModel})
			if first != second {
				t.Errorf("the model gave two answers for one page:\n%s\n---\n%s", first, second)
			}
			if strings.TrimSpace(first) == "" {
				t.Error("the model kept nothing of a page with content")
			}
			if after, _ := Article(context.Background(), doc, u, Options{}); after != before {
				t.Error("running the model changed what the rules answer for the same document")
			}
		})
	}
}

func TestChooseByModelFallsBackToTheRulesWhenItKeepsNothing(t *testing.T) {
	names := BlockFeatureNames()
	never := boost.Tree{Feature: []int{-1}, Threshold: []float32{0}, Left: []int{0}, Right: []int{0}, Value: []float32{-20}}
	data, _ := MarshalBlockModel(&boost.Model{Features: names, Trees: []boost.Tree{never}}, 0.5)
	m, err := ParseBlockModel(data)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("https://example.com/")
	doc, _ := meta.ParseDocument(strings.NewReader(servicePage))
	rules, _ := Article(context.Background(), doc, u, Options{})
	got, err := Article(context.Background(), doc, u, Options{Chooser: ChooseByModel, BlockModel: m})
	if err != nil || got != rules {
		t.Errorf("a model that keeps no block gave %q (%v), want the rules' answer", got, err)
	}
}
