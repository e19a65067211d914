package query

import (
	"strings"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

// AllFields are the metadata fields in the order of the envelope:
// Microlink's, with glimpse's own datePublished and dateModified after date.
var AllFields = []string{"title", "description", "lang", "author", "publisher", "image", "date", "datePublished", "dateModified", "url", "logo"}

// snakeFields are the snake_case spellings of the camelCase fields, which
// `meta.<field>` accepts as every parameter name does.
var snakeFields = map[string]string{"date_published": "datePublished", "date_modified": "dateModified"}

// embedPaths are the field paths `embed` accepts.
var embedPaths = []string{"pdf.url", "image.url", "logo.url", "screenshot.url"}

func parseMeta(q *query, req *Request) error {
	var on, off map[string]bool
	var first *param
	for _, p := range q.order {
		field, ok := strings.CutPrefix(p.name, "meta.")
		if !ok || isIgnored(p.name) {
			continue
		}
		if camel, ok := snakeFields[field]; ok {
			field = camel
		}
		if !isField(field) {
			return apierr.Query(p.given, p.value, "`%s` is not a metadata field; use `meta.<field>` with one of %s.",
				p.given, strings.Join(AllFields, ", "))
		}
		v, ok := parseBool(p.value)
		if !ok {
			return boolError(p)
		}
		if first == nil {
			first = p
		}
		if v {
			if on == nil {
				on = map[string]bool{}
			}
			on[field] = true
		} else {
			if off == nil {
				off = map[string]bool{}
			}
			off[field] = true
		}
	}
	if p, ok := q.get("meta"); ok {
		v, ok := parseBool(p.value)
		if !ok {
			return boolError(p)
		}
		if !v {
			if first != nil {
				return apierr.Query(p.given, p.value,
					"`%s=false` turns metadata off, but `%s` asks for a field; remove `%s=false` to get the chosen fields, or drop `%s`.",
					p.given, first.given, p.given, first.given)
			}
			req.MetaOff = true
			return nil
		}
	}
	for _, f := range AllFields {
		switch {
		case on != nil:
			if on[f] {
				req.Fields = append(req.Fields, f)
			}
		case !off[f]:
			req.Fields = append(req.Fields, f)
		}
	}
	if len(req.Fields) == 0 {
		req.Fields, req.MetaOff = nil, true
	}
	return nil
}

func isField(f string) bool {
	for _, a := range AllFields {
		if a == f {
			return true
		}
	}
	return false
}

func parseEmbed(q *query, req *Request) (string, error) {
	p, ok := q.get("embed")
	if !ok {
		return "", nil
	}
	v := strings.TrimSpace(p.value)
	switch v {
	case "pdf.url":
		if req.PDF == nil {
			return "", apierr.Query(p.given, p.value, "`%s=pdf.url` needs a PDF to embed: add `pdf=true` to the query.", p.given)
		}
		return v, nil
	case "image.url", "logo.url":
		field := strings.TrimSuffix(v, ".url")
		switch {
		case req.MetaOff:
			return "", apierr.Query(p.given, p.value,
				"`%s=%s` needs the `%s` field, but metadata is off: remove `meta=false` (or the `meta.<field>=false` parameters).",
				p.given, v, field)
		case !isIn(req.Fields, field):
			return "", apierr.Query(p.given, p.value,
				"`%s=%s` needs the `%s` field, which `meta` switched off: add `meta.%s=true`, or remove `meta.%s=false`.",
				p.given, v, field, field, field)
		}
		return v, nil
	case "screenshot.url":
		if req.Screenshot == nil {
			return "", apierr.Query(p.given, p.value, "`%s=screenshot.url` needs a screenshot to embed: add `screenshot=true` to the query.", p.given)
		}
		return v, nil
	}
	for _, r := range req.Data {
		if r.Name == v {
			return v, nil // the rule's value is the answer
		}
	}
	return "", apierr.Query(p.given, p.value, "`%s` must be one of `%s`, or the name of a `data` rule of the query, got %s.",
		p.given, strings.Join(embedPaths, "`, `"), apierr.Show(p.value))
}

func isIn(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parsePing reads `ping`: whether image and logo are fetched to describe
// them.
func parsePing(q *query, req *Request) error {
	if p, ok := q.get("ping"); ok {
		v, ok := parseBool(p.value)
		if !ok {
			return boolError(p)
		}
		req.Ping = v
	}
	return nil
}
