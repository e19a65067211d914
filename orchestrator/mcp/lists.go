package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Link is one entry of the links tool's answer.
type Link struct {
	URL  string `json:"url"`
	Text string `json:"text"`
}

// Image is one entry of the images tool's answer.
type Image struct {
	URL string `json:"url"`
	Alt string `json:"alt"`
}

// The links and images tools are data rules: every container the
// selector matches (the page itself without one), and in each every link
// or image, read as an absolute http(s) URL by the rules' `url` type. The
// tool flattens the containers and keeps each URL once, in page order.

func (s *Server) links(ctx context.Context, req *mcp.CallToolRequest, in SelectorInput) (*mcp.CallToolResult, any, error) {
	q := in.query()
	q.Set("meta", "false")
	q.Set("data.links.selectorAll", cmp(in.Selector, "html"))
	q.Set("data.links.attr.items.selectorAll", "a[href], area[href]")
	q.Set("data.links.attr.items.attr.url.attr", "href")
	q.Set("data.links.attr.items.attr.url.type", "url")
	q.Set("data.links.attr.items.attr.text.attr", "text")
	items, fail := s.items(ctx, req, q, "links")
	if fail != nil {
		return fail, nil, nil
	}
	out := distinct(items, func(u string, it map[string]any) Link {
		text, _ := it["text"].(string)
		return Link{URL: u, Text: text}
	})
	return nil, map[string]any{"count": len(out), "links": out}, nil
}

func (s *Server) images(ctx context.Context, req *mcp.CallToolRequest, in SelectorInput) (*mcp.CallToolResult, any, error) {
	q := in.query()
	q.Set("meta", "false")
	q.Set("data.images.selectorAll", cmp(in.Selector, "html"))
	q.Set("data.images.attr.items.selectorAll", "img")
	// A lazy-loaded image's src is often a placeholder (a data: URI, which
	// the url type drops); its real address is in data-src.
	q.Set("data.images.attr.items.attr.url.0.attr", "src")
	q.Set("data.images.attr.items.attr.url.0.type", "url")
	q.Set("data.images.attr.items.attr.url.1.attr", "data-src")
	q.Set("data.images.attr.items.attr.url.1.type", "url")
	q.Set("data.images.attr.items.attr.alt.attr", "alt")
	items, fail := s.items(ctx, req, q, "images")
	if fail != nil {
		return fail, nil, nil
	}
	out := distinct(items, func(u string, it map[string]any) Image {
		alt, _ := it["alt"].(string)
		return Image{URL: u, Alt: alt}
	})
	return nil, map[string]any{"count": len(out), "images": out}, nil
}

// distinct keeps the items with a url, each url once, in page order, as
// entry makes them.
func distinct[T any](items []map[string]any, entry func(url string, it map[string]any) T) []T {
	out := []T{}
	seen := map[string]bool{}
	for _, it := range items {
		u, _ := it["url"].(string)
		if u == "" || seen[u] {
			continue
		}
		seen[u] = true
		out = append(out, entry(u, it))
	}
	return out
}

// items reads data.<name>: a list of containers, each with its items.
func (s *Server) items(ctx context.Context, req *mcp.CallToolRequest, q url.Values, name string) ([]map[string]any, *mcp.CallToolResult) {
	ok, fail := s.json(ctx, req, q)
	if fail != nil {
		return nil, fail
	}
	var data map[string][]struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(ok.Data, &data); err != nil {
		return nil, toolError(envelope{Status: "error", Code: "EFATAL", Message: fmt.Sprintf("glimpse's answer to %s could not be read: %v", name, err)})
	}
	var all []map[string]any
	for _, c := range data[name] {
		all = append(all, c.Items...)
	}
	return all, nil
}

// maxRuleDepth bounds how deep extract's rules may nest; the API bounds
// their size.
const maxRuleDepth = 16

// flattenRules writes extract's rules in the API's dot notation, as mql
// flattens a data object: data.<name>.<key>…, arrays as .0, .1, ….
func flattenRules(q url.Values, rules map[string]any) error {
	return flatten(q, "data", rules, 0)
}

func flatten(q url.Values, prefix string, v any, depth int) error {
	if depth > maxRuleDepth {
		return fmt.Errorf("`rules` nest deeper than %d levels at `%s`; flatten them.", maxRuleDepth, strings.TrimPrefix(prefix, "data."))
	}
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		q.Set(prefix, v)
	case bool:
		q.Set(prefix, strconv.FormatBool(v))
	case float64:
		q.Set(prefix, strconv.FormatFloat(v, 'f', -1, 64))
	case json.Number:
		q.Set(prefix, v.String())
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			if k == "" || strings.ContainsAny(k, ".") {
				return fmt.Errorf("`rules` has the key %q at `%s`; names and keys are non-empty and have no dots.", k, strings.TrimPrefix(prefix, "data."))
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if err := flatten(q, prefix+"."+k, v[k], depth+1); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := flatten(q, prefix+"."+strconv.Itoa(i), e, depth+1); err != nil {
				return err
			}
		}
	default:
		return errors.New("`rules` holds a value that is not a string, number, boolean, object or array")
	}
	return nil
}
