package answer

import (
	"encoding/json"

	"github.com/glimpse/glimpse/orchestrator/markdown"
	"github.com/glimpse/glimpse/orchestrator/query"
)

// Text is a data rule's value as `embed=<rule>` answers with it.
type Text struct {
	Body        string `json:"body"`
	ContentType string `json:"content_type"`
}

// isMarkdown reports whether every way a rule reads its value gives
// Markdown.
func isMarkdown(r query.DataRule) bool {
	for _, q := range r.Fallbacks {
		if q.Attr != "markdown" {
			return false
		}
	}
	return len(r.Fallbacks) > 0
}

// withFrontmatter puts the metadata fields of the answer, with word_count
// and reading_time, before each Markdown value of the rules, as a YAML
// block: a model then gets the page's title, author and date with its
// text.
func withFrontmatter(rules []field, spec []query.DataRule, meta data) ([]field, error) {
	fm := make([]markdown.Field, 0, len(meta))
	for _, f := range meta {
		fm = append(fm, markdown.Field{Key: f.name, Value: yamlValue(f.value)})
	}
	for i, r := range spec {
		md, ok := rules[i].value.(string)
		if !ok || !isMarkdown(r) {
			continue
		}
		out, err := markdown.Frontmatter(fm, md)
		if err != nil {
			return nil, err
		}
		rules[i].value = out + md
	}
	return rules, nil
}

// yamlValue is an answer value as plain data for the frontmatter: objects
// keep their key order.
func yamlValue(v any) any {
	switch x := ordered(v).(type) {
	case data:
		out := make([]markdown.Field, 0, len(x))
		for _, f := range x {
			out = append(out, markdown.Field{Key: f.name, Value: yamlValue(f.value)})
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = yamlValue(e)
		}
		return out
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	default:
		return x
	}
}

// embedText is the value of rule as `embed` answers with it: Markdown as
// text/markdown, HTML as text/html, anything else as text/plain, objects
// and lists in JSON.
func embedText(r query.DataRule, v any) (Text, error) {
	ct := "text/plain; charset=utf-8"
	switch {
	case isMarkdown(r):
		ct = "text/markdown; charset=utf-8"
	case len(r.Fallbacks) > 0 && isHTML(r.Fallbacks[0]):
		ct = "text/html; charset=utf-8"
	case len(r.Fallbacks) > 0 && r.Fallbacks[0].Attr == "json":
		ct = "application/json; charset=utf-8"
	}
	switch x := v.(type) {
	case nil:
		return Text{ContentType: ct}, nil
	case string:
		return Text{Body: x, ContentType: ct}, nil
	}
	b, err := Marshal(v)
	return Text{Body: string(b), ContentType: ct}, err
}

// isHTML reports whether a query gives markup: `html` or `outerHTML`
// read as it is, or a whole-page rule's default, the page's HTML.
func isHTML(q query.DataQuery) bool {
	if len(q.Fields) > 0 || q.Evaluate != "" || (q.Type != "auto" && q.Type != "string") {
		return false
	}
	return q.Attr == "html" || q.Attr == "outerHTML" || q.Attr == ""
}
