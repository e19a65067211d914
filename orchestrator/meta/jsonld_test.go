package meta

import (
	"testing"
)

func TestDecodeLD(t *testing.T) {
	tests := []struct {
		name, in string
		items    int
	}{
		{"valid JSON", `{"@type":"Article"}`, 1},
		{"a top-level array", `[{"@type":"Article"},{"@type":"WebSite"}]`, 1},
		{"a trailing comma", `{"@type":"Article","headline":"x",}`, 1},
		{"a raw newline inside a string", "{\"@type\":\"Article\",\"headline\":\"two\nlines\"}", 1},
		{"comments", "{\n// the type\n\"@type\": /* really */ \"Article\"}", 1},
		{"an HTML comment wrapper", `<!-- {"@type":"Article"} -->`, 1},
		{"a CDATA wrapper", `//<![CDATA[
			{"@type":"Article"}
		//]]>`, 1},
		{"two objects in a row", `{"@type":"Article"}{"@type":"WebSite"}`, 2},
		{"two objects separated by a comma", `{"@type":"Article"},{"@type":"WebSite"}`, 2},
		{"a value left out", `{"@type":"Article","image":{"height": },"headline":"x"}`, 1},
		{"a stray backslash", `{"@type":"Article","headline":"C:\path"}`, 1},
		{"not JSON at all", `var x = 1;`, 0},
		{"empty", `   `, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decodeLD(tt.in); len(got) != tt.items {
				t.Errorf("decodeLD(%q) = %d values %v, want %d", tt.in, len(got), got, tt.items)
			}
		})
	}
}

func TestJSONLDGraph(t *testing.T) {
	doc := parseHTML(t, `
		<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
			{"@type":"WebSite","@id":"#site","name":"Site","publisher":{"@id":"#org"}},
			{"@type":["WebPage","ItemPage"],"@id":"#page","mainEntity":{"@type":"NewsArticle","headline":"Main"}},
			{"@type":"Organization","@id":"#org","name":"Org","logo":{"@id":"#logo"}},
			{"@type":"ImageObject","@id":"#logo","url":"https://example.com/logo.png","width":"512","height":"512px"}
		]}</script>
		<script type="application/json+ld">{"@type":"schema:Person","name":"Someone"}</script>
		<script type="application/json">{"@type":"Article","headline":"not JSON-LD"}</script>`)
	g := parseJSONLD(doc)
	var kinds []int
	for _, n := range g.nodes {
		kinds = append(kinds, ldKind(n))
	}
	want := []int{kindArticle, kindPage, kindSite, kindParty, kindParty, kindOther}
	if len(kinds) != len(want) {
		t.Fatalf("kinds of the items = %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("kinds of the items = %v, want %v (most representative first)", kinds, want)
		}
	}
	org, ok := g.resolve(g.nodes[2]["publisher"]).(ldNode)
	if !ok || org["name"] != "Org" {
		t.Fatalf("the WebSite's publisher resolved to %v, want the Organization", org)
	}
	imgs := g.ldImages(org["logo"], 0)
	if len(imgs) != 1 || imgs[0].url != "https://example.com/logo.png" || imgs[0].width != 512 || imgs[0].height != 512 {
		t.Errorf("the organisation's logo = %+v, want the ImageObject with its size", imgs)
	}
	if got := g.ldNames([]any{"A", map[string]any{"name": "B"}, 3.0, nil}, 0); len(got) != 2 {
		t.Errorf("ldNames = %v, want the two names", got)
	}
	if got := g.ldText(map[string]any{"@value": "tagged", "@language": "en"}); got != "tagged" {
		t.Errorf("ldText of a language-tagged value = %q, want its value", got)
	}
}
