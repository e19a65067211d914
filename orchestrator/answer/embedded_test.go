package answer

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/glimpse/glimpse/orchestrator/query"
)

func TestEmbeddedRuleValuesHaveTheTypeOfWhatTheyHold(t *testing.T) {
	rule := func(attr string) query.DataRule {
		return query.DataRule{Name: "x", Fallbacks: []query.DataQuery{{Attr: attr, Type: "string"}}}
	}
	cases := []struct {
		name  string
		rule  query.DataRule
		value any
		ct    string
		body  string
	}{
		{"Markdown is text/markdown", rule("markdown"), "# Title", "text/markdown; charset=utf-8", "# Title"},
		{"HTML is text/html", rule("html"), "<b>x</b>", "text/html; charset=utf-8", "<b>x</b>"},
		{"text is text/plain", rule("text"), "plain", "text/plain; charset=utf-8", "plain"},
		{"a list is its JSON as text/plain", rule("text"), []any{"a", "b"}, "text/plain; charset=utf-8", `["a","b"]`},
		{"outerHTML is text/html", rule("outerHTML"), "<b>x</b>", "text/html; charset=utf-8", "<b>x</b>"},
		{"the whole page by default is text/html", rule(""), "<html></html>", "text/html; charset=utf-8", "<html></html>"},
		{"HTML under a metadata type is text/plain", query.DataRule{Name: "x", Fallbacks: []query.DataQuery{{Attr: "html", Type: "title"}}},
			"A title", "text/plain; charset=utf-8", "A title"},
		{"a script's value is text/plain", query.DataRule{Name: "x", Fallbacks: []query.DataQuery{{Evaluate: "1", Type: "auto"}}},
			"<b>x</b>", "text/plain; charset=utf-8", "<b>x</b>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := embedText(tc.rule, tc.value)
			if err != nil || got.ContentType != tc.ct || got.Body != tc.body {
				t.Errorf("got %+v (%v), want %q as %s", got, err, tc.body, tc.ct)
			}
		})
	}
}

func TestFrontmatterGoesBeforeMarkdownValuesOnly(t *testing.T) {
	title, author, published := "A: title with a colon", "Ana", "2024-03-05T10:00:00.000Z"
	meta := data{{"title", &title}, {"author", &author}, {"date", &published}, {"datePublished", &published}, {"dateModified", nil},
		{"image", &Asset{URL: "https://e.example/i.png", Type: "png"}}}
	spec := []query.DataRule{
		{Name: "content", Fallbacks: []query.DataQuery{{Attr: "markdown"}}},
		{Name: "price", Fallbacks: []query.DataQuery{{Selector: ".p", Attr: "text"}}},
	}
	rules, err := withFrontmatter([]field{{"content", "Some words here."}, {"price", "12"}}, spec, meta)
	if err != nil {
		t.Fatal(err)
	}
	md := rules[0].value.(string)
	head, body, ok := strings.Cut(strings.TrimPrefix(md, "---\n"), "\n---\n")
	if !strings.HasPrefix(md, "---\n") || !ok || strings.TrimSpace(body) != "Some words here." {
		t.Fatalf("not a frontmatter block before the Markdown:\n%s", md)
	}
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
		t.Fatalf("the frontmatter is not YAML: %v\n%s", err, head)
	}
	img, _ := fm["image"].(map[string]any)
	if v, ok := fm["dateModified"]; !ok || v != nil {
		t.Errorf("dateModified should be in the frontmatter as null, got %v (present %v)", v, ok)
	}
	if fm["title"] != title || fm["author"] != author || fm["date"] != published || fm["datePublished"] != published ||
		fm["dateModified"] != nil || img["url"] != "https://e.example/i.png" || fm["word_count"] != 3 {
		t.Errorf("the frontmatter reads back as %v", fm)
	}
	if rules[1].value != "12" {
		t.Errorf("a value that is not Markdown got a frontmatter: %v", rules[1].value)
	}
}
